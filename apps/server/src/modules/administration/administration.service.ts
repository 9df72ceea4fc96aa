import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { ServerMessage } from '@portal/shared/errors';
import {
  AUDIT_CSV_COLUMNS,
  type AccountItem,
  type AdminProtocolDetail,
  type AdminProtocolItem,
  type AuditItem,
  type Dashboard,
  type IngestCallItem,
  type zIngestCallQuery,
  type zAccountQuery,
  type zAuditQuery,
  type zOutboxQuery,
  type zProtocolSearchQuery,
} from '@portal/shared/schemas/administration';
import { maskCpf } from '@portal/shared/formats';
import { attemptSubject } from '../../plugins/throttle.js';
import type { AppContext } from '../../context.js';
import { forbidden, notFound } from '../../lib/errors.js';
import { type AuthContext, revokeUserSessions } from '../../plugins/auth.js';
import { recordAudit } from '../../plugins/audit.js';
import { addDays, dayEnd, dayOf, dayStart, daysSinceMonday } from '../delivery/days.js';
import { searchableName } from '../ingest/ingest.service.js';
import { institutionActor } from '../accounts/accounts.policy.js';
import {
  type AuditFilter,
  type AuditRow,
  type AuditScope,
  type Reach,
  accountPage,
  auditPage,
  auditRows,
  clearLocks,
  deliveryCounts,
  findAccount,
  findOutboxRow,
  findProtocolForAdmin,
  institutionsIn,
  lastIngests,
  listInstitutionItems,
  lockedCounts,
  locksOf,
  loginFailuresByTenant,
  outboxCounts,
  outboxPage,
  portalFigures,
  protocolCounts,
  protocolExams,
  protocolShareCounts,
  requeueOutboxRow,
  searchProtocols,
  setAccountDisabled,
  setProtocolDisabled,
  vouchesOf,
} from './administration.repository.js';
import { ingestCallCounts, ingestCallPage } from './ingest-calls.repository.js';

/** The caller as the console sees it: admins reach everything, company users their institution. */
export interface Operator {
  auth: AuthContext;
  /** null: every institution; otherwise the ids reached (empty for a company user without one). */
  reach: Reach;
}

export function operatorOf(auth: AuthContext): Operator {
  if (auth.role === 'ADMIN') return { auth, reach: null };
  if (auth.role !== 'COMPANY') throw forbidden();
  const { institutionId } = institutionActor(auth);
  return { auth, reach: institutionId ? [institutionId] : [] };
}

export const reaches = (op: Operator, institutionId: string) => op.reach === null || op.reach.includes(institutionId);
export const who = (op: Operator) => ({ id: op.auth.userId, name: op.auth.username, role: op.auth.role });
export const paging = (q: { page: number; size: number }) => ({ offset: (q.page - 1) * q.size, limit: q.size });

export async function institutionList(ctx: AppContext, op: Operator, search: string | undefined) {
  return listInstitutionItems(ctx.db, op.reach, search);
}

export async function dashboard(ctx: AppContext, op: Operator): Promise<Dashboard> {
  const now = ctx.clock.now();
  const todayDay = dayOf(now.toISOString());
  const today = dayStart(todayDay);
  const weekStart = dayStart(addDays(todayDay, -daysSinceMonday(todayDay)));
  const since = new Date(now.getTime() - 24 * 3600_000).toISOString();
  const institutions = await institutionsIn(ctx.db, op.reach);
  const ids = institutions.map((i) => i.id);
  const [protocols, deliveries, ingests, calls, failures, outbox, locks] = await Promise.all([
    protocolCounts(ctx.db, ids, today, weekStart),
    deliveryCounts(ctx.db, ids, today, weekStart),
    lastIngests(ctx.db, ids),
    ingestCallCounts(ctx.db, ids, since),
    loginFailuresByTenant(
      ctx.db,
      institutions.map((i) => i.code),
      since,
    ),
    outboxCounts(ctx.db, ids),
    lockedCounts(ctx.db, ids, now.toISOString()),
  ]);
  const mails = (id: string, status: string) =>
    Number(outbox.find((r) => r.institutionId === id && r.status === status)?.count ?? 0);
  return {
    today,
    weekStart,
    institutions: institutions.map((i) => {
      const p = protocols.find((r) => r.institutionId === i.id);
      const d = deliveries.find((r) => r.institutionId === i.id);
      const last = ingests.find((r) => r.institutionId === i.id)?.last;
      const c = calls.find((r) => r.institutionId === i.id);
      return {
        id: i.id,
        code: i.code,
        name: i.name,
        protocolsToday: Number(p?.today ?? 0),
        protocolsWeek: Number(p?.week ?? 0),
        examsDeliveredToday: Number(d?.today ?? 0),
        examsDeliveredWeek: Number(d?.week ?? 0),
        examsOpenedWeek: Number(d?.opened ?? 0),
        lastIngestAt: typeof last === 'string' ? last : null,
        loginFailures24h: Number(failures.find((r) => r.tenant === i.code)?.count ?? 0),
        ingestCalls24h: Number(c?.calls ?? 0),
        ingestErrors24h: Number(c?.errors ?? 0),
        lastCallAt: typeof c?.lastAt === 'string' ? c.lastAt : null,
        outboxWaiting: mails(i.id, 'PENDING'),
        outboxFailed: mails(i.id, 'DEAD'),
        lockedNow: locks.find((l) => l.institutionId === i.id)?.count ?? 0,
      };
    }),
    portal: op.reach === null ? await portalFigures(ctx.db, since, now.toISOString()) : null,
  };
}

