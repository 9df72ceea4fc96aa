import { type Db, type Dialect, heldRow } from '../../db/database.js';
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

/**
 * Adds a passkey to an account unless it already has `max`, with the account's row held as for a
 * removal: registrations in flight count one after the other and never pass the limit together.
 * Without a name of its own the passkey is called after its rank ("Passkey 3"). Answers the row
 * stored, or null when the account is full.
 */
export async function insertPasskeyWithinLimit(
  db: Db,
  dialect: Dialect,
  row: Omit<PasskeyRow, 'name'> & { name: string | undefined },
  max: number,
): Promise<PasskeyRow | null> {
  return db.transaction().execute(async (trx) => {
    const account = trx.selectFrom('users').select('id').where('id', '=', row.userId);
    await heldRow(account, dialect).execute();
    const count = await countPasskeys(trx, row.userId);
    if (count >= max) return null;
    const stored: PasskeyRow = { ...row, name: row.name ?? `Passkey ${count + 1}` };
    await trx.insertInto('passkeys').values(stored).execute();
    return stored;
  });
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

/**
 * Removes one of an account's passkeys unless it is the last way into an account without a
 * password. The account's row is held until the end (PostgreSQL: `FOR UPDATE`; SQLite writes one
 * transaction at a time), so removals in flight count what is left one after the other: two at
 * once never both see another passkey beside their own and leave the account with none.
 */
export async function deletePasskeyKeepingAWayIn(
  db: Db,
  dialect: Dialect,
  userId: string,
  id: string,
): Promise<'removed' | 'missing' | 'last'> {
  return db.transaction().execute(async (trx) => {
    const account = trx.selectFrom('users').select('passwordHash').where('id', '=', userId);
    const user = await heldRow(account, dialect).executeTakeFirst();
    if (!user) return 'missing';
    if (!user.passwordHash && (await countPasskeys(trx, userId)) <= 1) {
      const own = await trx.selectFrom('passkeys').select('id').where('id', '=', id).where('userId', '=', userId);
      return (await own.executeTakeFirst()) ? 'last' : 'missing';
    }
    const result = await trx
      .deleteFrom('passkeys')
      .where('id', '=', id)
      .where('userId', '=', userId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1 ? 'removed' : 'missing';
  });
}

/** Records a use: the new signature counter (never moving back) and when. */
export async function markPasskeyUsed(db: Db, id: string, counter: number, now: string): Promise<void> {
  await db.updateTable('passkeys').set({ counter, lastUsedAt: now }).where('id', '=', id).execute();
}
