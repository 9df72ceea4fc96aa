import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations work on the raw schema */
type Db = Kysely<any>;

/*
 * Release holds for sensitive results: an institution holds the results of some exam types back
 * from the patient's side (for N hours after release, until the requesting physician releases
 * them, or for ever: delivered in person). A rule is reference data read with the institution, so
 * its changes move the `institutions` revision like visualizer settings do; a physician's release
 * is kept on the exam, so it moves the list revisions of the exam's scopes (list_revisions
 * triggers on exams).
 */
export async function up(db: Db, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('exam_hold_rules')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('institution_id', 'text', (c) => c.notNull().references('institutions.id'))
    .addColumn('exam_type_code', 'text', (c) => c.notNull())
    .addColumn('rule', 'text', (c) => c.notNull())
    .addColumn('hours', 'integer')
    .addColumn('message', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('exam_hold_rules_type', ['institution_id', 'exam_type_code'])
    .execute();
  await db.schema.alterTable('exams').addColumn('hold_released_at', 'text').execute();
  await db.schema.alterTable('exams').addColumn('hold_released_by', 'text').execute();
  const bump = `update revisions set revision = revision + 1 where name = 'institutions'`;
  if (dialect === 'sqlite') {
    for (const event of ['insert', 'update', 'delete']) {
      await sql
        .raw(`create trigger exam_hold_rules_revision_${event} after ${event} on exam_hold_rules begin ${bump}; end`)
        .execute(db);
    }
  } else {
    await sql
      .raw(
        `create trigger exam_hold_rules_revision after insert or update or delete on exam_hold_rules
          for each statement execute function institutions_revision_bump()`,
      )
      .execute(db);
  }
}