type ProtocolSearch = z.output<typeof zProtocolSearchQuery>;

function toProtocolItem(row: {
  id: string;
  number: string;
  patientName: string;
  requestedAt: string | null;
  createdAt: string;
  disabled: number;
  institutionId: string;
  institutionCode: string;
  institutionName: string;
  examCount: number | string | bigint | null;
}): AdminProtocolItem {
  return {
    id: row.id,
    number: row.number,
    institution: { id: row.institutionId, code: row.institutionCode, name: row.institutionName },
    patientName: row.patientName,
    requestedAt: row.requestedAt,
    createdAt: row.createdAt,
    disabled: row.disabled === 1,
    examCount: Number(row.examCount ?? 0),
  };
}

export async function protocolSearch(ctx: AppContext, op: Operator, query: ProtocolSearch) {
  const { offset, limit } = paging(query);
  const { rows, total } = await searchProtocols(
    ctx.db,
    op.reach,
    {
      number: query.number,
      patient: query.patient ? searchableName(query.patient) : undefined,
      institutionId: query.institutionId,
      from: query.from ? dayStart(query.from) : undefined,
      to: query.to ? dayEnd(query.to) : undefined,
    },
    offset,
    limit,
  );
  return { items: rows.map(toProtocolItem), total, page: query.page, size: query.size };
}

async function reachableProtocol(ctx: AppContext, op: Operator, id: string) {
  const row = await findProtocolForAdmin(ctx.db, id);
  // Another institution's protocol looks exactly like one that does not exist.
  if (!row || !reaches(op, row.institutionId)) throw notFound(ServerMessage.notFound);
  return row;
}

/**
 * A protocol opened in the console: the patient's data and the exams' files are shown to staff, so
 * the open is traced (ADMIN_VIEW_PROTOCOL) and the patient sees it in "who saw my results".
 */
export async function viewProtocol(
  ctx: AppContext,
  request: FastifyRequest,
  op: Operator,
  id: string,
): Promise<AdminProtocolDetail> {
  const detail = await protocolDetail(ctx, op, id);
  await recordAudit(
    ctx,
    {
      event: 'ADMIN_VIEW_PROTOCOL',
      tenant: detail.institution.code,
      protocolId: id,
      resource: { type: 'PROTOCOL', id, number: detail.number },
      systemUser: who(op),
    },
    request,
  );
  return detail;
}

export async function protocolDetail(ctx: AppContext, op: Operator, id: string): Promise<AdminProtocolDetail> {
  const row = await reachableProtocol(ctx, op, id);
  const { exams, files } = await protocolExams(ctx.db, id);
  const shares = await protocolShareCounts(ctx.db, id, ctx.clock.now().toISOString());
  return {
    ...toProtocolItem(row),
    patientBirthDate: row.patientBirthDate,
    hasPatientUser: row.patientUserId !== null,
    exams: exams.map((e) => ({
      id: e.id,
      examKey: e.examKey,
      description: e.description,
      modalityName: e.modalityName,
      status: e.status,
      deliveredAt: e.deliveredAt,
      isEnabled: e.isEnabled === 1,
      reads: Number(e.reads ?? 0),
      files: files
        .filter((f) => f.examId === e.id)
        .map((f) => ({ identifier: f.identifier, type: f.type, size: Number(f.size) })),
    })),
    shares,
  };
}

