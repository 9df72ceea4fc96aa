import type { Db } from '../../db/database.js';

export interface VouchRow {
  userId: string;
  institutionId: string;
  createdBy: string | null;
  createdAt: string;
}

/** Records that an institution vouches for a physician; false when it already did. */
export async function insertVouch(db: Db, row: VouchRow): Promise<boolean> {
  const result = await db
    .insertInto('physicianVouches')
    .values(row)
    .onConflict((oc) => oc.columns(['userId', 'institutionId']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Withdraws an institution's vouch; false when there was none. */
export async function deleteVouch(db: Db, userId: string, institutionId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('physicianVouches')
    .where('userId', '=', userId)
    .where('institutionId', '=', institutionId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The physicians an institution vouches for, with when it did. */
function vouchedBy(db: Db, institutionId: string) {
  return db
    .selectFrom('physicianVouches as v')
    .innerJoin('users as u', 'u.id', 'v.userId')
    .select(['u.id', 'u.name', 'u.email', 'u.licenseNumber', 'u.licenseState', 'u.active', 'v.createdAt'])
    .where('v.institutionId', '=', institutionId);
}

/** The physicians an institution vouches for, by name. */
export function listVouchedPhysicians(db: Db, institutionId: string) {
  return vouchedBy(db, institutionId).orderBy('u.name').orderBy('u.id').execute();
}

/** One physician an institution vouches for, or undefined. */
export function findVouchedPhysician(db: Db, institutionId: string, userId: string) {
  return vouchedBy(db, institutionId).where('v.userId', '=', userId).executeTakeFirst();
}

/** A physician account by id or e-mail, or undefined (other account types are not physicians). */
export function findPhysician(db: Db, by: { userId?: string | null; email?: string | null }) {
  let query = db.selectFrom('users').select('id').where('type', '=', 'PHYSICIAN');
  query = by.userId ? query.where('id', '=', by.userId) : query.where('email', '=', by.email ?? '');
  return query.executeTakeFirst();
}
