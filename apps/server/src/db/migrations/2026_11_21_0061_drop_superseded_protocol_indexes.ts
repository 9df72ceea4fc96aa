import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations work on the raw schema */
type Db = Kysely<any>;

/*
 * The live-protocol indexes start with the same column, so they serve every lookup these did;
 * left in place, the planner would sometimes pick them and visit every protocol row to test
 * `disabled`.
 */
export async function up(db: Db, _dialect: Dialect): Promise<void> {
  await db.schema.dropIndex('protocols_patient_user').execute();
  await db.schema.dropIndex('protocols_tag').execute();
}
