import { auditRowsNewestFirst } from '../../db/audit-keyset.js';
import type { Db } from '../../db/database.js';

/** The audit events that tell of someone reaching a patient's protocol (client-sent traces are not among them). */
export const ACCESS_EVENTS = [
  'VIEW_PROTOCOL',
  'VIEW_REPORT',
  'VIEW_IMAGE',
  'DOWNLOAD_SIGNATURE',
  'BATCH_PRINT',
  'SHARE_OPENED',
  'LOGIN',
  'SMART_AUTH',
  'ADMIN_VIEW_PROTOCOL',
  'PROTOCOL_DISABLED',
  'PROTOCOL_ENABLED',
] as const;

export interface AccessFilter {
  /** A protocol's id or number. */
  protocol?: string;
  /** ISO instants: from (included) and to (excluded). */
  from?: string;
  to?: string;
}

/**
 * The access events of the live protocols linked to `patientUserId`, with what naming their
 * author needs: the account (name, license), the protocol's tag, its institution's settings.
 * Reached through `protocols_patient_live` then `audit_events_protocol` (protocol, time).
 */
function accessQuery(db: Db, patientUserId: string, filter: AccessFilter) {
  let q = db
    .selectFrom('auditEvents as a')
    .innerJoin('protocols as p', 'p.id', 'a.protocolId')
    .innerJoin('institutions as i', 'i.id', 'p.institutionId')
    .where('p.patientUserId', '=', patientUserId)
    .where('p.disabled', '=', 0)
    .where('a.event', 'in', ACCESS_EVENTS)
    .where('a.application', '=', 'results-portal');
  if (filter.protocol) {
    const protocol = filter.protocol;
    q = q.where((eb) => eb.or([eb('p.id', '=', protocol), eb('p.number', '=', protocol)]));
  }
  if (filter.from) q = q.where('a.occurredAt', '>=', filter.from);
  if (filter.to) q = q.where('a.occurredAt', '<', filter.to);
  return q;
}

function withColumns(q: ReturnType<typeof accessQuery>) {
  return q
    .leftJoin('users as u', 'u.id', 'a.systemUserId')
    .leftJoin('tags as t', 't.id', 'p.tagId')
    .select([
      'a.id',
      'a.occurredAt',
      'a.event',
      'a.role',
      'a.systemUserId',
      'a.sharedWith',
      'a.resource',
      'a.macro',
      'p.id as protocolId',
      'p.number as protocolNumber',
      'i.name as institutionName',
      'i.settings as institutionSettings',
      'u.name as userName',
      'u.type as userType',
      'u.licenseNumber',
      'u.licenseState',
      't.tag',
    ]);
}

export type AccessRow = Awaited<ReturnType<typeof accessPage>>['rows'][number];