/** Disables (cancels) or re-enables a protocol: nobody opens a disabled one, every list drops it. */
export async function changeProtocolStatus(
  ctx: AppContext,
  request: FastifyRequest,
  op: Operator,
  id: string,
  change: { disabled: boolean; reason: string },
): Promise<AdminProtocolDetail> {
  const row = await reachableProtocol(ctx, op, id);
  if ((row.disabled === 1) !== change.disabled) {
    await ctx.db.transaction().execute(async (trx) => {
      // Changed meanwhile by another call in flight: nothing happened here, nothing to trace.
      if (!(await setProtocolDisabled(trx, id, change.disabled, ctx.clock.now().toISOString()))) return;
      await recordAudit(
        ctx,
        {
          event: change.disabled ? 'PROTOCOL_DISABLED' : 'PROTOCOL_ENABLED',
          tenant: row.institutionCode,
          protocolId: id,
          resource: { type: 'PROTOCOL', id, number: row.number },
          systemUser: who(op),
          macro: { reason: change.reason },
        },
        request,
        trx,
      );
    });
  }
  return protocolDetail(ctx, op, id);
}

type AuditSearch = z.output<typeof zAuditQuery>;

async function auditScope(ctx: AppContext, op: Operator): Promise<AuditScope> {
  if (op.reach === null) return null;
  const [own] = await institutionsIn(ctx.db, op.reach);
  return own ? { id: own.id, code: own.code } : 'none';
}

async function auditFilter(ctx: AppContext, op: Operator, query: AuditSearch): Promise<AuditFilter> {
  let tenant: string | undefined;
  if (query.institutionId) {
    const [institution] = reaches(op, query.institutionId) ? await institutionsIn(ctx.db, [query.institutionId]) : [];
    // An institution out of reach filters to nothing, as an unknown one does ('#' is in no code).
    tenant = institution?.code ?? '#none';
  }
  return {
    protocol: query.protocol,
    patient: query.patient ? searchableName(query.patient) : undefined,
    user: query.user,
    event: query.event,
    tenant,
    from: query.from ? dayStart(query.from) : undefined,
    to: query.to ? dayEnd(query.to) : undefined,
  };
}

/** What an audit row says beyond its columns (the reason of a change, the client's detail), as text. */
function detailOf(row: AuditRow): string | null {
  const parts = [row.resource, row.macro].filter((v): v is string => typeof v === 'string' && v !== 'null');
  return parts.length ? parts.join(' ') : null;
}

function toAuditItem(row: AuditRow): AuditItem {
  return {
    id: row.id,
    occurredAt: row.occurredAt,
    event: row.event,
    tenant: row.tenant,
    protocolId: row.protocolId,
    protocolNumber: row.protocolNumber ?? null,
    systemUser: { id: row.systemUserId, name: row.systemUserName, role: row.role },
    sharedWith: row.sharedWith,
    ip: row.ip,
    detail: detailOf(row),
  };
}

export async function auditList(ctx: AppContext, op: Operator, query: AuditSearch) {
  const { offset, limit } = paging(query);
  const filter = await auditFilter(ctx, op, query);
  const { rows, total } = await auditPage(ctx.db, await auditScope(ctx, op), filter, offset, limit);
  return { items: rows.map(toAuditItem), total, page: query.page, size: query.size };
}

/** A CSV field: quoted, and a leading formula character neutralised for spreadsheets. */
export function csvField(value: string | null | undefined): string {
  if (value === null || value === undefined) return '';
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return `"${safe.replace(/"/g, '""')}"`;
}

function csvLine(item: AuditItem): string {
  const values: Record<(typeof AUDIT_CSV_COLUMNS)[number], string | null> = {
    occurredAt: item.occurredAt,
    event: item.event,
    tenant: item.tenant,
    protocolNumber: item.protocolNumber,
    userId: item.systemUser.id,
    userName: item.systemUser.name,
    role: item.systemUser.role,
    sharedWith: item.sharedWith,
    ip: item.ip,
    detail: item.detail,
  };
  return `${AUDIT_CSV_COLUMNS.map((c) => csvField(values[c])).join(',')}\r\n`;
}

