import { type ExpressionBuilder, sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database, UserType } from '../../db/schema.js';
import { auditRowsNewestFirst } from '../../db/audit-keyset.js';
import { attemptSubject } from '../../plugins/throttle.js';

/**
 * The administration console's reads and writes. `institutionIds` is the caller's reach:
 * null for every institution (admins), a list for company users (their own, or none).
 */
export type Reach = readonly string[] | null;

const n = (value: unknown): number => Number(value ?? 0);
/** A LIKE pattern matching `text` anywhere, with LIKE's own characters taken literally. */
export const contains = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export async function listInstitutionItems(db: Db, reach: Reach, search: string | undefined) {
  if (reach && reach.length === 0) return [];
  let q = db
    .selectFrom('institutions')
    .select(['id', 'code', 'name', 'viewType', 'supportEmail', 'createdAt', 'updatedAt'])
    .orderBy('name')
    .orderBy('id');
  if (reach) q = q.where('id', 'in', reach);
  if (search) {
    const pattern = contains(search.toLowerCase());
    q = q.where((eb) =>
      eb.or([
        eb(eb.fn('lower', ['name']), 'like', sql<string>`${pattern} escape '\\'`),
        eb(eb.fn('lower', ['code']), 'like', sql<string>`${pattern} escape '\\'`),
      ]),
    );
  }
  return q.execute();
}

export async function institutionsIn(db: Db, reach: Reach) {
  if (reach && reach.length === 0) return [];
  let q = db.selectFrom('institutions').select(['id', 'code', 'name']).orderBy('name').orderBy('id');
  if (reach) q = q.where('id', 'in', reach);
  return q.execute();
}

/** Protocols created today and this week, per institution. */
export async function protocolCounts(db: Db, ids: readonly string[], today: string, weekStart: string) {
  if (ids.length === 0) return [];
  return db
    .selectFrom('protocols')
    .select((eb) => [
      'institutionId',
      eb.fn.countAll<number>().as('week'),
      sql<number>`sum(case when ${eb.ref('createdAt')} >= ${today} then 1 else 0 end)`.as('today'),
    ])
    .where('institutionId', 'in', ids)
    .where('createdAt', '>=', weekStart)
    .groupBy('institutionId')
    .execute();
}

/** Exams delivered today and this week, and how many of this week's were opened, per institution. */
export async function deliveryCounts(db: Db, ids: readonly string[], today: string, weekStart: string) {
  if (ids.length === 0) return [];
  return db
    .selectFrom('exams as e')
    .innerJoin('protocols as p', 'p.id', 'e.protocolId')
    .select((eb) => [
      'p.institutionId',
      eb.fn.countAll<number>().as('week'),
      sql<number>`sum(case when ${eb.ref('e.deliveredAt')} >= ${today} then 1 else 0 end)`.as('today'),
      sql<number>`sum(case when exists (select 1 from exam_reads r where r.exam_id = ${eb.ref('e.id')}) then 1 else 0 end)`.as(
        'opened',
      ),
    ])
    .where('p.institutionId', 'in', ids)
    .where('e.deliveredAt', '>=', weekStart)
    .groupBy('p.institutionId')
    .execute();
}

export async function lastIngests(db: Db, ids: readonly string[]) {
  if (ids.length === 0) return [];
  return db
    .selectFrom('protocols')
    .select((eb) => ['institutionId', eb.fn.max('updatedAt').as('last')])
    .where('institutionId', 'in', ids)
    .groupBy('institutionId')
    .execute();
}

export async function loginFailuresByTenant(db: Db, codes: readonly string[], since: string) {
  if (codes.length === 0) return [];
  return db
    .selectFrom('auditEvents')
    .select((eb) => ['tenant', eb.fn.countAll<number>().as('count')])
    .where('event', '=', 'LOGIN_FAILED')
    .where('occurredAt', '>=', since)
    .where('tenant', 'in', codes)
    .groupBy('tenant')
    .execute();
}

