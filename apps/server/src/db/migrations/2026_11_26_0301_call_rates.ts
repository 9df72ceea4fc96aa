import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations work on the raw schema */
type Db = Kysely<any>;

/*
 * Calls per subject and fixed window (a minute), counted in the database so every server process
 * shares them: client trace calls per session ('trace:<session id>').
 */
export async function up(db: Db): Promise<void> {
  await db.schema
    .createTable('call_rates')
    .addColumn('subject', 'text', (c) => c.primaryKey())
    .addColumn('window_start', 'text', (c) => c.notNull())
    .addColumn('calls', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('call_rates_window').on('call_rates').columns(['window_start']).execute();
}
