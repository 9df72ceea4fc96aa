import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations work on the raw schema */
type Db = Kysely<any>;

/*
 * Lists only show protocols that are not disabled: with `disabled` inside the index, a list's
 * count and page read index entries alone instead of visiting every protocol row of the range.
 */
export async function up(db: Db, _dialect: Dialect): Promise<void> {
  await db.schema
    .createIndex('protocols_patient_live')
    .on('protocols')
    .columns(['patient_user_id', 'disabled', 'sort_at', 'id'])
    .execute();
  await db.schema
    .createIndex('protocols_tag_live')
    .on('protocols')
    .columns(['tag_id', 'disabled', 'sort_at', 'id'])
    .execute();
}
