import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations work on the raw schema */
type Db = Kysely<any>;

/*
 * The administration console reads the audit trail newest first, whole or by event (sign-in
 * failures of the last day on the dashboard), and exports it by keyset paging on (time, id).
 */
export async function up(db: Db): Promise<void> {
  await db.schema.createIndex('audit_events_time').on('audit_events').columns(['occurred_at', 'id']).execute();
  await db.schema.createIndex('audit_events_event_time').on('audit_events').columns(['event', 'occurred_at']).execute();
}
