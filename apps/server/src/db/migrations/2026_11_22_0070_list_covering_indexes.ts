import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations work on the raw schema */
type Db = Kysely<any>;

/** 1 when the exam has a report, + 2 when it has an image (what a list shows of its resources). */
const kindsOf = (
  examId: string,
) => `coalesce((select max(case when r.type in ('REPORT', 'REPORT_PHYSICIAN') then 1 else 0 end)
    + max(case when r.type = 'IMAGE' then 2 else 0 end) from resources r where r.exam_id = ${examId}), 0)`;
const analytesOf = (examId: string) =>
  `case when exists (select 1 from analytes a where a.exam_id = ${examId}) then 1 else 0 end`;

/*
 * A list shows a few facts of each exam of its page: which exams are enabled, their type and
 * rectification, whether a report or an image exists and whether it has history results. The
 * last two are kept on the exam row by triggers (whatever writes resources or analytes), and all
 * of them sit in one index, so a list reads them from index entries that lie together instead of
 * a wide exam row, its resource rows and its analytes.
 */
export async function up(db: Db, dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('exams')
    .addColumn('resource_kinds', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('exams')
    .addColumn('has_analytes', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql
    .raw(`update exams set resource_kinds = ${kindsOf('exams.id')}, has_analytes = ${analytesOf('exams.id')}`)
    .execute(db);

  if (dialect === 'sqlite') {
    for (const [name, event, ids] of [
      ['resources_kinds_insert', 'insert', ['new.exam_id']],
      ['resources_kinds_delete', 'delete', ['old.exam_id']],
      ['resources_kinds_update', 'update of type, exam_id', ['old.exam_id', 'new.exam_id']],
    ] as const) {
      const updates = ids.map((id) => `update exams set resource_kinds = ${kindsOf(id)} where id = ${id};`).join(' ');
      await sql.raw(`create trigger ${name} after ${event} on resources begin ${updates} end`).execute(db);
    }
    for (const [name, event, ids] of [
      ['analytes_flag_insert', 'insert', ['new.exam_id']],
      ['analytes_flag_delete', 'delete', ['old.exam_id']],
      ['analytes_flag_update', 'update of exam_id', ['old.exam_id', 'new.exam_id']],
    ] as const) {
      const updates = ids.map((id) => `update exams set has_analytes = ${analytesOf(id)} where id = ${id};`).join(' ');
      await sql.raw(`create trigger ${name} after ${event} on analytes begin ${updates} end`).execute(db);
    }
  } else {
    for (const [fn, table, column, of] of [
      ['exams_resource_kinds_refresh', 'resources', 'resource_kinds', kindsOf],
      ['exams_has_analytes_refresh', 'analytes', 'has_analytes', analytesOf],
    ] as const) {
      await sql
        .raw(
          `create function ${fn}() returns trigger language plpgsql as $$
          begin
            if tg_op <> 'DELETE' then update exams set ${column} = ${of('new.exam_id')} where id = new.exam_id; end if;
            if tg_op <> 'INSERT' then update exams set ${column} = ${of('old.exam_id')} where id = old.exam_id; end if;
            return null;
          end $$`,
        )
        .execute(db);
      await sql
        .raw(`create trigger ${fn} after insert or update or delete on ${table} for each row execute function ${fn}()`)
        .execute(db);
    }
  }

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
    ])
    .execute();
  await db.schema.dropIndex('exams_protocol').execute();
}
