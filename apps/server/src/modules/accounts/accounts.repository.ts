import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { InstitutionTable, OneTimeTokenKind, OneTimeTokenTable, UserTable } from '../../db/schema.js';

export type UserRow = Selectable<UserTable>;
export type OneTimeTokenRow = Selectable<OneTimeTokenTable>;
export type InstitutionRow = Selectable<InstitutionTable>;

export function findUserById(db: Db, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
}

export function findUserByCpf(db: Db, cpf: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('cpf', '=', cpf).executeTakeFirst();
}

export async function insertUser(db: Db, user: Insertable<UserTable>): Promise<void> {
  await db.insertInto('users').values(user).execute();
}

export async function updateUser(db: Db, id: string, patch: Updateable<UserTable>): Promise<void> {
  await db.updateTable('users').set(patch).where('id', '=', id).execute();
}

export async function insertOneTimeToken(db: Db, row: Insertable<OneTimeTokenTable>): Promise<void> {
  await db.insertInto('oneTimeTokens').values(row).execute();
}

export function findOneTimeTokenByHash(db: Db, tokenHash: string): Promise<OneTimeTokenRow | undefined> {
  return db.selectFrom('oneTimeTokens').selectAll().where('tokenHash', '=', tokenHash).executeTakeFirst();
}

export async function setOneTimeTokenStatus(db: Db, id: string, status: string): Promise<void> {
  await db.updateTable('oneTimeTokens').set({ status }).where('id', '=', id).execute();
}

/** Marks a token used; false when another request used it first (single use under races). */
export async function markOneTimeTokenUsed(db: Db, id: string, usedAt: string, status?: string): Promise<boolean> {
  const result = await db
    .updateTable('oneTimeTokens')
    .set(status ? { usedAt, status } : { usedAt })
    .where('id', '=', id)
    .where('usedAt', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Ends the unused tokens of a kind for an e-mail (a new invitation or reset replaces the old). */
export async function retireOneTimeTokens(db: Db, email: string, kinds: OneTimeTokenKind[], usedAt: string) {
  await db
    .updateTable('oneTimeTokens')
    .set({ usedAt })
    .where('email', '=', email)
    .where('kind', 'in', kinds)
    .where('usedAt', 'is', null)
    .execute();
}

export function findInstitutionById(db: Db, id: string): Promise<InstitutionRow | undefined> {
  return db.selectFrom('institutions').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findInstitutionByCode(db: Db, code: string): Promise<InstitutionRow | undefined> {
  return db.selectFrom('institutions').selectAll().where('code', '=', code).executeTakeFirst();
}

export function listUserTags(db: Db, userId: string): Promise<Array<{ id: string; tag: string }>> {
  return db
    .selectFrom('tagMembers')
    .innerJoin('tags', 'tags.id', 'tagMembers.tagId')
    .select(['tags.id', 'tags.tag'])
    .where('tagMembers.userId', '=', userId)
    .orderBy('tags.tag')
    .execute();
}
