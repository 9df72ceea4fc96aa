import { PAGE_SIZE_MAX, TRACE_LIMITS } from '@portal/shared/limits';
import { ServerMessage } from '@portal/shared/errors';
import type { z } from 'zod';
import type { zTraceRecord } from '@portal/shared/schemas/delivery';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { AppError, forbidden } from '../../lib/errors.js';
import { countCall } from '../../plugins/call-rate.js';
import type { AuthContext } from '../../plugins/auth.js';
import { recordAudit } from '../../plugins/audit.js';
import { canReadTrace, canSeeProtocol } from './delivery.policy.js';
import { protocolFacts } from './delivery.repository.js';
import { loadAnyViewer } from './delivery.service.js';
import { auditTrail, protocolsForTrace } from './trace.repository.js';

type TraceRecord = z.output<typeof zTraceRecord>;

const SECRET_KEY = /pass(word)?|token|secret|authorization|cookie/i;

/** Contract 2: passwords and tokens never reach a trace, whatever the client sends. */
export function withoutSecrets(value: unknown, depth = 0): unknown {
  if (depth > 8) return null;
  if (Array.isArray(value)) return value.map((v) => withoutSecrets(v, depth + 1));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [
        k,
        SECRET_KEY.test(k) ? '[REDACTED]' : withoutSecrets(v, depth + 1),
      ]),
    );
  }
  return value;
}

function protocolIdOf(resource: unknown): string | null {
  if (!resource || typeof resource !== 'object') return null;
  const r = resource as Record<string, unknown>;
  const id = r.requestId ?? r.protocolId;
  return typeof id === 'string' ? id : null;
}

/**
 * POST trace/log and trace/log/all: the client's own events. The server's view of who sent them
 * wins over the body's, and an event names a protocol only when the sender may see it, so a
 * client cannot write into another protocol's trail.
 */
export async function logClientEvents(
  ctx: AppContext,
  auth: AuthContext,
  records: TraceRecord[],
  request: FastifyRequest,
): Promise<number> {
  // Any session may trace, a guest's too: its calls are paced and each record kept small.
  await countCall(ctx, `trace:${auth.sessionId}`, { max: TRACE_LIMITS.callsPerMinute, windowMs: 60_000 });
  records.forEach((record, index) => {
    const bytes = Buffer.byteLength(JSON.stringify(record));
    if (bytes > TRACE_LIMITS.recordBytes) {
      throw new AppError(413, ServerMessage.payloadTooLarge, {
        record: index,
        bytes,
        maxBytes: TRACE_LIMITS.recordBytes,
      });
    }
  });
  const viewer = loadAnyViewer(auth);
  await ctx.db.transaction().execute(async (trx) => {
    for (const record of records) {
      const candidate = protocolIdOf(record.resource);
      const facts = candidate ? await protocolFacts(trx, candidate) : undefined;
      const protocolId = facts && canSeeProtocol(viewer, facts) ? facts.id : null;
      const resource = withoutSecrets(record.resource);
      await recordAudit(
        ctx,
        {
          event: record.event,
          application: record.application ?? 'results-portal-web',
          tenant: record.tenant ?? null,
          resource:
            resource && typeof resource === 'object'
              ? (resource as Record<string, unknown>)
              : { value: resource ?? null },
          protocolId,
          systemUser: { id: viewer.userId, name: viewer.name, role: viewer.role },
          sharedWith: viewer.sharedWith ?? record.sharedWith ?? null,
          patients: (withoutSecrets(record.patients ?? null) as Array<Record<string, unknown>> | null) ?? null,
          macro: {
            client: withoutSecrets(record.macro ?? null),
            occurredAt: record.occurredAt ?? null,
            pixeonId: record.pixeonId ?? null,
            systemUser: record.systemUser ?? null,
            source: 'client',
          },
        },
        request,
        trx,
      );
    }
  });
  return records.length;
}

function parseJson(value: string | null): unknown {
  if (value === null) return null;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** GET /api/administrationbe/trace?protocol=: admins everywhere, company users for their institution. */
export async function protocolTrace(
  ctx: AppContext,
  auth: AuthContext,
  query: { protocol: string; page: number; size?: number },
) {
  if (auth.role !== 'ADMIN' && auth.role !== 'COMPANY') throw forbidden();
  const viewer = loadAnyViewer(auth);
  const protocols = (await protocolsForTrace(ctx.db, query.protocol)).filter((p) =>
    canReadTrace(auth.role, viewer.institutionId, p.institutionId),
  );
  const size = Math.min(query.size ?? 20, PAGE_SIZE_MAX);
  const { rows, total } = await auditTrail(
    ctx.db,
    protocols.map((p) => p.id),
    (query.page - 1) * size,
    size,
  );
  return {
    items: rows.map((r) => ({
      id: r.id,
      occurredAt: r.occurredAt,
      application: r.application,
      tenant: r.tenant,
      event: r.event,
      resource: parseJson(r.resource),
      systemUser: { id: r.systemUserId, name: r.systemUserName, role: r.role },
      sharedWith: r.sharedWith,
      patients: parseJson(r.patients),
      macro: parseJson(r.macro),
    })),
    total,
    page: query.page,
    size,
  };
}