export async function portalFigures(db: Db, since: string, now: string) {
  const outbox = await db
    .selectFrom('outbox')
    .select((eb) => ['status', eb.fn.countAll<number>().as('count')])
    .where('status', 'in', ['PENDING', 'DEAD'])
    .groupBy('status')
    .execute();
  const failures = await db
    .selectFrom('auditEvents')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('event', '=', 'LOGIN_FAILED')
    .where('occurredAt', '>=', since)
    .executeTakeFirst();
  // The accounts People lists under state LOCKED: the figure opens that list.
  const locked = await accountQuery(db, null, { state: 'LOCKED', now })
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirst();
  return {
    outboxWaiting: n(outbox.find((r) => r.status === 'PENDING')?.count),
    outboxFailed: n(outbox.find((r) => r.status === 'DEAD')?.count),
    loginFailures24h: n(failures?.count),
    lockedNow: n(locked?.count),
  };
}

export interface ProtocolFilter {
  number?: string;
  patient?: string;
  institutionId?: string;
  from?: string;
  to?: string;
}

function protocolQuery(db: Db, reach: Reach, filter: ProtocolFilter) {
  let q = db.selectFrom('protocols as p').innerJoin('institutions as i', 'i.id', 'p.institutionId');
  if (reach) q = q.where('p.institutionId', 'in', reach.length ? reach : ['']);
  if (filter.institutionId) q = q.where('p.institutionId', '=', filter.institutionId);
  if (filter.number)
    q = q.where(
      'p.number',
      'like',
      sql<string>`${`${filter.number.replace(/[\\%_]/g, (c) => `\\${c}`)}%`} escape '\\'`,
    );
  if (filter.patient) q = q.where('p.patientNameSearch', 'like', sql<string>`${contains(filter.patient)} escape '\\'`);
  if (filter.from) q = q.where('p.sortAt', '>=', filter.from);
  if (filter.to) q = q.where('p.sortAt', '<', filter.to);
  return q;
}

const protocolColumns = [
  'p.id',
  'p.number',
  'p.patientName',
  'p.requestedAt',
  'p.createdAt',
  'p.disabled',
  'p.institutionId',
  'i.code as institutionCode',
  'i.name as institutionName',
] as const;

const examCount = (eb: ExpressionBuilder<Database & { p: Database['protocols'] }, 'p'>) =>
  eb
    .selectFrom('exams')
    .select((e) => e.fn.countAll<number>().as('n'))
    .whereRef('exams.protocolId', '=', 'p.id')
    .as('examCount');

