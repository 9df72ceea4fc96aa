import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations work on the raw schema */
type Db = Kysely<any>;

/*
 * HL7 v2 (contract 9). Analytes keep the abnormal flag their result came with. An MLLP sender is known by its MSH-4 sending facility: each facility names
 * one institution only. Every message received and the ACK it got are kept for the audit trail;
 * the one row per institution and MSH-10 that stored the message is what a resend finds.
 */
export async function up(db: Db, _dialect: Dialect): Promise<void> {
  // OBX-8 (and FHIR's interpretation): H, L, HH, LL, A, N... beside the value, for the history.
  await db.schema.alterTable('analytes').addColumn('abnormal_flag', 'text').execute();

  await db.schema
    .createTable('hl7_sending_facilities')
    .addColumn('facility', 'text', (c) => c.primaryKey())
    .addColumn('institution_id', 'text', (c) => c.notNull().references('institutions.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('hl7_sending_facilities_institution')
    .on('hl7_sending_facilities')
    .column('institution_id')
    .execute();

  await db.schema
    .createTable('hl7_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('institution_id', 'text', (c) => c.references('institutions.id'))
    .addColumn('transport', 'text', (c) => c.notNull())
    .addColumn('remote_address', 'text')
    .addColumn('sending_facility', 'text')
    .addColumn('control_id', 'text')
    .addColumn('message_type', 'text')
    .addColumn('charset', 'text')
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('ack_code', 'text')
    .addColumn('ack', 'text')
    .addColumn('error', 'text')
    .addColumn('protocol_numbers', 'text')
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .execute();
  await db.schema
    .createIndex('hl7_messages_stored')
    .unique()
    .on('hl7_messages')
    .columns(['institution_id', 'control_id'])
    .where(sql.ref('outcome'), '=', 'STORED')
    .execute();
  await db.schema
    .createIndex('hl7_messages_institution_received')
    .on('hl7_messages')
    .columns(['institution_id', 'received_at'])
    .execute();
}
