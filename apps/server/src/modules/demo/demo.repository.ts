import type { Insertable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { ShareTable, UserTable } from '../../db/schema.js';

const MARKER_KEY = 'demo_data';

export async function findDemoMarker(db: Db): Promise<string | undefined> {
  const row = await db.selectFrom('appSettings').select('value').where('key', '=', MARKER_KEY).executeTakeFirst();
  return row?.value;
}

export async function writeDemoMarker(db: Db, value: string): Promise<void> {
  await db
    .insertInto('appSettings')
    .values({ key: MARKER_KEY, value })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
}

/** Inserts the account unless one with its e-mail (or CPF) exists; returns the id either way. */
export async function ensureUser(db: Db, user: Insertable<UserTable>): Promise<string> {
  await db
    .insertInto('users')
    .values(user)
    .onConflict((oc) => oc.doNothing())
    .execute();
  const row = await db.selectFrom('users').select('id').where('email', '=', user.email).executeTakeFirst();
  if (!row) throw new Error(`demo account ${user.email} could not be created`);
  return row.id;
}

export async function findTagId(db: Db, institutionId: string, tag: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('tags')
    .select('id')
    .where('institutionId', '=', institutionId)
    .where('tag', '=', tag)
    .executeTakeFirst();
  return row?.id;
}

export async function addTagMember(db: Db, tagId: string, userId: string, now: string): Promise<void> {
  await db
    .insertInto('tagMembers')
    .values({ tagId, userId, createdAt: now })
    .onConflict((oc) => oc.columns(['tagId', 'userId']).doNothing())
    .execute();
  await db
    .updateTable('users')
    .set({ favoriteTagId: tagId })
    .where('id', '=', userId)
    .where('favoriteTagId', 'is', null)
    .execute();
}

/** Links the patient's protocols of the institution to the patient's account. */
export async function linkPatientProtocols(
  db: Db,
  institutionId: string,
  patientExternalId: string,
  userId: string,
): Promise<void> {
  await db
    .updateTable('protocols')
    .set({ patientUserId: userId })
    .where('institutionId', '=', institutionId)
    .where('patientExternalId', '=', patientExternalId)
    .where('patientUserId', 'is', null)
    .execute();
}

export async function countShares(db: Db, patientUserId: string): Promise<number> {
  const row = await db
    .selectFrom('shares')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('patientUserId', '=', patientUserId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertShare(db: Db, share: Insertable<ShareTable>, protocolNumbers: string[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('shares').values(share).execute();
    const protocols = await trx
      .selectFrom('protocols')
      .select('id')
      .where('patientUserId', '=', share.patientUserId)
      .where('number', 'in', protocolNumbers)
      .execute();
    for (const p of protocols) {
      await trx.insertInto('shareProtocols').values({ shareId: share.id, protocolId: p.id }).execute();
    }
  });
}
