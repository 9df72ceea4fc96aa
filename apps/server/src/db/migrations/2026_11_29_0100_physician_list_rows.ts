import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';
import { createDayCountTriggers, dropDayCountTriggers } from './2026_11_23_0090_protocol_day_counts.js';
import { vouchedLicense } from './2026_11_26_0300_physician_vouches.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations work on the raw schema */
type Db = Kysely<any>;

/** Separators of the exams' text, as the list's reads use them (delivery.repository.ts). */
const EXAMS = '\u001f';
const FIELDS = '\u001e';

/**
 * What a physician's list shows of protocol `p`, as a JSON array: its list columns (the
 * repository's ITEM_PROTOCOL_COLUMNS, in that order), then its enabled exams as one text, per exam
 * id, type, rectification, flags (1 report, 2 image, 4 history results) and status, then the
 * description, the exams in their order; last, the enabled exams' ids. Read marks are the viewer's
 * own and are not kept here.
 */
function listingOf(dialect: Dialect, p: string): string {
  const f = `'${FIELDS}'`;
  const exam = `e.id || ${f} || e.type || ${f} || coalesce(e.rectification_status, '') || ${f} || cast(e.resource_kinds + 4 * e.has_analytes as text) || ${f} || coalesce(e.status, '') || ${f} || e.description`;
  const joined =
    dialect === 'sqlite'
      ? `group_concat(${exam}, '${EXAMS}' order by e.position, e.id)`
      : `string_agg(${exam}, '${EXAMS}' order by e.position, e.id)`;
  const columns = [
    'id',
    'institution_id',
    'number',
    'requested_at',
    'tag_id',
    'patient_external_id',
    'patient_name',
    'patient_birth_date',
    'patient_gender',
    'patient_email',
    'patient_phone',
    'patient_user_id',
  ].map((c) => `${p}.${c}`);
  const enabled = `from exams e where e.protocol_id = ${p}.id and e.is_enabled = 1`;
  const exams = `(select ${joined} ${enabled})`;
  // The exams' ids again, as an array the page's statement finds the viewer's read marks by.
  return dialect === 'sqlite'
    ? `json_array(${columns.join(', ')}, ${exams}, json((select json_group_array(e.id) ${enabled})))`
    : `json_build_array(${columns.join(', ')}, ${exams}, (select coalesce(json_agg(e.id), '[]'::json) ${enabled}))::text`;
}

/** Sets the copied columns of the requester rows `where` picks (over protocol_requesters itself). */
function refresh(dialect: Dialect, where: string): string {
  return `update protocol_requesters set (institution_id, disabled, listing) =
    (select p.institution_id, p.disabled, ${listingOf(dialect, 'p')} from protocols p
      where p.id = protocol_requesters.protocol_id)
    where ${where};`;
}

/** The protocol columns a physician's list row copies or shows. */
const PROTOCOL_LISTED =
  'institution_id, number, requested_at, tag_id, patient_external_id, patient_name, patient_birth_date, ' +
  'patient_gender, patient_email, patient_phone, patient_user_id, disabled';
/** The exam columns a list row shows (those of the exams_protocol_list index). */
const EXAM_LISTED =
  'protocol_id, position, is_enabled, type, rectification_status, resource_kinds, has_analytes, status, description';

/*
 * A physician's list reads one index range: each requester row carries its protocol's institution,
 * whether it is disabled, and the row the list shows (`listing`), kept by triggers whatever writes
 * protocols, exams, or (through the exam's flags) resources and history results. The page then
 * reads no protocol or exam row: at a million protocols those were two or three random pages each.
 */
