import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import type {
  AnalyteTable,
  ExamTable,
  OneTimeTokenTable,
  PatientAutoInvitationTable,
  ProtocolRequesterTable,
  ProtocolTable,
  ResourceTable,
} from '../../db/schema.js';
import { newId } from '../../lib/ids.js';

export type ProtocolRow = Selectable<ProtocolTable>;
export type ExamRow = Selectable<ExamTable>;
export type AnalyteRow = Selectable<AnalyteTable>;
export type ResourceRow = Selectable<ResourceTable>;
export type RequesterRow = Pick<Selectable<ProtocolRequesterTable>, 'protocolId' | 'crm' | 'uf' | 'sortAt'>;

export function findProtocolRow(db: Db, institutionId: string, number: string): Promise<ProtocolRow | undefined> {
  return db
    .selectFrom('protocols')
    .selectAll()
    .where('institutionId', '=', institutionId)
    .where('number', '=', number)
    .executeTakeFirst();
}

export async function insertProtocolRow(db: Db, row: Insertable<ProtocolTable>): Promise<void> {
  await db.insertInto('protocols').values(row).execute();
}

export async function updateProtocolRow(db: Db, id: string, changes: Updateable<ProtocolTable>): Promise<void> {
  await db.updateTable('protocols').set(changes).where('id', '=', id).execute();
}

/** The tag of that text in the institution, created when new (safe against a concurrent creation). */
export async function findOrCreateTagId(db: Db, institutionId: string, tag: string, now: string): Promise<string> {
  await db
    .insertInto('tags')
    .values({ id: newId(), institutionId, tag, createdAt: now })
    .onConflict((oc) => oc.columns(['institutionId', 'tag']).doNothing())
    .execute();
  const row = await db
    .selectFrom('tags')
    .select('id')
    .where('institutionId', '=', institutionId)
    .where('tag', '=', tag)
    .executeTakeFirstOrThrow();
  return row.id;
}

export function listExamRows(db: Db, protocolId: string): Promise<ExamRow[]> {
  return db.selectFrom('exams').selectAll().where('protocolId', '=', protocolId).execute();
}

export function findExamRow(db: Db, protocolId: string, examKey: string): Promise<ExamRow | undefined> {
  return db
    .selectFrom('exams')
    .selectAll()
    .where('protocolId', '=', protocolId)
    .where('examKey', '=', examKey)
    .executeTakeFirst();
}

export async function insertExamRow(db: Db, row: Insertable<ExamTable>): Promise<void> {
  await db.insertInto('exams').values(row).execute();
}

export async function updateExamRow(db: Db, id: string, changes: Updateable<ExamTable>): Promise<void> {
  await db.updateTable('exams').set(changes).where('id', '=', id).execute();
}

export async function listAnalyteRows(db: Db, examIds: string[]): Promise<AnalyteRow[]> {
  const rows: AnalyteRow[] = [];
  for (let i = 0; i < examIds.length; i += 500) {
    rows.push(
      ...(await db
        .selectFrom('analytes')
        .selectAll()
        .where('examId', 'in', examIds.slice(i, i + 500))
        .execute()),
    );
  }
  return rows;
}

export async function insertAnalyteRows(db: Db, rows: Insertable<AnalyteTable>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) {
    await db
      .insertInto('analytes')
      .values(rows.slice(i, i + 200))
      .execute();
  }
}

export async function updateAnalyteRow(db: Db, id: string, changes: Updateable<AnalyteTable>): Promise<void> {
  await db.updateTable('analytes').set(changes).where('id', '=', id).execute();
}

export async function deleteAnalyteRows(db: Db, ids: string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    await db
      .deleteFrom('analytes')
      .where('id', 'in', ids.slice(i, i + 500))
      .execute();
  }
}

export function listRequesterRows(db: Db, protocolId: string): Promise<RequesterRow[]> {
  return db
    .selectFrom('protocolRequesters')
    .select(['protocolId', 'crm', 'uf', 'sortAt'])
    .where('protocolId', '=', protocolId)
    .execute();
}

export async function insertRequesterRows(db: Db, rows: Insertable<ProtocolRequesterTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('protocolRequesters').values(rows).execute();
}

export async function deleteRequesterRow(db: Db, protocolId: string, crm: string, uf: string): Promise<void> {
  await db
    .deleteFrom('protocolRequesters')
    .where('protocolId', '=', protocolId)
    .where('crm', '=', crm)
    .where('uf', '=', uf)
    .execute();
}

export function findResourceRow(db: Db, examId: string, identifier: string): Promise<ResourceRow | undefined> {
  return db
    .selectFrom('resources')
    .selectAll()
    .where('examId', '=', examId)
    .where('identifier', '=', identifier)
    .executeTakeFirst();
}

export async function insertResourceRow(db: Db, row: Insertable<ResourceTable>): Promise<void> {
  await db.insertInto('resources').values(row).execute();
}

export async function updateResourceRow(db: Db, id: string, changes: Updateable<ResourceTable>): Promise<void> {
  await db.updateTable('resources').set(changes).where('id', '=', id).execute();
}

export async function insertOneTimeTokenRow(db: Db, row: Insertable<OneTimeTokenTable>): Promise<void> {
  await db.insertInto('oneTimeTokens').values(row).execute();
}

/** Live patient invitations sent to that address by that institution since `since`. */
export function listRecentPatientInvitations(
  db: Db,
  institutionId: string,
  email: string,
  since: string,
): Promise<Array<{ payload: string }>> {
  return db
    .selectFrom('oneTimeTokens')
    .select('payload')
    .where('kind', '=', 'INVITE_PATIENT')
    .where('institutionId', '=', institutionId)
    .where('email', '=', email)
    .where('usedAt', 'is', null)
    .where('createdAt', '>=', since)
    .execute();
}

/** Whether an account already has that e-mail or CPF (a patient who needs no invitation). */
export async function hasAccount(db: Db, email: string, cpf: string | null): Promise<boolean> {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where((eb) => (cpf ? eb.or([eb('email', '=', email), eb('cpf', '=', cpf)]) : eb('email', '=', email)))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Takes the institution's one automatic invitation of a patient: true for the caller that took
 * it, false when it was taken before (or by a concurrent transaction that committed).
 */
export async function claimAutoInvitation(db: Db, row: Insertable<PatientAutoInvitationTable>): Promise<boolean> {
  const taken = await db
    .insertInto('patientAutoInvitations')
    .values(row)
    .onConflict((oc) => oc.columns(['institutionId', 'patientExternalId']).doNothing())
    .returning('tokenId')
    .executeTakeFirst();
  return taken !== undefined;
}
