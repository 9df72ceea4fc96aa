import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import type { Db } from '../db/database.js';
import { newId } from '../lib/ids.js';

/** Events the server writes itself (contract 8); `trace/log` adds the client's own. */
export type AuditEventName =
  | 'LOGIN'
  | 'LOGIN_FAILED'
  | 'VIEW_PROTOCOL'
  | 'VIEW_REPORT'
  | 'VIEW_IMAGE'
  | 'DOWNLOAD_SIGNATURE'
  | 'BATCH_PRINT'
  | 'SHARE_CREATED'
  | 'SHARE_REVOKED'
  | 'SHARE_OPENED'
  | 'HISTORY_VIEWED'
  | (string & {});

export interface AuditRecord {
  event: AuditEventName;
  /** Institution code. */
  tenant?: string | null;
  resource?: Record<string, unknown> | null;
  protocolId?: string | null;
  systemUser?: { id: string | null; name: string | null; role?: string | null } | null;
  sharedWith?: string | null;
  patients?: Array<Record<string, unknown>> | null;
  macro?: Record<string, unknown> | null;
  application?: string;
}

/**
 * Appends one record to the audit trail (the table refuses updates and deletes). Pass the
 * transaction that makes the change, so the trace and the change commit together. Without one,
 * the record joins the process's grouped writes (`ctx.writes`): the promise resolves once it is
 * committed, so a caller that awaits it before answering never answers an untraced access.
 */
export async function recordAudit(
  ctx: AppContext,
  record: AuditRecord,
  request?: FastifyRequest,
  db?: Db,
): Promise<void> {
  await recordAudits(ctx, [record], request, db);
}

/** Appends several records of one request in one statement (a batch print traces every protocol). */
export async function recordAudits(
  ctx: AppContext,
  records: readonly AuditRecord[],
  request?: FastifyRequest,
  db?: Db,
): Promise<void> {
  if (records.length === 0) return;
  const rows = auditRows(ctx, records, request);
  if (db) await db.insertInto('auditEvents').values(rows).execute();
  else await ctx.writes.write({ table: 'auditEvents', rows });
}

/** The rows of some records of one request, as the audit table stores them. */
export function auditRows(ctx: AppContext, records: readonly AuditRecord[], request?: FastifyRequest) {
  const occurredAt = ctx.clock.now().toISOString();
  return records.map((record) => ({
    id: newId(),
    occurredAt,
    application: record.application ?? 'results-portal',
    tenant: record.tenant ?? null,
    event: record.event,
    resource: record.resource ? JSON.stringify(record.resource) : null,
    protocolId: record.protocolId ?? null,
    systemUserId: record.systemUser?.id ?? null,
    systemUserName: record.systemUser?.name ?? null,
    role: record.systemUser?.role ?? request?.auth?.role ?? null,
    sharedWith: record.sharedWith ?? null,
    patients: record.patients ? JSON.stringify(record.patients) : null,
    macro: record.macro ? JSON.stringify(record.macro) : null,
    ip: request?.ip ?? null,
    requestId: request?.id ?? null,
  }));
}
