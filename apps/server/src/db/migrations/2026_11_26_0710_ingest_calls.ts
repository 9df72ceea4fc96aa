import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations work on the raw schema */
type Db = Kysely<any>;

/*
 * The calls an institution's systems make to the ingest doors (JSON, FHIR), with the answer they
 * got, so the administration console shows the last calls and their errors per institution. HL7 v2
 * messages are already kept whole in `hl7_messages`.
 */
export async function up(db: Db): Promise<void> {
  await db.schema
    .createTable('ingest_calls')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('institution_id', 'text', (c) => c.notNull())
    .addColumn('door', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('ingest_calls_institution_time')
    .on('ingest_calls')
    .columns(['institution_id', 'received_at'])
    .execute();
  await db.schema.createIndex('ingest_calls_time').on('ingest_calls').columns(['received_at']).execute();
}
