import type { AppContext } from '../../context.js';
import type { Db } from '../../db/database.js';
import { notifyExamsChanged } from '../delivery/notifications.service.js';

/**
 * Called inside the ingest transaction with the exams an ingest call created or changed (fields,
 * enabled state, or a resource). Result-ready notices are queued here, so they commit or roll
 * back together with the ingest.
 */
export async function onExamsChanged(ctx: AppContext, trx: Db, examIds: readonly string[]): Promise<void> {
  await notifyExamsChanged(ctx, trx, examIds);
}