/**
 * The filtered audit rows as CSV, streamed: rows are read 500 at a time and written as the
 * client takes them, so an export of any size holds one chunk in memory. The export itself is
 * traced before the first byte leaves.
 */
export async function auditCsv(
  ctx: AppContext,
  request: FastifyRequest,
  op: Operator,
  query: AuditSearch,
): Promise<Readable> {
  const filter = await auditFilter(ctx, op, query);
  const scope = await auditScope(ctx, op);
  await recordAudit(
    ctx,
    {
      event: 'AUDIT_EXPORTED',
      tenant: scope && scope !== 'none' ? scope.code : null,
      systemUser: who(op),
      macro: { filter: { ...query, page: undefined, size: undefined } },
    },
    request,
  );
  async function* lines() {
    // A byte-order mark so spreadsheet programs read the accents as UTF-8.
    yield `\uFEFF${AUDIT_CSV_COLUMNS.join(',')}\r\n`;
    for await (const rows of auditRows(ctx.db, scope, filter)) {
      if (rows.length) yield rows.map((r) => csvLine(toAuditItem(r))).join('');
    }
  }
  return Readable.from(lines(), { objectMode: false });
}

/** Calls of the portal operator only (admins invite admins). */
export function adminOnly(op: Operator): void {
  if (op.reach !== null) throw forbidden();
}

/**
 * The outbox: admins see every message; a company user its institution's only (another
 * institution asked for by id looks like one that does not exist).
 */
export async function outboxList(ctx: AppContext, op: Operator, query: z.output<typeof zOutboxQuery>) {
  if (query.institutionId && !reaches(op, query.institutionId)) throw notFound(ServerMessage.notFound);
  const { offset, limit } = paging(query);
  const { rows, total } = await outboxPage(
    ctx.db,
    op.reach,
    { status: query.status, institutionId: query.institutionId },
    offset,
    limit,
  );
  const items = rows.map(({ institutionId, institutionName, ...row }) => ({
    ...row,
    institution: institutionId ? { id: institutionId, name: institutionName ?? '' } : null,
  }));
  return { items, total, page: query.page, size: query.size };
}

export async function resendOutbox(ctx: AppContext, request: FastifyRequest, op: Operator, id: string) {
  const row = await findOutboxRow(ctx.db, id);
  // A company user resends its institution's messages; any other looks like one that does not exist.
  if (!row || (op.reach !== null && (row.institutionId === null || !reaches(op, row.institutionId)))) {
    throw notFound();
  }
  await ctx.db.transaction().execute(async (trx) => {
    await requeueOutboxRow(trx, id, ctx.clock.now().toISOString());
    await recordAudit(
      ctx,
      {
        event: 'OUTBOX_RESENT',
        // The institution's own trail shows its messages sent again.
        ...(row.institutionCode ? { tenant: row.institutionCode } : {}),
        resource: { type: 'OUTBOX', id, channel: row.channel, previousStatus: row.status },
        systemUser: who(op),
      },
      request,
      trx,
    );
  });
}

/** The attempt-gate counters of an account: its sign-ins and passwords, and its MFA codes. */
function lockKeys(account: { id: string }): string[] {
  return [attemptSubject.account(account.id), attemptSubject.mfa(account.id)];
}

export async function accountList(ctx: AppContext, op: Operator, query: z.output<typeof zAccountQuery>) {
  if (query.institutionId && !reaches(op, query.institutionId)) throw notFound(ServerMessage.notFound);
  const { offset, limit } = paging(query);
  const now = ctx.clock.now().toISOString();
  const { rows, total } = await accountPage(
    ctx.db,
    // One institution's people are those its company users see.
    query.institutionId ? [query.institutionId] : op.reach,
    { search: query.search, type: query.type, state: query.state, now },
    offset,
    limit,
  );
  const locks = await locksOf(
    ctx.db,
    rows.flatMap((r) => lockKeys(r)),
    now,
  );
  const vouches = await vouchesOf(
    ctx.db,
    rows.filter((r) => r.type === 'PHYSICIAN').map((r) => r.id),
    op.reach,
  );
  const items: AccountItem[] = rows.map((r) => {
    const until = locks
      .filter((l) => lockKeys(r).includes(l.key))
      .map((l) => l.lockedUntil!)
      .sort()
      .pop();
    return {
      id: r.id,
      type: r.type,
      name: r.name,
      email: r.email,
      cpf: r.cpf ? maskCpf(r.cpf) || null : null,
      crm: r.licenseNumber,
      uf: r.licenseState,
      institution: r.institutionId && r.institutionName ? { id: r.institutionId, name: r.institutionName } : null,
      state: r.disabled === 1 ? 'DISABLED' : r.active === 1 ? 'ACTIVE' : 'NOT_ACTIVATED',
      lockedUntil: until ?? null,
      createdAt: r.createdAt,
      vouchedBy: vouches.filter((v) => v.userId === r.id).map((v) => ({ id: v.id, name: v.name })),
      manageable:
        op.reach === null ||
        (r.institutionId !== null && op.reach.includes(r.institutionId)) ||
        (r.awaitingInstitutionId !== null && op.reach.includes(r.awaitingInstitutionId)),
      awaitingInstitution: r.awaitingInstitutionId !== null,
    };
  });
  return { items, total, page: query.page, size: query.size };
}

