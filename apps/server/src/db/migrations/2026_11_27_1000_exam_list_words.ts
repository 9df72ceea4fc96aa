import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations work on the raw schema */
type Db = Kysely<any>;

/*
 * A list row names its exams and says in words where each stands (ready, partial, awaiting
 * rectification, pending): the exams' description and status join the facts a list reads from
 * the index entries of exams_protocol_list, so the page still reads no exam row.
 */
export async function up(db: Db): Promise<void> {
  await db.schema.dropIndex('exams_protocol_list').execute();
  await db.schema
    .createIndex('exams_protocol_list')
    .on('exams')
    .columns([
      'protocol_id',
      'position',
      'is_enabled',
      'id',
      'type',
      'rectification_status',
      'resource_kinds',
      'has_analytes',
      'status',
      'description',
    ])
    .execute();
}
