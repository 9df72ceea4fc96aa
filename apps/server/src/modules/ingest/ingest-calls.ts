import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { newId } from '../../lib/ids.js';
import { deleteIngestCallsBefore, insertIngestCall } from './ingest-calls.repository.js';

/** How long the calls are kept: the console shows the last day's, a month helps to follow a problem. */
const KEEP_MS = 30 * 24 * 3600_000;
const PRUNE_EVERY_MS = 3600_000;

/** What an error answer said, without values the caller sent: its message and the fields named. */
function errorOf(payload: string): string {
  try {
    const body = JSON.parse(payload) as { message?: unknown; data?: unknown };
    const message = typeof body.message === 'string' ? body.message : '';
    const fields = Array.isArray(body.data)
      ? body.data
          .map((d: { field?: unknown; message?: unknown }) =>
            [typeof d.field === 'string' ? d.field : '', typeof d.message === 'string' ? d.message : '']
              .filter(Boolean)
              .join(': '),
          )
          .filter(Boolean)
      : [];
    return [message, fields.length ? `(${fields.join('; ')})` : ''].filter(Boolean).join(' ').slice(0, 500);
  } catch {
    return payload.slice(0, 200);
  }
}

/** The HTTP ingest door of a request, or null (HL7 over HTTPS is kept whole in `hl7_messages`). */
function doorOf(request: FastifyRequest): 'JSON' | 'FHIR' | 'DICOMweb' | null {
  if (request.url.startsWith('/api/fhir/')) return 'FHIR';
  if (request.url.startsWith('/api/dicomweb/')) return 'DICOMweb';
  if (request.url.startsWith('/api/v2/delivery/ingest/hl7')) return null;
  return 'JSON';
}

/**
 * Keeps every call an institution's system makes to an ingest door (JSON, FHIR, DICOMweb STOW) once its API key named the
 * institution (a call with a wrong key belongs to nobody): method, path, answer status, the
 * error's message and the time taken. The administration console shows them per institution.
 */
export function recordIngestCalls(app: FastifyInstance, ctx: AppContext): void {
  const errors = new WeakMap<FastifyRequest, string>();
  let prunedAt = 0;
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.ingestInstitution && reply.statusCode >= 400 && typeof payload === 'string') {
      errors.set(request, errorOf(payload));
    }
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => {
    const institution = request.ingestInstitution;
    const door = institution ? doorOf(request) : null;
    if (!institution || !door) return;
    const now = ctx.clock.now();
    try {
      await insertIngestCall(ctx.db, {
        id: newId(),
        institutionId: institution.id,
        door,
        method: request.method,
        path: request.url.split('?')[0]!.slice(0, 500),
        status: reply.statusCode,
        error: errors.get(request) ?? null,
        receivedAt: new Date(now.getTime() - Math.round(reply.elapsedTime)).toISOString(),
        durationMs: Math.round(reply.elapsedTime),
      });
      if (now.getTime() - prunedAt > PRUNE_EVERY_MS) {
        prunedAt = now.getTime();
        await deleteIngestCallsBefore(ctx.db, new Date(now.getTime() - KEEP_MS).toISOString());
      }
    } catch (error) {
      // The call was answered already; a lost log line must not turn into an error of its own.
      request.log.warn({ err: error }, 'ingest call not recorded');
    }
  });
}
