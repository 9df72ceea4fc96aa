import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations work on the raw schema */
type Db = Kysely<any>;

/**
 * Changed rows as a trigger sees them: on SQLite the row itself (`new` or `old`, no FROM item), on
 * PostgreSQL a statement's transition table (`new_rows n` or `old_rows o`).
 */
interface Rows {
  alias: string;
  table: string | null;
}

/** `from` over some tables and the changed rows (nothing on SQLite when there is no table). */
function from(rows: Rows, ...tables: string[]): string {
  const items = [...tables, ...(rows.table ? [`${rows.table} ${rows.alias}`] : [])];
  return items.length > 0 ? `from ${items.join(', ')}` : '';
}

/** The list scopes (as in protocol_day_counts) of changed protocol rows. */
function protocolScopes(r: Rows): string {
  return `select 'patient:' || ${r.alias}.patient_user_id as scope ${from(r)}
    union all select 'tag:' || ${r.alias}.tag_id ${from(r)}
    union all select 'license:' || pr.crm || '/' || pr.uf ${from(r, 'protocol_requesters pr')}
      where pr.protocol_id = ${r.alias}.id`;
}

/** The list scopes of the protocols of changed exam rows. */
function examScopes(r: Rows): string {
  return `select 'patient:' || p.patient_user_id as scope ${from(r, 'protocols p')} where p.id = ${r.alias}.protocol_id
    union all select 'tag:' || p.tag_id ${from(r, 'protocols p')} where p.id = ${r.alias}.protocol_id
    union all select 'license:' || pr.crm || '/' || pr.uf ${from(r, 'protocol_requesters pr')}
      where pr.protocol_id = ${r.alias}.protocol_id`;
}

/** The license scope of changed requester rows. */
function licenseScope(r: Rows): string {
  return `select 'license:' || ${r.alias}.crm || '/' || ${r.alias}.uf as scope ${from(r)}`;
}

/** The read-mark scope of changed exam_reads rows. */
function readerScope(r: Rows): string {
  return `select 'reader:' || ${r.alias}.viewer_key as scope ${from(r)}`;
}

/** Moves the revision of every scope `scopes` names (a select of one `scope` column) by one. */
function bump(scopes: string): string {
  return `insert into list_revisions (scope, revision)
    select distinct s.scope, 1 from (${scopes}) s where s.scope is not null
    on conflict (scope) do update set revision = list_revisions.revision + 1;`;
}

const SCOPES = {
  protocols: protocolScopes,
  protocol_requesters: licenseScope,
  exams: examScopes,
  exam_reads: readerScope,
} as const;

/*
 * A revision number per list scope: a patient's, a tag's and a requester license's protocols
 * ('patient:<user id>', 'tag:<tag id>', 'license:<crm>/<uf>') and a viewer's read marks
 * ('reader:<viewer key>'). Triggers move them whatever writes protocols, their requesters, their
 * exams (resources and history results are kept on the exam by triggers) or read marks; the session
 * statement of every call sums the caller's, so a list answer kept in memory is served again only
 * while nothing it shows has changed, in any server process.
 */
export async function up(db: Db, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('list_revisions')
    .addColumn('scope', 'text', (c) => c.primaryKey())
    .addColumn('revision', 'bigint', (c) => c.notNull())
    .execute();

  for (const [table, scopes] of Object.entries(SCOPES)) {
    if (dialect === 'sqlite') {
      // One row at a time: a row trigger sees the row itself.
      const before = scopes({ alias: 'old', table: null });
      const after = scopes({ alias: 'new', table: null });
      for (const [event, changed] of [
        ['insert', after],
        ['update', `${before} union all ${after}`],
        ['delete', before],
      ] as const) {
        await sql
          .raw(`create trigger ${table}_list_revision_${event} after ${event} on ${table} begin ${bump(changed)} end`)
          .execute(db);
      }
    } else {
      // Once a statement, over its transition tables: a scope row updated once per changed row in
      // one transaction (a bulk insert) would leave PostgreSQL a chain of versions to walk.
      const before = scopes({ alias: 'o', table: 'old_rows' });
      const after = scopes({ alias: 'n', table: 'new_rows' });
      for (const [event, changed, transition] of [
        ['insert', after, 'new table as new_rows'],
        ['update', `${before} union all ${after}`, 'old table as old_rows new table as new_rows'],
        ['delete', before, 'old table as old_rows'],
      ] as const) {
        await sql
          .raw(
            `create function ${table}_list_revision_${event}() returns trigger language plpgsql as $$
            begin ${bump(changed)} return null; end $$`,
          )
          .execute(db);
        await sql
          .raw(
            `create trigger ${table}_list_revision_${event} after ${event} on ${table}
              referencing ${transition} for each statement execute function ${table}_list_revision_${event}()`,
          )
          .execute(db);
      }
    }
  }
}
