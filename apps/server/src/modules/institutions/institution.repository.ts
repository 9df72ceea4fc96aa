import type { Insertable, Selectable, Updateable } from 'kysely';
import { type Db, type Dialect, heldRow } from '../../db/database.js';
import type { InstitutionTable, VisualizerSettingTable } from '../../db/schema.js';

export type InstitutionRow = Selectable<InstitutionTable>;
export type VisualizerSettingRow = Selectable<VisualizerSettingTable>;

/** True when a database error is a unique-constraint violation (SQLite or PostgreSQL). */
export function findInstitutionRowById(db: Db, id: string): Promise<InstitutionRow | undefined> {
  return db.selectFrom('institutions').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * The institution's row, held until the transaction ends (PostgreSQL: `FOR NO KEY UPDATE`, which
 * waits for another holder but lets rows pointing at the institution be written; SQLite writes one
 * transaction at a time): changes that replace what hangs from the institution take it in turn.
 */
export function holdInstitutionRow(db: Db, dialect: Dialect, id: string): Promise<InstitutionRow | undefined> {
  const row = db.selectFrom('institutions').selectAll().where('id', '=', id);
  return heldRow(row, dialect, 'no key update').executeTakeFirst();
}

export function findInstitutionRowByCode(db: Db, code: string): Promise<InstitutionRow | undefined> {
  return db.selectFrom('institutions').selectAll().where('code', '=', code).executeTakeFirst();
}

export function findInstitutionRowByApiKeyHash(db: Db, apiKeyHash: string): Promise<InstitutionRow | undefined> {
  return db.selectFrom('institutions').selectAll().where('apiKeyHash', '=', apiKeyHash).executeTakeFirst();
}

export function listInstitutionRows(db: Db): Promise<InstitutionRow[]> {
  return db.selectFrom('institutions').selectAll().orderBy('code').execute();
}

export async function insertInstitutionRow(db: Db, row: Insertable<InstitutionTable>): Promise<void> {
  await db.insertInto('institutions').values(row).execute();
}

export async function updateInstitutionRow(db: Db, id: string, changes: Updateable<InstitutionTable>): Promise<void> {
  await db.updateTable('institutions').set(changes).where('id', '=', id).execute();
}

export function listVisualizerSettingRows(db: Db, institutionId: string): Promise<VisualizerSettingRow[]> {
  return db
    .selectFrom('visualizerSettings')
    .selectAll()
    .where('institutionId', '=', institutionId)
    .orderBy('examTypeCode')
    .execute();
}

/** Replaces the institution's whole visualizer list (call inside the service's transaction). */
export async function replaceVisualizerSettingRows(
  db: Db,
  institutionId: string,
  rows: Insertable<VisualizerSettingTable>[],
): Promise<void> {
  await db.deleteFrom('visualizerSettings').where('institutionId', '=', institutionId).execute();
  if (rows.length > 0) await db.insertInto('visualizerSettings').values(rows).execute();
}

/** The institution's MSH-4 sending facilities, in the order they were given. */
export async function listHl7FacilityRows(db: Db, institutionId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('hl7SendingFacilities')
    .select('facility')
    .where('institutionId', '=', institutionId)
    .orderBy('position')
    .execute();
  return rows.map((r) => r.facility);
}

/** Facilities of that list already named by another institution. */
export async function findHl7FacilitiesOfOthers(
  db: Db,
  institutionId: string,
  facilities: string[],
): Promise<string[]> {
  if (facilities.length === 0) return [];
  const rows = await db
    .selectFrom('hl7SendingFacilities')
    .select('facility')
    .where('facility', 'in', facilities)
    .where('institutionId', '!=', institutionId)
    .execute();
  return rows.map((r) => r.facility);
}

/** Replaces the institution's whole facility list (call inside the service's transaction). */
export async function replaceHl7FacilityRows(db: Db, institutionId: string, facilities: string[]): Promise<void> {
  await db.deleteFrom('hl7SendingFacilities').where('institutionId', '=', institutionId).execute();
  if (facilities.length > 0) {
    await db
      .insertInto('hl7SendingFacilities')
      .values(facilities.map((facility, position) => ({ facility, institutionId, position })))
      .execute();
  }
}

/** The institution an MSH-4 sending facility names, if any. */
export async function findInstitutionRowByHl7Facility(db: Db, facility: string): Promise<InstitutionRow | undefined> {
  return db
    .selectFrom('hl7SendingFacilities as f')
    .innerJoin('institutions as i', 'i.id', 'f.institutionId')
    .selectAll('i')
    .where('f.facility', '=', facility)
    .executeTakeFirst();
}
