import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations work on the raw schema */
type Db = Kysely<any>;

/**
 * The calendar day (GMT-3, the days a person picks in a list's date range; `days.ts`) of a
 * `sort_at` value, as `YYYY-MM-DD`. `sort_at` is always ISO 8601 in UTC.
 */
function daySql(dialect: Dialect, value: string): string {
  return dialect === 'sqlite'
    ? `date(${value}, '-180 minutes')`
    : `to_char((${value})::timestamptz at time zone 'UTC' - interval '180 minutes', 'YYYY-MM-DD')`;
}

/*
 * How many live (not disabled) protocols each list scope has per day: a patient's
 * ('patient:<user id>'), a tag's ('tag:<tag id>') and a requester license's
 * ('license:<crm>/<uf>', over protocol_requesters). A list's exact total over a date range is then
 * a sum of at most one row per day, instead of a count of every protocol in the range; triggers
 * keep the rows right whatever writes protocols or their requesters.
 */
export async function up(db: Db, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('protocol_day_counts')
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('protocol_day_counts_pk', ['scope', 'day'])
    .execute();
  const license: LicenseScope = (alias) => `'license:' || ${alias}.crm || '/' || ${alias}.uf`;
  await createDayCountTriggers(db, dialect, license);
  await countProtocols(db, dialect, license, true);
}

/**
 * A requester license's scope as SQL, from a protocol_requesters row (`alias`) and the
 * institution of its protocol (`institution`, an SQL expression).
 */
export type LicenseScope = (alias: string, institution: string) => string;

/** What a requester row's day count depends on (its other columns copy its protocol's list facts). */
const REQUESTER_COUNTED = 'protocol_id, crm, uf, sort_at';

/** The triggers that keep protocol_day_counts, with license scopes as `licenseOf` names them. */
export async function createDayCountTriggers(db: Db, dialect: Dialect, licenseOf: LicenseScope): Promise<void> {
  const day = (value: string) => daySql(dialect, value);
  const add = `on conflict (scope, day) do update set n = protocol_day_counts.n + excluded.n`;
  /** The protocol's institution, from a requester row (its protocol may be gone on delete). */
  const institutionOf = (row: string) => `(select p.institution_id from protocols p where p.id = ${row}.protocol_id)`;
  const live = (protocolId: string) =>
    `exists (select 1 from protocols p where p.id = ${protocolId} and p.disabled = 0)`;
  /** One protocol row (`row` is old or new) in (+1) or out (-1) of its patient's and tag's counts. */
  const ownScopes = (row: string, sign: 1 | -1) =>
    (['patient_user_id', 'tag_id'] as const).map((column) => {
      const scope = `'${column === 'patient_user_id' ? 'patient' : 'tag'}:' || ${row}.${column}`;
      return sign === 1
        ? `insert into protocol_day_counts (scope, day, n) select ${scope}, ${day(`${row}.sort_at`)}, 1
            where ${row}.disabled = 0 and ${row}.${column} is not null ${add};`
        : `update protocol_day_counts set n = n - 1
            where ${row}.disabled = 0 and scope = ${scope} and day = ${day(`${row}.sort_at`)};`;
    });
  /** The requester licenses of protocol `row` in or out of their counts. */
  const licenseScopes = (row: string, sign: 1 | -1, when: string) =>
    sign === 1
      ? `insert into protocol_day_counts (scope, day, n)
          select ${licenseOf('pr', `${row}.institution_id`)}, ${day('pr.sort_at')}, 1 from protocol_requesters pr
          where pr.protocol_id = ${row}.id and ${when} ${add};`
      : `update protocol_day_counts set n = n - 1 where ${when} and (scope, day) in
          (select ${licenseOf('pr', `${row}.institution_id`)}, ${day('pr.sort_at')} from protocol_requesters pr
            where pr.protocol_id = ${row}.id);`;
  /** One requester row in or out of its license's count, when its protocol is live. */
  const requesterScope = (row: string, sign: 1 | -1) =>
    sign === 1
      ? `insert into protocol_day_counts (scope, day, n)
          select ${licenseOf(row, institutionOf(row))}, ${day(`${row}.sort_at`)}, 1
          where ${live(`${row}.protocol_id`)} ${add};`
      : `update protocol_day_counts set n = n - 1
          where scope = ${licenseOf(row, institutionOf(row))} and day = ${day(`${row}.sort_at`)}
            and ${live(`${row}.protocol_id`)};`;

  /** A protocol's requester rows carry its date: the physician's list walks them by it. */
  const requesterDates = (row: string) =>
    `update protocol_requesters set sort_at = ${row}.sort_at where protocol_id = ${row}.id and sort_at <> ${row}.sort_at;`;
  const protocolDate = (row: string) => `(select p.sort_at from protocols p where p.id = ${row}.protocol_id)`;

  const protocolInsert = [...ownScopes('new', 1)];
  const protocolUpdate = [
    ...ownScopes('old', -1),
    ...ownScopes('new', 1),
    // Licenses in or out on their rows' dates as they were, then the rows take the new date
    // (their own trigger moves the counts of a live protocol).
    licenseScopes('new', -1, 'old.disabled = 0 and new.disabled <> 0'),
    licenseScopes('new', 1, 'old.disabled <> 0 and new.disabled = 0'),
    requesterDates('new'),
  ];
  const protocolDelete = [...ownScopes('old', -1), licenseScopes('old', -1, 'old.disabled = 0')];
  const requesterInsert = [
    requesterScope('new', 1),
    `update protocol_requesters set sort_at = ${protocolDate('new')}
      where protocol_id = new.protocol_id and crm = new.crm and uf = new.uf and sort_at <> ${protocolDate('new')};`,
  ];
  const requesterUpdate = [requesterScope('old', -1), requesterScope('new', 1)];
  const requesterDelete = [requesterScope('old', -1)];

  if (dialect === 'sqlite') {
    for (const [name, event, table, body] of [
      ['protocols_day_counts_insert', 'insert', 'protocols', protocolInsert],
      [
        'protocols_day_counts_update',
        'update of patient_user_id, tag_id, sort_at, disabled',
        'protocols',
        protocolUpdate,
      ],
      ['protocols_day_counts_delete', 'delete', 'protocols', protocolDelete],
      ['protocol_requesters_day_counts_insert', 'insert', 'protocol_requesters', requesterInsert],
      [
        'protocol_requesters_day_counts_update',
        `update of ${REQUESTER_COUNTED}`,
        'protocol_requesters',
        requesterUpdate,
      ],
      ['protocol_requesters_day_counts_delete', 'delete', 'protocol_requesters', requesterDelete],
    ] as const) {
      await sql.raw(`create trigger ${name} after ${event} on ${table} begin ${body.join(' ')} end`).execute(db);
    }
  } else {
    for (const [table, insert, update, remove] of [
      ['protocols', protocolInsert, protocolUpdate, protocolDelete],
      ['protocol_requesters', requesterInsert, requesterUpdate, requesterDelete],
    ] as const) {
      await sql
        .raw(
          `create function ${table}_day_counts() returns trigger language plpgsql as $$
          begin
            if tg_op = 'INSERT' then ${insert.join(' ')}
            elsif tg_op = 'UPDATE' then ${update.join(' ')}
            else ${remove.join(' ')}
            end if;
            return null;
          end $$`,
        )
        .execute(db);
      const events =
        table === 'protocols'
          ? 'insert or update of patient_user_id, tag_id, sort_at, disabled or delete'
          : `insert or update of ${REQUESTER_COUNTED} or delete`;
      await sql
        .raw(
          `create trigger ${table}_day_counts after ${events} on ${table} for each row execute function ${table}_day_counts()`,
        )
        .execute(db);
    }
  }
}

