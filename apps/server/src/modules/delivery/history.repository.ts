import type { Db } from '../../db/database.js';

export interface HistoryPoint {
  examId: string;
  institutionId: string;
  type: string;
  description: string;
  /** performedAt, or the protocol date when the exam has none. */
  at: string;
  code: string;
  name: string;
  unit: string | null;
  value: string;
  valueNumber: number | null;
  referenceMin: number | null;
  referenceMax: number | null;
  referenceText: string | null;
  abnormalFlag: string | null;
  /** The patient as the institution sent him on this protocol. */
  patientName: string;
  patientBirthDate: string;
  /** What deciding on a release hold needs (`examHold`). */
  deliveredAt: string | null;
  createdAt: string;
  holdReleasedAt: string | null;
  requesterCrm: string | null;
  requesterUf: string | null;
}

/**
 * The analytes of a patient's linked protocols in a period (contract 5: exam type = the exam's
 * type and description, attribute = the analyte), walking the protocols_patient_live index.
 */
export async function historyPoints(
  db: Db,
  patientUserId: string,
  range: { from: string; to: string },
  only?: { institutionId: string; type: string; description: string; code?: string },
): Promise<HistoryPoint[]> {
  let q = db
    .selectFrom('protocols as p')
    .innerJoin('exams as e', 'e.protocolId', 'p.id')
    .innerJoin('analytes as a', 'a.examId', 'e.id')
    .select([
      'e.id as examId',
      'p.institutionId',
      'e.type',
      'e.description',
      'e.performedAt',
      'p.sortAt',
      'a.code',
      'a.name',
      'a.unit',
      'a.value',
      'a.valueNumber',
      'a.referenceMin',
      'a.referenceMax',
      'a.referenceText',
      'a.abnormalFlag',
      'p.patientName',
      'p.patientBirthDate',
      'e.deliveredAt',
      'e.createdAt',
      'e.holdReleasedAt',
      'e.requesterCrm',
      'e.requesterUf',
    ])
    .where('p.patientUserId', '=', patientUserId)
    .where('p.disabled', '=', 0)
    .where('e.isEnabled', '=', 1)
    .where((eb) =>
      eb.or([
        eb.and([eb('e.performedAt', '>=', range.from), eb('e.performedAt', '<', range.to)]),
        eb.and([eb('e.performedAt', 'is', null), eb('p.sortAt', '>=', range.from), eb('p.sortAt', '<', range.to)]),
      ]),
    );
  if (only) {
    q = q
      .where('p.institutionId', '=', only.institutionId)
      .where('e.type', '=', only.type)
      .where('e.description', '=', only.description);
    if (only.code !== undefined) q = q.where('a.code', '=', only.code);
  }
  const rows = await q.orderBy('a.position').execute();
  return rows.map(({ performedAt, sortAt, ...r }) => ({ ...r, at: performedAt ?? sortAt }));
}