export async function accessPage(db: Db, patientUserId: string, filter: AccessFilter, offset: number, limit: number) {
  const [total, rows] = await Promise.all([
    accessQuery(db, patientUserId, filter)
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirst(),
    withColumns(accessQuery(db, patientUserId, filter))
      .orderBy('a.occurredAt', 'desc')
      .orderBy('a.id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
  ]);
  return { rows, total: Number(total?.n ?? 0) };
}

/** Every matching row newest first, `chunk` at a time (keyset paging: memory stays flat). */
export function accessRows(db: Db, patientUserId: string, filter: AccessFilter, chunk = 500) {
  return auditRowsNewestFirst(withColumns(accessQuery(db, patientUserId, filter)), chunk);
}

/** The exam descriptions of some resources and exams, limited to the given protocols. */
export async function examDescriptions(
  db: Db,
  protocolIds: readonly string[],
  refs: { resourceIds: readonly string[]; examIds: readonly string[]; examKeys: readonly string[] },
) {
  const byResource = new Map<string, string>();
  const byExam = new Map<string, string>();
  const byKey = new Map<string, string>();
  if (protocolIds.length === 0) return { byResource, byExam, byKey };
  const [resources, exams] = await Promise.all([
    refs.resourceIds.length
      ? db
          .selectFrom('resources as r')
          .innerJoin('exams as e', 'e.id', 'r.examId')
          .select(['r.id', 'e.description'])
          .where('r.id', 'in', refs.resourceIds)
          .where('e.protocolId', 'in', protocolIds)
          .execute()
      : [],
    refs.examIds.length || refs.examKeys.length
      ? db
          .selectFrom('exams as e')
          .select(['e.id', 'e.protocolId', 'e.examKey', 'e.description'])
          .where('e.protocolId', 'in', protocolIds)
          .where((eb) =>
            eb.or([
              ...(refs.examIds.length ? [eb('e.id', 'in', refs.examIds)] : []),
              ...(refs.examKeys.length ? [eb('e.examKey', 'in', refs.examKeys)] : []),
            ]),
          )
          .execute()
      : [],
  ]);
  for (const r of resources) byResource.set(r.id, r.description);
  for (const e of exams) {
    byExam.set(e.id, e.description);
    byKey.set(`${e.protocolId}\u0000${e.examKey}`, e.description);
  }
  return { byResource, byExam, byKey };
}

/** Whether the patient account exists and is a patient (the path's id must be the caller's own). */
export async function accessAlertsOf(db: Db, userId: string): Promise<boolean | null> {
  const row = await db.selectFrom('users').select('accessAlerts').where('id', '=', userId).executeTakeFirst();
  return row ? row.accessAlerts === 1 : null;
}

export async function setAccessAlerts(db: Db, userId: string, enabled: boolean, now: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ accessAlerts: enabled ? 1 : 0, updatedAt: now })
    .where('id', '=', userId)
    .execute();
}

/** The events that tell of someone opening a result (a sign-in alone opens nothing). */
export const OPENING_EVENTS = ACCESS_EVENTS.filter(
  (e) => e !== 'LOGIN' && e !== 'PROTOCOL_DISABLED' && e !== 'PROTOCOL_ENABLED',
);

/**
 * Per patient who asked for alerts and per protocol of his: the openings by someone else since
 * `since` that no alert has told of yet, when the last alert is older than `windowStart`.
 */
export function alertCandidates(db: Db, since: string, until: string, windowStart: string) {
  return db
    .selectFrom('auditEvents as a')
    .innerJoin('protocols as p', 'p.id', 'a.protocolId')
    .innerJoin('users as u', 'u.id', 'p.patientUserId')
    .innerJoin('institutions as i', 'i.id', 'p.institutionId')
    .leftJoin('accessAlertSends as s', (join) => join.onRef('s.userId', '=', 'u.id').onRef('s.protocolId', '=', 'p.id'))
    .where('a.occurredAt', '>=', since)
    .where('a.occurredAt', '<=', until)
    .where('a.event', 'in', OPENING_EVENTS)
    .where('a.application', '=', 'results-portal')
    .where('u.accessAlerts', '=', 1)
    .where('u.disabled', '=', 0)
    .where('p.disabled', '=', 0)
    .where((eb) => eb.not(eb.and([eb('a.role', '=', 'PATIENT'), eb('a.systemUserId', '=', eb.ref('p.patientUserId'))])))
    .where((eb) =>
      eb.or([
        eb('s.sentAt', 'is', null),
        eb.and([eb('s.sentAt', '<', windowStart), eb('a.occurredAt', '>', eb.ref('s.sentAt'))]),
      ]),
    )
    .select((eb) => [
      'u.id as userId',
      'u.email',
      'u.language',
      'p.id as protocolId',
      'p.number as protocolNumber',
      'i.id as institutionId',
      'i.name as institutionName',
      eb.fn.countAll<number | string>().as('openings'),
    ])
    .groupBy(['u.id', 'u.email', 'u.language', 'p.id', 'p.number', 'i.id', 'i.name'])
    .execute();
}

/**
 * Takes the alert of a patient's protocol for `now` unless one was sent after `windowStart`
 * (by this process or another): true when this caller may send it.
 */
export async function claimAlert(db: Db, userId: string, protocolId: string, now: string, windowStart: string) {
  const result = await db
    .insertInto('accessAlertSends')
    .values({ userId, protocolId, sentAt: now })
    .onConflict((oc) =>
      oc
        .columns(['userId', 'protocolId'])
        .doUpdateSet({ sentAt: now })
        .where('accessAlertSends.sentAt', '<', windowStart),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}
