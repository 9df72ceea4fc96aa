import { type Db, type Dialect, heldRow } from '../../db/database.js';

export function listTags(db: Db, institutionId: string) {
  return db
    .selectFrom('tags')
    .select(['id', 'tag'])
    .where('institutionId', '=', institutionId)
    .orderBy('tag')
    .execute();
}

export function findTag(db: Db, institutionId: string, tagId: string) {
  return db
    .selectFrom('tags')
    .select(['id', 'tag'])
    .where('institutionId', '=', institutionId)
    .where('id', '=', tagId)
    .executeTakeFirst();
}

export function findTagByText(db: Db, institutionId: string, tag: string) {
  return db
    .selectFrom('tags')
    .select(['id', 'tag'])
    .where('institutionId', '=', institutionId)
    .where('tag', '=', tag)
    .executeTakeFirst();
}

export async function insertTag(db: Db, row: { id: string; institutionId: string; tag: string; createdAt: string }) {
  await db.insertInto('tags').values(row).execute();
}

/** Renames a tag; false when it is gone (deleted meanwhile). */
export async function renameTag(db: Db, tagId: string, tag: string): Promise<boolean> {
  const result = await db.updateTable('tags').set({ tag }).where('id', '=', tagId).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function tagIsUsedByProtocols(db: Db, tagId: string): Promise<boolean> {
  const row = await db.selectFrom('protocols').select('id').where('tagId', '=', tagId).limit(1).executeTakeFirst();
  return !!row;
}

/**
 * Deletes a tag unless protocols carry it, with the tag's row held while it looks (PostgreSQL:
 * `FOR UPDATE`, which also waits for a protocol being tagged with it; SQLite writes one transaction
 * at a time): deletions in flight delete it once, and a protocol tagged meanwhile keeps it.
 */
export async function deleteTagUnlessUsed(
  db: Db,
  dialect: Dialect,
  tagId: string,
): Promise<'deleted' | 'missing' | 'used'> {
  return db.transaction().execute(async (trx) => {
    const row = trx.selectFrom('tags').select('id').where('id', '=', tagId);
    if (!(await heldRow(row, dialect).executeTakeFirst())) return 'missing';
    if (await tagIsUsedByProtocols(trx, tagId)) return 'used';
    await deleteTag(trx, tagId);
    return 'deleted';
  });
}

async function deleteTag(db: Db, tagId: string) {
  // Members first: a favourite being saved holds its member row (saveFavoriteTag), so this waits
  // for it, and the favourites cleared next include the one it saved.
  await db.deleteFrom('tagMembers').where('tagId', '=', tagId).execute();
  await db.updateTable('users').set({ favoriteTagId: null }).where('favoriteTagId', '=', tagId).execute();
  await db.deleteFrom('tags').where('id', '=', tagId).execute();
}

export async function institutionHasTags(db: Db, institutionId: string): Promise<boolean> {
  const row = await db
    .selectFrom('tags')
    .select('id')
    .where('institutionId', '=', institutionId)
    .limit(1)
    .executeTakeFirst();
  return !!row;
}

/**
 * Whether a tag is still there, held until the transaction ends so that a deletion waits for it
 * (PostgreSQL: `FOR KEY SHARE`, which a deletion's `FOR UPDATE` waits for, and which finds the row
 * gone once a deletion it waited for commits; SQLite writes one transaction at a time).
 */
export async function holdTag(db: Db, dialect: Dialect, tagId: string): Promise<boolean> {
  const row = db.selectFrom('tags').select('id').where('id', '=', tagId);
  return !!(await heldRow(row, dialect, 'key share').executeTakeFirst());
}

export async function addTagMember(db: Db, tagId: string, userId: string, createdAt: string) {
  await db
    .insertInto('tagMembers')
    .values({ tagId, userId, createdAt })
    .onConflict((oc) => oc.columns(['tagId', 'userId']).doNothing())
    .execute();
}

/**
 * Saves a tag as a member's favourite while he still belongs to it, his member row held until the
 * change is written (PostgreSQL: `FOR SHARE`, which the tag's deletion and his removal wait for
 * before they clear favourites; SQLite writes one transaction at a time). False when he is no
 * member (any more): nothing is written.
 */
export async function saveFavoriteTag(
  db: Db,
  dialect: Dialect,
  userId: string,
  tagId: string,
  updatedAt: string,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const member = trx
      .selectFrom('tagMembers')
      .select('userId')
      .where('tagId', '=', tagId)
      .where('userId', '=', userId);
    if (!(await heldRow(member, dialect, 'share').executeTakeFirst())) return false;
    await trx.updateTable('users').set({ favoriteTagId: tagId, updatedAt }).where('id', '=', userId).execute();
    return true;
  });
}

/**
 * Takes a member out of a tag and, in the same transaction, the tag from his favourite: a removal
 * is never seen, nor left by a crash, half done.
 */
export async function removeTagMember(db: Db, tagId: string, userId: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const result = await trx
      .deleteFrom('tagMembers')
      .where('tagId', '=', tagId)
      .where('userId', '=', userId)
      .executeTakeFirst();
    await trx
      .updateTable('users')
      .set({ favoriteTagId: null })
      .where('id', '=', userId)
      .where('favoriteTagId', '=', tagId)
      .execute();
    return Number(result.numDeletedRows) > 0;
  });
}

function tagMembers(db: Db, tagId: string) {
  return db
    .selectFrom('tagMembers')
    .innerJoin('users', 'users.id', 'tagMembers.userId')
    .select(['users.id', 'users.name', 'users.email', 'users.type', 'users.active'])
    .where('tagMembers.tagId', '=', tagId);
}

export function listTagMembers(db: Db, tagId: string) {
  return tagMembers(db, tagId).orderBy('users.name').execute();
}

export function findTagMember(db: Db, tagId: string, userId: string) {
  return tagMembers(db, tagId).where('users.id', '=', userId).executeTakeFirst();
}

/** The institutions whose tags a user belongs to. */
export async function memberInstitutionIds(db: Db, userId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('tagMembers')
    .innerJoin('tags', 'tags.id', 'tagMembers.tagId')
    .select('tags.institutionId')
    .distinct()
    .where('tagMembers.userId', '=', userId)
    .execute();
  return rows.map((r) => r.institutionId);
}