export async function searchProtocols(db: Db, reach: Reach, filter: ProtocolFilter, offset: number, limit: number) {
  const total = await protocolQuery(db, reach, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst();
  const rows = await protocolQuery(db, reach, filter)
    .select(protocolColumns)
    .select((eb) => examCount(eb as never))
    .orderBy('p.sortAt', 'desc')
    .orderBy('p.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  return { rows, total: n(total?.n) };
}

export async function findProtocolForAdmin(db: Db, id: string) {
  return db
    .selectFrom('protocols as p')
    .innerJoin('institutions as i', 'i.id', 'p.institutionId')
    .select(protocolColumns)
    .select(['p.patientBirthDate', 'p.patientUserId'])
    .select((eb) => examCount(eb as never))
    .where('p.id', '=', id)
    .executeTakeFirst();
}

export async function protocolExams(db: Db, protocolId: string) {
  const exams = await db
    .selectFrom('exams as e')
    .select([
      'e.id',
      'e.examKey',
      'e.description',
      'e.modalityName',
      'e.status',
      'e.deliveredAt',
      'e.isEnabled',
      (eb) =>
        eb
          .selectFrom('examReads as r')
          .select((r) => r.fn.countAll<number>().as('n'))
          .whereRef('r.examId', '=', 'e.id')
          .as('reads'),
    ])
    .where('e.protocolId', '=', protocolId)
    .orderBy('e.position')
    .execute();
  const files = exams.length
    ? await db
        .selectFrom('resources')
        .select(['examId', 'identifier', 'type', 'size'])
        .where(
          'examId',
          'in',
          exams.map((e) => e.id),
        )
        .orderBy('identifier')
        .execute()
    : [];
  return { exams, files };
}

export async function protocolShareCounts(db: Db, protocolId: string, now: string) {
  const row = await db
    .selectFrom('shareProtocols as sp')
    .innerJoin('shares as s', 's.id', 'sp.shareId')
    .select((eb) => [
      eb.fn.countAll<number>().as('total'),
      sql<number>`sum(case when ${eb.ref('s.active')} = 1 and ${eb.ref('s.canceledAt')} is null and ${eb.ref('s.expiresAt')} > ${now} then 1 else 0 end)`.as(
        'active',
      ),
    ])
    .where('sp.protocolId', '=', protocolId)
    .executeTakeFirst();
  return { total: n(row?.total), active: n(row?.active) };
}

/**
 * Disables or re-enables a protocol unless it already is: true when this call changed it. The
 * condition is in the UPDATE, so of calls in flight one changes it (PostgreSQL re-reads the row
 * once the lock of the one before is released; SQLite writes one at a time) and the others see
 * nothing to change.
 */
export async function setProtocolDisabled(db: Db, id: string, disabled: boolean, now: string): Promise<boolean> {
  const result = await db
    .updateTable('protocols')
    .set({ disabled: disabled ? 1 : 0, updatedAt: now })
    .where('id', '=', id)
    .where('disabled', '=', disabled ? 0 : 1)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export interface AuditFilter {
  protocol?: string;
  patient?: string;
  user?: string;
  event?: string;
  tenant?: string;
  from?: string;
  to?: string;
}

/**
 * The audit rows a caller may read. A company user reads the events of its institution's
 * protocols, and the events without a protocol that the server itself wrote for its institution
 * (a client's own trace names any tenant it likes, so only the server's count).
 */
function auditQuery(db: Db, company: { id: string; code: string } | null | 'none', filter: AuditFilter) {
  let q = db.selectFrom('auditEvents as a').leftJoin('protocols as p', 'p.id', 'a.protocolId');
  if (company === 'none') q = q.where(sql<boolean>`1 = 0`);
  else if (company) {
    q = q.where((eb) =>
      eb.or([
        eb('p.institutionId', '=', company.id),
        eb.and([
          eb('a.protocolId', 'is', null),
          eb('a.tenant', '=', company.code),
          eb('a.application', '=', 'results-portal'),
        ]),
      ]),
    );
  }
  if (filter.protocol)
    q = q.where((eb) => eb.or([eb('p.number', '=', filter.protocol!), eb('a.protocolId', '=', filter.protocol!)]));
  if (filter.patient) {
    const pattern = contains(filter.patient);
    q = q.where((eb) =>
      eb.or([
        eb('p.patientNameSearch', 'like', sql<string>`${pattern} escape '\\'`),
        eb(eb.fn('lower', ['a.patients']), 'like', sql<string>`${pattern} escape '\\'`),
      ]),
    );
  }
  if (filter.user) {
    const pattern = contains(filter.user.toLowerCase());
    q = q.where((eb) =>
      eb.or([
        eb('a.systemUserId', '=', filter.user!),
        eb(eb.fn('lower', ['a.systemUserName']), 'like', sql<string>`${pattern} escape '\\'`),
        eb(eb.fn('lower', ['a.sharedWith']), 'like', sql<string>`${pattern} escape '\\'`),
      ]),
    );
  }
  if (filter.event) q = q.where('a.event', '=', filter.event);
  if (filter.tenant) q = q.where('a.tenant', '=', filter.tenant);
  if (filter.from) q = q.where('a.occurredAt', '>=', filter.from);
  if (filter.to) q = q.where('a.occurredAt', '<', filter.to);
  return q;
}

const auditColumns = [
  'a.id',
  'a.occurredAt',
  'a.event',
  'a.tenant',
  'a.protocolId',
  'p.number as protocolNumber',
  'a.systemUserId',
  'a.systemUserName',
  'a.role',
  'a.sharedWith',
  'a.ip',
  'a.macro',
  'a.resource',
] as const;

export type AuditScope = { id: string; code: string } | null | 'none';

export async function auditPage(db: Db, scope: AuditScope, filter: AuditFilter, offset: number, limit: number) {
  const total = await auditQuery(db, scope, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst();
  const rows = await auditQuery(db, scope, filter)
    .select(auditColumns)
    .orderBy('a.occurredAt', 'desc')
    .orderBy('a.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  return { rows, total: n(total?.n) };
}

export type AuditRow = Awaited<ReturnType<typeof auditPage>>['rows'][number];

/** The filtered rows newest first, `chunk` at a time (keyset paging: memory stays flat at any size). */
export function auditRows(db: Db, scope: AuditScope, filter: AuditFilter, chunk = 500) {
  return auditRowsNewestFirst(auditQuery(db, scope, filter).select(auditColumns), chunk);
}

/** Mails waiting (PENDING) and given up (DEAD) per institution, for the dashboard. */
export async function outboxCounts(db: Db, ids: readonly string[]) {
  if (ids.length === 0) return [];
  return db
    .selectFrom('outbox')
    .select((eb) => ['institutionId', 'status', eb.fn.countAll<number>().as('count')])
    .where('institutionId', 'in', ids)
    .where('status', 'in', ['PENDING', 'DEAD'])
    .groupBy(['institutionId', 'status'])
    .execute();
}

/**
 * Accounts under a sign-in or MFA lock now, per institution, counted as that institution's People
 * list under state LOCKED counts them. Locks are rare: without any, no institution is asked.
 */
export async function lockedCounts(db: Db, ids: readonly string[], now: string) {
  const any = await db.selectFrom('throttles').select('key').where('lockedUntil', '>', now).limit(1).executeTakeFirst();
  return Promise.all(
    ids.map(async (institutionId) => {
      if (!any) return { institutionId, count: 0 };
      const row = await accountQuery(db, [institutionId], { state: 'LOCKED', now })
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .executeTakeFirst();
      return { institutionId, count: n(row?.count) };
    }),
  );
}

export interface OutboxFilter {
  status?: string;
  institutionId?: string;
}

/** The outbox, newest first; a company user's reach sees its institutions' messages only. */
export async function outboxPage(db: Db, reach: Reach, filter: OutboxFilter, offset: number, limit: number) {
  let base = db.selectFrom('outbox as o').leftJoin('institutions as i', 'i.id', 'o.institutionId');
  if (reach) base = base.where('o.institutionId', 'in', reach.length ? reach : ['']);
  if (filter.institutionId) base = base.where('o.institutionId', '=', filter.institutionId);
  if (filter.status) base = base.where('o.status', '=', filter.status);
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
  const rows = await base
    .select([
      'o.id',
      'o.channel',
      'o.recipient',
      'o.subject',
      'o.status',
      'o.attempts',
      'o.lastError',
      'o.createdAt',
      'o.sentAt',
      'o.nextAttemptAt',
      'o.institutionId',
      'i.name as institutionName',
    ])
    .orderBy('o.createdAt', 'desc')
    .orderBy('o.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  return { rows, total: n(total?.n) };
}

export async function findOutboxRow(db: Db, id: string) {
  return db
    .selectFrom('outbox as o')
    .leftJoin('institutions as i', 'i.id', 'o.institutionId')
    .select(['o.id', 'o.status', 'o.channel', 'o.recipient', 'o.institutionId', 'i.code as institutionCode'])
    .where('o.id', '=', id)
    .executeTakeFirst();
}

/** Queues a message again: the worker sends it on its next round, with a fresh count of attempts. */
export async function requeueOutboxRow(db: Db, id: string, now: string): Promise<void> {
  await db
    .updateTable('outbox')
    .set({ status: 'PENDING', attempts: 0, nextAttemptAt: now, lockedUntil: null, lastError: null, sentAt: null })
    .where('id', '=', id)
    .execute();
}

export interface AccountFilter {
  search?: string;
  type?: UserType;
  state?: 'ACTIVE' | 'NOT_ACTIVATED' | 'DISABLED' | 'LOCKED';
  /** The moment a lock must outlast to count (state LOCKED). */
  now: string;
}

function accountQuery(db: Db, reach: Reach, filter: AccountFilter) {
  let q = db.selectFrom('users as u').leftJoin('institutions as i', 'i.id', 'u.institutionId');
  // A company user sees the people of its institution: its company users, the physicians it
  // invited, the physicians it vouches for, and the accounts waiting for it to enable them.
  if (reach) {
    const ids = reach.length ? reach : [''];
    q = q.where((eb) =>
      eb.or([
        eb.and([
          eb('u.type', 'in', ['COMPANY', 'PHYSICIAN']),
          eb.or([
            eb('u.institutionId', 'in', ids),
            eb.and([
              eb('u.type', '=', 'PHYSICIAN'),
              eb.exists(
                eb
                  .selectFrom('physicianVouches as v')
                  .select('v.userId')
                  .whereRef('v.userId', '=', 'u.id')
                  .where('v.institutionId', 'in', ids),
              ),
            ]),
          ]),
        ]),
        eb('u.awaitingInstitutionId', 'in', ids),
      ]),
    );
  }
  if (filter.type) q = q.where('u.type', '=', filter.type);
  if (filter.state === 'DISABLED') q = q.where('u.disabled', '=', 1);
  if (filter.state === 'ACTIVE') q = q.where('u.disabled', '=', 0).where('u.active', '=', 1);
  if (filter.state === 'NOT_ACTIVATED') q = q.where('u.disabled', '=', 0).where('u.active', '=', 0);
  if (filter.state === 'LOCKED') {
    // The account's attempt-gate counters (sign-ins and passwords, MFA codes), as lockKeys names them.
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('throttles as t')
          .select('t.key')
          .where('t.lockedUntil', '>', filter.now)
          .where((inner) =>
            inner.or([
              inner('t.key', '=', sql<string>`${attemptSubject.account('')} || ${inner.ref('u.id')}`),
              inner('t.key', '=', sql<string>`${attemptSubject.mfa('')} || ${inner.ref('u.id')}`),
            ]),
          ),
      ),
    );
  }
  if (filter.search) {
    const text = filter.search.toLowerCase();
    const pattern = contains(text);
    const digits = text.replace(/\D/g, '');
    q = q.where((eb) =>
      eb.or([
        eb(eb.fn('lower', ['u.name']), 'like', sql<string>`${pattern} escape '\\'`),
        eb('u.email', 'like', sql<string>`${pattern} escape '\\'`),
        ...(digits.length >= 3
          ? [eb('u.cpf', 'like', sql<string>`${contains(digits)} escape '\\'`), eb('u.licenseNumber', '=', digits)]
          : []),
      ]),
    );
  }
  return q;
}

export async function accountPage(db: Db, reach: Reach, filter: AccountFilter, offset: number, limit: number) {
  const total = await accountQuery(db, reach, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst();
  const rows = await accountQuery(db, reach, filter)
    .select([
      'u.id',
      'u.type',
      'u.name',
      'u.email',
      'u.cpf',
      'u.licenseNumber',
      'u.licenseState',
      'u.active',
      'u.disabled',
      'u.awaitingInstitutionId',
      'u.createdAt',
      'i.id as institutionId',
      'i.name as institutionName',
    ])
    .orderBy('u.name')
    .orderBy('u.id')
    .limit(limit)
    .offset(offset)
    .execute();
  return { rows, total: n(total?.n) };
}

export async function findAccount(db: Db, id: string) {
  return db
    .selectFrom('users')
    .select(['id', 'type', 'email', 'name', 'cpf', 'institutionId', 'disabled', 'awaitingInstitutionId'])
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function setAccountDisabled(db: Db, id: string, disabled: boolean, now: string): Promise<void> {
  await db
    .updateTable('users')
    // Enabling ends the wait for the institution (createAccountDefaultDisabled) too.
    .set(disabled ? { disabled: 1, updatedAt: now } : { disabled: 0, awaitingInstitutionId: null, updatedAt: now })
    .where('id', '=', id)
    .execute();
}

export async function locksOf(db: Db, keys: readonly string[], now: string) {
  if (keys.length === 0) return [];
  return db
    .selectFrom('throttles')
    .select(['key', 'lockedUntil'])
    .where('key', 'in', keys)
    .where('lockedUntil', '>', now)
    .execute();
}

export async function clearLocks(db: Db, keys: readonly string[]): Promise<number> {
  if (keys.length === 0) return 0;
  const result = await db.deleteFrom('throttles').where('key', 'in', keys).executeTakeFirst();
  return Number(result.numDeletedRows ?? 0);
}

/** The institutions within reach that vouch for these physicians. */
export async function vouchesOf(db: Db, userIds: readonly string[], reach: Reach) {
  if (userIds.length === 0 || (reach && reach.length === 0)) return [];
  let q = db
    .selectFrom('physicianVouches as v')
    .innerJoin('institutions as i', 'i.id', 'v.institutionId')
    .select(['v.userId', 'i.id', 'i.name'])
    .where('v.userId', 'in', userIds)
    .orderBy('i.name')
    .orderBy('i.id');
  if (reach) q = q.where('v.institutionId', 'in', reach);
  return q.execute();
}
