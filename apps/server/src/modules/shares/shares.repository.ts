import type { Insertable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { ShareTable } from '../../db/schema.js';

export interface ShareableProtocol {
  id: string;
  number: string;
  institutionId: string;
  institutionCode: string;
  institutionSettings: string;
  institutionName: string;
  patientName: string;
}

/** The live protocols among `protocolIds` that belong to the patient account. */
export function findOwnProtocols(db: Db, userId: string, protocolIds: string[]): Promise<ShareableProtocol[]> {
  return db
    .selectFrom('protocols')
    .innerJoin('institutions', 'institutions.id', 'protocols.institutionId')
    .select([
      'protocols.id',
      'protocols.number',
      'protocols.institutionId',
      'institutions.code as institutionCode',
      'institutions.settings as institutionSettings',
      'institutions.name as institutionName',
      'protocols.patientName',
    ])
    .where('protocols.id', 'in', protocolIds)
    .where('protocols.patientUserId', '=', userId)
    .where('protocols.disabled', '=', 0)
    .execute();
}

export async function countSharesSince(db: Db, userId: string, since: string): Promise<number> {
  const row = await db
    .selectFrom('shares')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('patientUserId', '=', userId)
    .where('createdAt', '>=', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertShare(db: Db, row: Insertable<ShareTable>, protocolIds: string[]): Promise<void> {
  await db.insertInto('shares').values(row).execute();
  await db
    .insertInto('shareProtocols')
    .values(protocolIds.map((protocolId) => ({ shareId: row.id, protocolId })))
    .execute();
}

export async function setShareTokenHash(db: Db, shareId: string, tokenHash: string): Promise<void> {
  await db.updateTable('shares').set({ tokenHash }).where('id', '=', shareId).execute();
}

export function findPatientShare(db: Db, userId: string, shareId: string) {
  return db
    .selectFrom('shares')
    .selectAll()
    .where('id', '=', shareId)
    .where('patientUserId', '=', userId)
    .executeTakeFirst();
}

export async function shareProtocolIds(db: Db, shareId: string) {
  const rows = await db
    .selectFrom('shareProtocols')
    .innerJoin('protocols', 'protocols.id', 'shareProtocols.protocolId')
    .innerJoin('institutions', 'institutions.id', 'protocols.institutionId')
    .select(['protocols.id', 'protocols.number', 'institutions.code as institutionCode'])
    .where('shareProtocols.shareId', '=', shareId)
    .execute();
  return rows;
}

/**
 * Ends a share and, in the same transaction, every session opened with its token. True when this
 * call ended it (of calls in flight, one: the condition is in the UPDATE).
 */
export async function cancelShare(db: Db, shareId: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('shares')
    .set({ active: 0, canceledAt: now })
    .where('id', '=', shareId)
    .where('active', '=', 1)
    .executeTakeFirst();
  await db
    .updateTable('sessions')
    .set({ revokedAt: now })
    .where('shareId', '=', shareId)
    .where('revokedAt', 'is', null)
    .execute();
  return Number(result.numUpdatedRows) === 1;
}

export async function listPatientShares(db: Db, userId: string, page: number, size: number) {
  const total = await db
    .selectFrom('shares')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('patientUserId', '=', userId)
    .executeTakeFirstOrThrow();
  const shares = await db
    .selectFrom('shares')
    .select(['id', 'email', 'daysExpiration', 'active', 'createdAt', 'expiresAt', 'canceledAt'])
    .where('patientUserId', '=', userId)
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .limit(size)
    .offset((page - 1) * size)
    .execute();
  const numbers =
    shares.length === 0
      ? []
      : await db
          .selectFrom('shareProtocols')
          .innerJoin('protocols', 'protocols.id', 'shareProtocols.protocolId')
          .select(['shareProtocols.shareId', 'protocols.number'])
          .where(
            'shareProtocols.shareId',
            'in',
            shares.map((s) => s.id),
          )
          .orderBy('protocols.number')
          .execute();
  return { total: Number(total.n), shares, numbers };
}
