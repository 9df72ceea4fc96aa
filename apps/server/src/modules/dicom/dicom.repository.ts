import { type Selectable, sql } from 'kysely';
import { type Db, type Dialect, heldRow } from '../../db/database.js';
import type { DicomInstanceTable, DicomSeriesTable, DicomStudyTable } from '../../db/schema.js';
import { studyOrderSql } from '../delivery/delivery.repository.js';

export type StudyRow = Selectable<DicomStudyTable>;
export type SeriesRow = Selectable<DicomSeriesTable>;
export type InstanceRow = Selectable<DicomInstanceTable>;

export async function findStudy(db: Db, institutionId: string, studyUid: string): Promise<StudyRow | undefined> {
  return db
    .selectFrom('dicomStudies')
    .selectAll()
    .where('institutionId', '=', institutionId)
    .where('studyUid', '=', studyUid)
    .executeTakeFirst();
}

/** Every institution's study of that UID (UIDs are meant to be unique; a clash must not open another's). */
export async function studiesByUid(db: Db, studyUid: string): Promise<StudyRow[]> {
  return db.selectFrom('dicomStudies').selectAll().where('studyUid', '=', studyUid).execute();
}

export async function studiesOfExamKeys(
  db: Db,
  institutionId: string,
  examKeys: readonly string[],
): Promise<StudyRow[]> {
  if (examKeys.length === 0) return [];
  return db
    .selectFrom('dicomStudies')
    .selectAll()
    .where('institutionId', '=', institutionId)
    .where('accessionNumber', 'in', examKeys)
    .orderBy(sql.raw(studyOrderSql('dicom_studies')))
    .execute();
}

/** The exams an accession number joins: same institution, examKey equal to it. */
export async function examsOfAccession(
  db: Db,
  institutionId: string,
  accessionNumber: string,
): Promise<Array<{ id: string; protocolId: string }>> {
  return db
    .selectFrom('exams')
    .innerJoin('protocols', 'protocols.id', 'exams.protocolId')
    .select(['exams.id', 'exams.protocolId'])
    .where('protocols.institutionId', '=', institutionId)
    .where('exams.examKey', '=', accessionNumber)
    .execute();
}

export async function insertStudy(db: Db, row: StudyRow): Promise<void> {
  await db.insertInto('dicomStudies').values(row).execute();
}

export async function updateStudy(db: Db, id: string, changes: Partial<StudyRow>): Promise<void> {
  await db.updateTable('dicomStudies').set(changes).where('id', '=', id).execute();
}

export async function findSeries(db: Db, studyId: string, seriesUid: string): Promise<SeriesRow | undefined> {
  return db
    .selectFrom('dicomSeries')
    .selectAll()
    .where('studyId', '=', studyId)
    .where('seriesUid', '=', seriesUid)
    .executeTakeFirst();
}

export async function insertSeries(db: Db, row: SeriesRow): Promise<void> {
  await db.insertInto('dicomSeries').values(row).execute();
}

export async function findInstance(db: Db, seriesId: string, sopUid: string): Promise<InstanceRow | undefined> {
  return db
    .selectFrom('dicomInstances')
    .selectAll()
    .where('seriesId', '=', seriesId)
    .where('sopUid', '=', sopUid)
    .executeTakeFirst();
}

export async function insertInstance(db: Db, row: InstanceRow): Promise<void> {
  await db.insertInto('dicomInstances').values(row).execute();
}

export async function updateInstance(db: Db, id: string, changes: Partial<InstanceRow>): Promise<void> {
  await db.updateTable('dicomInstances').set(changes).where('id', '=', id).execute();
}

/**
 * Holds the study's row until the transaction ends, so that two writers of the same study check
 * its size limit one after the other (on SQLite the process writes one transaction at a time).
 */
export async function lockStudy(db: Db, dialect: Dialect, studyId: string): Promise<void> {
  await heldRow(db.selectFrom('dicomStudies').select('id').where('id', '=', studyId), dialect).execute();
}

/** Bytes stored for a study, for its size limit. */
export async function studySize(db: Db, studyId: string): Promise<number> {
  const row = await db
    .selectFrom('dicomInstances')
    .select((eb) => eb.fn.sum<number | string | null>('size').as('total'))
    .where('studyId', '=', studyId)
    .executeTakeFirst();
  return Number(row?.total ?? 0);
}

export interface SeriesSummary extends SeriesRow {
  instanceCount: number;
}

export async function seriesOfStudy(db: Db, studyId: string): Promise<SeriesSummary[]> {
  const rows = await db
    .selectFrom('dicomSeries')
    .leftJoin('dicomInstances', 'dicomInstances.seriesId', 'dicomSeries.id')
    .select([
      'dicomSeries.id',
      'dicomSeries.studyId',
      'dicomSeries.seriesUid',
      'dicomSeries.modality',
      'dicomSeries.seriesNumber',
      'dicomSeries.seriesDescription',
      'dicomSeries.createdAt',
    ])
    .select((eb) => eb.fn.count<number | string>('dicomInstances.id').as('instanceCount'))
    .where('dicomSeries.studyId', '=', studyId)
    .groupBy([
      'dicomSeries.id',
      'dicomSeries.studyId',
      'dicomSeries.seriesUid',
      'dicomSeries.modality',
      'dicomSeries.seriesNumber',
      'dicomSeries.seriesDescription',
      'dicomSeries.createdAt',
    ])
    .orderBy('dicomSeries.seriesNumber')
    .orderBy('dicomSeries.createdAt')
    .execute();
  return rows.map((r) => ({ ...r, instanceCount: Number(r.instanceCount) }));
}

/** Instances of a study (or one series), in viewing order; metadata left out unless asked for. */
export async function instancesOf(
  db: Db,
  where: { studyId: string; seriesId?: string; sopUid?: string },
): Promise<InstanceRow[]> {
  let query = db.selectFrom('dicomInstances').selectAll().where('studyId', '=', where.studyId);
  if (where.seriesId) query = query.where('seriesId', '=', where.seriesId);
  if (where.sopUid) query = query.where('sopUid', '=', where.sopUid);
  return query.orderBy('seriesId').orderBy('instanceNumber').orderBy('sopUid').execute();
}

/** Records that a session opened a study; true only the first time (what the audit trail counts). */
export async function recordStudyOpen(db: Db, sessionId: string, studyId: string, at: string): Promise<boolean> {
  const result = await db
    .insertInto('dicomStudyOpens')
    .values({ sessionId, studyId, openedAt: at })
    .onConflict((oc) => oc.columns(['sessionId', 'studyId']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}
