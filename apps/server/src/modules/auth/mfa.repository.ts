import type { Db } from '../../db/database.js';

export type MfaPurpose = 'LOGIN' | 'ACTIVATE' | 'INACTIVATE';

export interface MfaCodeRow {
  id: string;
  phone: string;
  channel: string;
  codeHash: string;
}

export interface NewMfaCode {
  id: string;
  userId: string;
  purpose: MfaPurpose;
  phone: string;
  channel: string;
  codeHash: string;
  createdAt: string;
  expiresAt: string;
}

/** Ends every live code of the user for this purpose (a new one replaces them). */
export async function retireCodes(db: Db, userId: string, purpose: MfaPurpose, now: string): Promise<void> {
  await db
    .updateTable('mfaCodes')
    .set({ usedAt: now })
    .where('userId', '=', userId)
    .where('purpose', '=', purpose)
    .where('usedAt', 'is', null)
    .execute();
}

export async function insertCode(db: Db, code: NewMfaCode): Promise<void> {
  await db
    .insertInto('mfaCodes')
    .values({ ...code, tries: 0, usedAt: null })
    .execute();
}

/** The newest code of the user for this purpose that may still be tried. */
export async function findLiveCode(
  db: Db,
  userId: string,
  purpose: MfaPurpose,
  now: string,
  maxTries: number,
): Promise<MfaCodeRow | undefined> {
  return db
    .selectFrom('mfaCodes')
    .select(['id', 'phone', 'channel', 'codeHash'])
    .where('userId', '=', userId)
    .where('purpose', '=', purpose)
    .where('usedAt', 'is', null)
    .where('expiresAt', '>', now)
    .where('tries', '<', maxTries)
    .orderBy('createdAt', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Spends one try of a code; false when it had none left (or was used meanwhile). */
export async function spendTry(db: Db, id: string, maxTries: number): Promise<boolean> {
  const result = await db
    .updateTable('mfaCodes')
    .set((eb) => ({ tries: eb('tries', '+', 1) }))
    .where('id', '=', id)
    .where('tries', '<', maxTries)
    .where('usedAt', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Marks a code used; false when another request used it first. */
export async function useCode(db: Db, id: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('mfaCodes')
    .set({ usedAt: now })
    .where('id', '=', id)
    .where('usedAt', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function setMfa(
  db: Db,
  userId: string,
  mfa: { enabled: boolean; phone: string | null; channel: string | null },
  now: string,
): Promise<void> {
  await db
    .updateTable('users')
    .set({ mfaEnabled: mfa.enabled ? 1 : 0, mfaPhone: mfa.phone, mfaChannel: mfa.channel, updatedAt: now })
    .where('id', '=', userId)
    .execute();
}
