import type { Db } from '../../db/database.js';
import type { AnalyteRow } from '../ingest/ingest.repository.js';

/** One analyte (a history value) by its id. */
export function analyteById(db: Db, id: string): Promise<AnalyteRow | undefined> {
  return db.selectFrom('analytes').selectAll().where('id', '=', id).executeTakeFirst();
}