/** The counts of the protocols already there: every scope, or (`all` false) the licenses only. */
export async function countProtocols(db: Db, dialect: Dialect, licenseOf: LicenseScope, all: boolean): Promise<void> {
  const day = (value: string) => daySql(dialect, value);
  const license = licenseOf('pr', 'p.institution_id');
  for (const [scope, from, where, sortAt] of [
    ...(all
      ? ([
          [`'patient:' || p.patient_user_id`, 'protocols p', 'p.patient_user_id is not null', 'p.sort_at'],
          [`'tag:' || p.tag_id`, 'protocols p', 'p.tag_id is not null', 'p.sort_at'],
        ] as const)
      : []),
    [license, 'protocol_requesters pr join protocols p on p.id = pr.protocol_id', 'true', 'pr.sort_at'],
  ] as const) {
    await sql
      .raw(
        `insert into protocol_day_counts (scope, day, n)
          select ${scope}, ${day(sortAt)}, count(*) from ${from} where p.disabled = 0 and ${where}
          group by ${scope}, ${day(sortAt)}`,
      )
      .execute(db);
  }
}

/** Drops what createDayCountTriggers made. */
export async function dropDayCountTriggers(db: Db, dialect: Dialect): Promise<void> {
  if (dialect === 'sqlite') {
    for (const table of ['protocols', 'protocol_requesters']) {
      for (const event of ['insert', 'update', 'delete']) {
        await sql.raw(`drop trigger if exists ${table}_day_counts_${event}`).execute(db);
      }
    }
  } else {
    for (const table of ['protocols', 'protocol_requesters']) {
      await sql.raw(`drop trigger if exists ${table}_day_counts on ${table}`).execute(db);
      await sql.raw(`drop function if exists ${table}_day_counts()`).execute(db);
    }
  }
}
