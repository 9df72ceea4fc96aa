import type { AppContext } from '../../context.js';
import type { Db } from '../../db/database.js';

/**
 * Called inside the ingest transaction with the exams an ingest call created or changed (fields,
 * enabled state, or a resource). Result notifications hang here: whatever they write commits or
 * rolls back together with the ingest. Nothing to do yet.
 */
export async function onExamsChanged(_ctx: AppContext, _trx: Db, _examIds: readonly string[]): Promise<void> {}