export async function up(db: Db, dialect: Dialect): Promise<void> {
  for (const [column, type] of [
    ['institution_id', 'text'],
    ['listing', 'text'],
  ] as const) {
    await db.schema.alterTable('protocol_requesters').addColumn(column, type).execute();
  }
  await db.schema
    .alterTable('protocol_requesters')
    .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  // Writing the new columns touches none of what the day counts and list revisions follow: their
  // requester triggers now fire on the columns they read only (the backfill below moves nothing).
  // On PostgreSQL the list revisions' requester trigger ran once a statement over transition
  // tables, which a column list cannot have: it becomes a row trigger on those columns (they change
  // rarely), so the copies' writes no longer lock revision rows in an order of their own (30
  // concurrent ingests of one protocol deadlocked on them).
  await dropDayCountTriggers(db, dialect);
  await createDayCountTriggers(db, dialect, vouchedLicense);
  const bumpLicenses = `insert into list_revisions (scope, revision)
      select distinct s.scope, 1 from (select 'license:' || old.crm || '/' || old.uf as scope
        union all select 'license:' || new.crm || '/' || new.uf) s where s.scope is not null
      on conflict (scope) do update set revision = list_revisions.revision + 1;`;
  const requesterColumns = 'protocol_id, crm, uf, sort_at';
  if (dialect === 'sqlite') {
    await sql`drop trigger protocol_requesters_list_revision_update`.execute(db);
    await sql
      .raw(
        `create trigger protocol_requesters_list_revision_update after update of ${requesterColumns}
          on protocol_requesters begin ${bumpLicenses} end`,
      )
      .execute(db);
  } else {
    await sql`drop trigger protocol_requesters_list_revision_update on protocol_requesters`.execute(db);
    await sql
      .raw(
        `create or replace function protocol_requesters_list_revision_update() returns trigger language plpgsql as $$
        begin ${bumpLicenses} return null; end $$`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger protocol_requesters_list_revision_update after update of ${requesterColumns}
          on protocol_requesters for each row execute function protocol_requesters_list_revision_update()`,
      )
      .execute(db);
  }

  await sql.raw(refresh(dialect, 'true')).execute(db);
  await db.schema.dropIndex('protocol_requesters_license').execute();
  if (dialect === 'sqlite') {
    await db.schema
      .createIndex('protocol_requesters_listing')
      .on('protocol_requesters')
      .columns(['crm', 'uf', 'sort_at', 'protocol_id', 'institution_id', 'disabled', 'listing'])
      .execute();
  } else {
    // PostgreSQL caps an index entry near 2.7 kB, which a protocol of many exams passes: its list
    // row stays in the table, one page read per row.
    await sql`create index protocol_requesters_listing on protocol_requesters (crm, uf, sort_at, protocol_id)
      include (institution_id, disabled)`.execute(db);
  }

  const onRequester = refresh(dialect, 'protocol_id = new.protocol_id and crm = new.crm and uf = new.uf');
  const onProtocol = refresh(dialect, 'protocol_id = new.id');
  const onExam = (row: string, when = 'true') => refresh(dialect, `protocol_id = ${row}.protocol_id and ${when}`);
  if (dialect === 'sqlite') {
    for (const [name, event, table, body] of [
      ['protocol_requesters_listing_insert', 'insert', 'protocol_requesters', onRequester],
      ['protocols_listing_update', `update of ${PROTOCOL_LISTED}`, 'protocols', onProtocol],
      ['exams_listing_insert', 'insert', 'exams', onExam('new')],
      [
        'exams_listing_update',
        `update of ${EXAM_LISTED}`,
        'exams',
        `${onExam('old')} ${onExam('new', 'new.protocol_id <> old.protocol_id')}`,
      ],
      ['exams_listing_delete', 'delete', 'exams', onExam('old')],
    ] as const) {
      await sql.raw(`create trigger ${name} after ${event} on ${table} begin ${body} end`).execute(db);
    }
  } else {
    for (const [name, events, table, body] of [
      ['protocol_requesters_listing', 'insert', 'protocol_requesters', onRequester],
      ['protocols_listing', `update of ${PROTOCOL_LISTED}`, 'protocols', onProtocol],
      [
        'exams_listing',
        `insert or update of ${EXAM_LISTED} or delete`,
        'exams',
        `if tg_op <> 'INSERT' then ${onExam('old')} end if;
         if tg_op <> 'DELETE' and (tg_op = 'INSERT' or new.protocol_id <> old.protocol_id) then ${onExam('new')} end if;`,
      ],
    ] as const) {
      await sql
        .raw(
          `create function ${name}() returns trigger language plpgsql as $$
          begin ${body} return null; end $$`,
        )
        .execute(db);
      await sql
        .raw(
          // Deferred to the commit: the copies are written after every other lock the
          // transaction takes, so concurrent ingests of one protocol take them in one order.
          `create constraint trigger ${name} after ${events} on ${table} deferrable initially deferred
            for each row execute function ${name}()`,
        )
        .execute(db);
    }
  }
}
