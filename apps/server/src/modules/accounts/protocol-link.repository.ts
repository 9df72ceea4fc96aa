import type { Db } from '../../db/database.js';

export interface ProtocolForLink {
  id: string;
  number: string;
  passwordHash: string;
  disabled: number;
  patientUserId: string | null;
  patientName: string;
  institutionId: string;
  institutionCode: string;
}

export function findProtocolsByNumber(db: Db, number: string, institutionCode?: string | null) {
  let q = db
    .selectFrom('protocols')
    .innerJoin('institutions', 'institutions.id', 'protocols.institutionId')
    .select([
      'protocols.id',
      'protocols.number',
      'protocols.passwordHash',
      'protocols.disabled',
      'protocols.patientUserId',
      'protocols.patientName',
      'protocols.institutionId',
      'institutions.code as institutionCode',
    ])
    .where('protocols.number', '=', number);
  if (institutionCode) q = q.where('institutions.code', '=', institutionCode);
  return q.execute() as Promise<ProtocolForLink[]>;
}

/** Links free protocols to a patient; a protocol linked meanwhile by someone else stays as it is. */
export async function linkProtocols(db: Db, protocolIds: string[], userId: string, updatedAt: string) {
  if (protocolIds.length === 0) return 0;
  const result = await db
    .updateTable('protocols')
    .set({ patientUserId: userId, updatedAt })
    .where('id', 'in', protocolIds)
    .where('patientUserId', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
