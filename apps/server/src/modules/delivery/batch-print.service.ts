import { PassThrough } from 'node:stream';
import { setImmediate } from 'node:timers/promises';
import { ServerMessage } from '@portal/shared/errors';
import { BATCH_FILE_PREFIX, EXAM_TIME_ZONE_OFFSET_MINUTES, PRINT_MAX_PROTOCOLS } from '@portal/shared/limits';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { badRequest, forbidden } from '../../lib/errors.js';
import type { AuthContext } from '../../plugins/auth.js';
import { recordAudits } from '../../plugins/audit.js';
import { canBatchPrint, readerKey } from './delivery.policy.js';
import { markRead } from './delivery.repository.js';
import {
  auditPatient,
  auditUser,
  authoriseProtocols,
  institutionsOf,
  loadViewer,
  servedExams,
} from './delivery.service.js';
import { attachment, fileNamePart } from '../../lib/file-names.js';
import { mergePdfs } from './pdf-merge.js';
import { noticeLanguage } from './pdf-notice.js';
import {
  type FileAnswer,
  leftOutTrace,
  mergeSources,
  printableReports,
  reportFileStem,
  REPORTS_LEFT_OUT_HEADER,
  storedFileOpeners,
} from './resources.service.js';
import { writeZip, type ZipEntry, zipLength } from './zip-writer.js';

/** `<prefix>_<yyyyMMdd_HHmmss>` in Brazil's time (spec 9). */
export function batchFileName(now: Date, extension: 'pdf' | 'zip'): string {
  const local = new Date(now.getTime() + EXAM_TIME_ZONE_OFFSET_MINUTES * 60_000).toISOString();
  const stamp = `${local.slice(0, 10).replace(/-/g, '')}_${local.slice(11, 19).replace(/:/g, '')}`;
  return `${BATCH_FILE_PREFIX}_${stamp}.${extension}`;
}

/**
 * POST resource/batchPrinting (contract 7-8): the reports of up to 50 protocols as one PDF or a
 * zip with a folder per protocol. Authorises every protocol before a byte is written; marks
 * them read for the printer and traces BATCH_PRINT.
 */
export async function batchPrint(
  ctx: AppContext,
  auth: AuthContext,
  body: { requestIds: string[]; isCompressed: boolean },
  request: FastifyRequest,
): Promise<FileAnswer> {
  const viewer = loadViewer(auth);
  if (!canBatchPrint(viewer.role)) throw forbidden();
  const ids = [...new Set(body.requestIds)];
  if (ids.length === 0) throw badRequest(ServerMessage.listAtLeastOne);
  if (ids.length > PRINT_MAX_PROTOCOLS) throw badRequest(ServerMessage.listAtMostFifty);
  const protocols = await authoriseProtocols(ctx, viewer, ids);
  const exams = await servedExams(ctx, viewer, protocols);
  const plan = protocols.map((p) => ({ protocol: p, reports: printableReports(exams.get(p.id) ?? []) }));

  const key = readerKey(viewer, protocols[0]!);
  const now = ctx.clock.now();
  const institutions = await institutionsOf(
    ctx,
    viewer,
    protocols.map((p) => p.institutionId),
  );
  const language = noticeLanguage(request.headers['accept-language']);
  // The PDF is merged before anything is recorded: the trace lists the reports it could not include.
  const merged = body.isCompressed
    ? null
    : await mergePdfs(
        mergeSources(ctx, plan, language).map((sources, i) => ({
          title: `${plan[i]!.protocol.number} - ${plan[i]!.protocol.patientName}`,
          sources,
        })),
        language,
      );
  const leftOut = new Set(merged?.leftOut.map((l) => l.resourceId));
  try {
    await ctx.db.transaction().execute(async (trx) => {
      if (key) {
        await markRead(
          trx,
          key,
          [...exams.values()].flat().map((e) => e.row.id),
          now.toISOString(),
        );
      }
      await recordAudits(
        ctx,
        plan.map(({ protocol, reports }) => {
          const missing = (merged?.leftOut ?? []).filter((l) => reports.some((r) => r.resource.id === l.resourceId));
          return {
            event: 'BATCH_PRINT',
            tenant: institutions.get(protocol.institutionId)?.code ?? null,
            resource: {
              type: 'BATCH_PRINT',
              protocolNumber: protocol.number,
              format: body.isCompressed ? 'zip' : 'pdf',
              resources: reports.map((r) => ({ id: r.resource.id, type: r.resource.type })),
              ...leftOutTrace(missing),
            },
            protocolId: protocol.id,
            systemUser: auditUser(viewer),
            sharedWith: viewer.sharedWith,
            patients: [auditPatient(protocol)],
          };
        }),
        request,
        trx,
      );
    });
  } catch (error) {
    merged?.body.destroy();
    throw error;
  }
  if (merged) {
    if (leftOut.size > 0) ctx.log.warn({ leftOut: merged.leftOut.length }, 'reports left out of a batch print');
    return {
      status: 200,
      headers: {
        'content-type': 'application/pdf',
        'content-disposition': attachment(batchFileName(now, 'pdf')),
        'content-length': String(merged.length),
        [REPORTS_LEFT_OUT_HEADER]: String(merged.leftOut.length),
      },
      body: merged.body,
    };
  }

  // A large buffer lets the producer run ahead of the socket instead of yielding every 16 KiB.
  const out = new PassThrough({ highWaterMark: 1 << 20 });
  // The zip writer hands over small headers between entries: gathered into 256 KiB writes, the
  // socket sees a few large sends instead of one system call per header.
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  const flush = async () => {
    if (pendingBytes === 0) return;
    const chunk = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    if (!out.write(chunk)) await new Promise((resolve) => out.once('drain', resolve));
  };
  const sink = async (chunk: Uint8Array) => {
    pending.push(chunk);
    pendingBytes += chunk.length;
    if (pendingBytes >= 1 << 18) await flush();
  };
  const openers = storedFileOpeners(
    ctx,
    plan.flatMap(({ reports }) => reports.map((r) => r.resource)),
  );
  const entries: ZipEntry[] = [];
  let index = 0;
  for (const { protocol, reports } of plan) {
    const folder = fileNamePart(protocol.number, 'protocolo');
    const used = new Set<string>();
    for (const { exam, resource } of reports) {
      const stem = reportFileStem(exam, resource, language);
      let base = stem;
      for (let n = 2; used.has(base.toLowerCase()); n++) base = `${stem} (${n})`;
      used.add(base.toLowerCase());
      const open = openers[index++]!;
      entries.push({
        name: `${folder}/${base}.pdf`,
        size: resource.size,
        crc32: resource.crc32,
        open: async () => {
          // Files read ahead are at hand, so a zip would otherwise run from its first entry to its
          // last without returning to the event loop.
          await setImmediate();
          return open();
        },
      });
    }
  }
  void writeZip(entries, sink, now)
    .then(flush)
    .then(() => out.end())
    .catch((error: unknown) => {
      ctx.log.error({ err: error }, 'batch printing failed');
      out.destroy(error as Error);
    });
  return {
    status: 200,
    headers: {
      'content-type': 'application/zip',
      'content-disposition': attachment(batchFileName(now, 'zip')),
      // Stored entries of known sizes: the client can show real progress.
      'content-length': String(zipLength(entries)),
    },
    body: out,
  };
}
