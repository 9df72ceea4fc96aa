import type { Db } from '../../db/database.js';
import type { PasskeyTable } from '../../db/schema.js';

export type PasskeyRow = PasskeyTable;
export type ChallengePurpose = 'REGISTER' | 'SIGN_IN';

export async function insertChallenge(
  db: Db,
  row: {
    id: string;
    purpose: ChallengePurpose;
    userId: string | null;
    challenge: string;
    expiresAt: string;
    createdAt: string;
  },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // Unanswered challenges are forgotten once they expire.
    await trx.deleteFrom('webauthnChallenges').where('expiresAt', '<=', row.createdAt).execute();
    await trx.insertInto('webauthnChallenges').values(row).execute();
  });
}

/**
 * Takes a live challenge out of the table: of several requests answering the same challenge, in
 * one process or several, exactly one gets it (the DELETE ... RETURNING is atomic on both databases).
 */
export async function consumeChallenge(
  db: Db,
  id: string,
  purpose: ChallengePurpose,
  now: string,
): Promise<{ challenge: string; userId: string | null } | undefined> {
  const row = await db
    .deleteFrom('webauthnChallenges')
    .where('id', '=', id)
    .where('purpose', '=', purpose)
    .returning(['challenge', 'userId', 'expiresAt'])
    .executeTakeFirst();
  if (!row || row.expiresAt <= now) return undefined;
  return { challenge: row.challenge, userId: row.userId };
}

export async function listPasskeys(db: Db, userId: string): Promise<PasskeyRow[]> {
  return db
    .selectFrom('passkeys')
    .selectAll()
    .where('userId', '=', userId)
    .orderBy('createdAt')
    .orderBy('id')
    .execute();
}

export async function countPasskeys(db: Db, userId: string): Promise<number> {
  const row = await db
    .selectFrom('passkeys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('userId', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findPasskeyByCredentialId(db: Db, credentialId: string): Promise<PasskeyRow | undefined> {
  return db.selectFrom('passkeys').selectAll().where('credentialId', '=', credentialId).executeTakeFirst();
}

/** The user's own passkey; another user's answers as if it did not exist. */
export async function findOwnPasskey(db: Db, userId: string, id: string): Promise<PasskeyRow | undefined> {
  return db.selectFrom('passkeys').selectAll().where('id', '=', id).where('userId', '=', userId).executeTakeFirst();
}

export async function insertPasskey(db: Db, row: PasskeyRow): Promise<void> {
  await db.insertInto('passkeys').values(row).execute();
}

export async function renamePasskey(db: Db, userId: string, id: string, name: string): Promise<boolean> {
  const result = await db
    .updateTable('passkeys')
    .set({ name })
    .where('id', '=', id)
    .where('userId', '=', userId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deletePasskey(db: Db, userId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('passkeys').where('id', '=', id).where('userId', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** Records a use: the new signature counter (never moving back) and when. */
export async function markPasskeyUsed(db: Db, id: string, counter: number, now: string): Promise<void> {
  await db.updateTable('passkeys').set({ counter, lastUsedAt: now }).where('id', '=', id).execute();
}