/**
 * The account, when the caller may manage it (company users: their institution's company users
 * and physicians, and the accounts waiting for their institution to enable them).
 */
async function reachableAccount(ctx: AppContext, op: Operator, id: string) {
  const account = await findAccount(ctx.db, id);
  if (!account) throw notFound();
  if (op.reach !== null) {
    const own =
      account.institutionId !== null &&
      op.reach.includes(account.institutionId) &&
      (account.type === 'COMPANY' || account.type === 'PHYSICIAN');
    const waiting = account.awaitingInstitutionId !== null && op.reach.includes(account.awaitingInstitutionId);
    if (!own && !waiting) throw notFound();
  }
  if (account.id === op.auth.userId) throw forbidden();
  return account;
}

async function auditAccount(
  ctx: AppContext,
  request: FastifyRequest,
  op: Operator,
  event: string,
  account: { id: string; type: string },
) {
  await recordAudit(
    ctx,
    { event, resource: { type: 'ACCOUNT', id: account.id, accountType: account.type }, systemUser: who(op) },
    request,
  );
}

/**
 * Disables or re-enables an account, ending its sessions either way: disabling shuts them, and
 * enabling again ends any a sign-in in flight made while it was being disabled, which would
 * otherwise come back to life with the account (no request of a disabled account is served, so
 * no session is lost that was in use).
 */
export async function changeAccountDisabled(
  ctx: AppContext,
  request: FastifyRequest,
  op: Operator,
  id: string,
  disabled: boolean,
) {
  const account = await reachableAccount(ctx, op, id);
  await ctx.db.transaction().execute(async (trx) => {
    await setAccountDisabled(trx, id, disabled, ctx.clock.now().toISOString());
    await revokeUserSessions(ctx, id, undefined, trx);
  });
  await auditAccount(ctx, request, op, disabled ? 'ACCOUNT_DISABLED' : 'ACCOUNT_ENABLED', account);
}

export async function unlockAccount(ctx: AppContext, request: FastifyRequest, op: Operator, id: string) {
  const account = await reachableAccount(ctx, op, id);
  await clearLocks(ctx.db, lockKeys(account));
  await auditAccount(ctx, request, op, 'ACCOUNT_UNLOCKED', account);
}

export async function endAccountSessions(ctx: AppContext, request: FastifyRequest, op: Operator, id: string) {
  const account = await reachableAccount(ctx, op, id);
  await revokeUserSessions(ctx, id);
  await auditAccount(ctx, request, op, 'ACCOUNT_SESSIONS_ENDED', account);
}

/** Calls of the institutions' systems to the ingest doors, newest first (company users: their own). */
export async function ingestCallList(ctx: AppContext, op: Operator, query: z.output<typeof zIngestCallQuery>) {
  const { offset, limit } = paging(query);
  const { rows, total } = await ingestCallPage(
    ctx.db,
    op.reach,
    { institutionId: query.institutionId, errorsOnly: query.errors },
    offset,
    limit,
  );
  const items: IngestCallItem[] = rows.map((r) => ({
    id: r.id,
    institution: { id: r.institutionId, name: r.institutionName },
    door: r.door,
    method: r.method,
    path: r.path,
    status: String(r.status),
    failed: Number(r.failed) === 1,
    error: r.error,
    receivedAt: r.receivedAt,
    durationMs: Number(r.durationMs),
  }));
  return { items, total, page: query.page, size: query.size };
}
