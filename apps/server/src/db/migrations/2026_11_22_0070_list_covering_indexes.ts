import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations work on the raw schema */
type Db = Kysely<any>;

/*
 * A list shows a few facts of each exam of its page: which exams are enabled, their type and
 * rectification, and whether a report or an image exists. With those columns inside the indexes
 * a list reads them from index entries that sit together, instead of one wide exam row and one
 * wide resource row per exam. The narrower indexes they extend are dropped.
 */
export async function up(db: Db, _dialect: Dialect): Promise<void> {
  await db.schema
    .createIndex('exams_protocol_list')
    .on('exams')
    .columns(['protocol_id', 'position', 'is_enabled', 'id', 'type', 'rectification_status'])
    .execute();
  await db.schema.dropIndex('exams_protocol').execute();
  await db.schema.createIndex('resources_exam_type').on('resources').columns(['exam_id', 'type']).execute();
  await db.schema.dropIndex('resources_exam').execute();
}
