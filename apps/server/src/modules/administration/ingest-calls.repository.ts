import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Reach } from './administration.repository.js';

export interface IngestCallFilter {
  institutionId?: string;
  errorsOnly: boolean;
}

/**
 * Calls to the ingest doors, one shape for both records: `ingest_calls` (JSON, FHIR: the HTTP
 * status) and `hl7_messages` (HL7 v2 over MLLP or HTTPS: the ACK code). `failed` is 1 for an HTTP
 * status of 400 and above, and for an HL7 message answered with an error or refused.
 */
function callsQuery(db: Db, reach: Reach, filter: IngestCallFilter) {
  const ids = reach ? (reach.length ? reach : ['']) : null;
  let http = db
    .selectFrom('ingestCalls as c')
    .select([
      'c.id',
      'c.institutionId',
      'c.door',
      'c.method',
      'c.path',
      sql<string>`cast(c.status as text)`.as('status'),
      'c.error',
      'c.receivedAt',
      'c.durationMs',
      sql<number>`case when c.status >= 400 then 1 else 0 end`.as('failed'),
    ]);
  let hl7 = db
    .selectFrom('hl7Messages as m')
    .select([
      'm.id',
      sql<string>`m.institution_id`.as('institutionId'),
      sql<string>`'HL7'`.as('door'),
      'm.transport as method',
      sql<string>`coalesce(m.message_type, '')`.as('path'),
      sql<string>`coalesce(m.ack_code, m.outcome)`.as('status'),
      'm.error',
      'm.receivedAt',
      sql<number>`0`.as('durationMs'),
      sql<number>`case when m.outcome in ('ERROR', 'REJECTED') then 1 else 0 end`.as('failed'),
    ])
    .where('m.institutionId', 'is not', null);
  if (ids) {
    http = http.where('c.institutionId', 'in', ids);
    hl7 = hl7.where('m.institutionId', 'in', ids);
  }
  if (filter.institutionId) {
    http = http.where('c.institutionId', '=', filter.institutionId);
    hl7 = hl7.where('m.institutionId', '=', filter.institutionId);
  }
  if (filter.errorsOnly) {
    http = http.where('c.status', '>=', 400);
    hl7 = hl7.where('m.outcome', 'in', ['ERROR', 'REJECTED']);
  }
  return db.selectFrom(http.unionAll(hl7).as('calls'));
}

export async function ingestCallPage(db: Db, reach: Reach, filter: IngestCallFilter, offset: number, limit: number) {
  const total = await callsQuery(db, reach, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst();
  const rows = await callsQuery(db, reach, filter)
    .innerJoin('institutions as i', 'i.id', 'calls.institutionId')
    .select([
      'calls.id',
      'calls.institutionId',
      'i.name as institutionName',
      'calls.door',
      'calls.method',
      'calls.path',
      'calls.status',
      'calls.error',
      'calls.receivedAt',
      'calls.durationMs',
      'calls.failed',
    ])
    .orderBy('calls.receivedAt', 'desc')
    .orderBy('calls.id')
    .limit(limit)
    .offset(offset)
    .execute();
  return { rows, total: Number(total?.n ?? 0) };
}

/** Per institution since `since`: calls, failed calls and the last call's time, over both records. */
export async function ingestCallCounts(db: Db, ids: readonly string[], since: string) {
  if (ids.length === 0) return [];
  return callsQuery(db, ids, { errorsOnly: false })
    .select((eb) => [
      'calls.institutionId',
      eb.fn.countAll<number>().as('calls'),
      sql<number>`sum(calls.failed)`.as('errors'),
      eb.fn.max('calls.receivedAt').as('lastAt'),
    ])
    .where('calls.receivedAt', '>=', since)
    .groupBy('calls.institutionId')
    .execute();
}
