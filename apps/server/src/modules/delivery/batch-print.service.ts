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
import { PdfMerger } from './pdf-merge.js';
import { type FileAnswer, printableReports, storedFiles } from './resources.service.js';
import { writeZip, type ZipEntry, zipLength } from './zip-writer.js';

/** Zip entries up to this size are read whole and ahead; larger ones are streamed (memory stays flat). */
const ZIP_READ_AHEAD_MAX_FILE = 1 << 20;

/** `<prefix>_<yyyyMMdd_HHmmss>` in Brazil's time (spec 9). */
export function batchFileName(now: Date, extension: 'pdf' | 'zip'): string {
  const local = new Date(now.getTime() + EXAM_TIME_ZONE_OFFSET_MINUTES * 60_000).toISOString();
  const stamp = `${local.slice(0, 10).replace(/-/g, '')}_${local.slice(11, 19).replace(/:/g, '')}`;
  return `${BATCH_FILE_PREFIX}_${stamp}.${extension}`;
}

function safeSegment(value: string): string {
  return value.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^\.+/, '') || 'file';
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
      plan.map(({ protocol, reports }) => ({
        event: 'BATCH_PRINT',
        tenant: institutions.get(protocol.institutionId)?.code ?? null,
        resource: {
          type: 'BATCH_PRINT',
          protocolNumber: protocol.number,
          format: body.isCompressed ? 'zip' : 'pdf',
          resources: reports.map((r) => ({ id: r.resource.id, type: r.resource.type })),
        },
        protocolId: protocol.id,
        systemUser: auditUser(viewer),
        sharedWith: viewer.sharedWith,
        patients: [auditPatient(protocol)],
      })),
      request,
      trx,
    );
  });

  // A large buffer lets the producer run ahead of the socket instead of yielding every 16 KiB.
  const out = new PassThrough({ highWaterMark: 1 << 20 });
  // The merger hands over thousands of small pieces: gathered into 256 KiB writes, the socket
  // sees a few large sends instead of one system call per PDF object.
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
  // Small files are read whole ahead of the writer; large ones are streamed when their turn comes.
  const wholeFiles = storedFiles(
    ctx,
    plan.flatMap(({ reports }) =>
      reports.map((r) => r.resource).filter((r) => !body.isCompressed || r.size <= ZIP_READ_AHEAD_MAX_FILE),
    ),
  );
  const entries: ZipEntry[] = [];
  for (const { protocol, reports } of plan) {
    const used = new Set<string>();
    for (const { exam, resource } of reports) {
      let base = safeSegment(`${exam.row.examKey}_${resource.type}`);
      for (let n = 2; used.has(base); n++) base = safeSegment(`${exam.row.examKey}_${resource.type}_${n}`);
      used.add(base);
      entries.push({
        name: `${safeSegment(protocol.number)}/${base}.pdf`,
        size: resource.size,
        crc32: resource.crc32,
        open: async () => {
          // Files read ahead are at hand, so a zip would otherwise run from its first entry to its
          // last without returning to the event loop (merges take turns of their own, PdfMerger).
          await setImmediate();
          return resource.size <= ZIP_READ_AHEAD_MAX_FILE ? wholeFiles.next() : ctx.storage.get(resource.storageKey);
        },
      });
    }
  }
  const produce = body.isCompressed
    ? () => writeZip(entries, sink, now)
    : async () => {
        const merger = new PdfMerger(sink);
        await merger.begin();
        for (const { protocol, reports } of plan) {
          merger.bookmark(`${protocol.number} - ${protocol.patientName}`);
          for (const r of reports) {
            if (!(await merger.addDocument(await wholeFiles.next()))) {
              ctx.log.warn({ resourceId: r.resource.id }, 'unreadable PDF left out of a merge');
            }
          }
        }
        await merger.finish();
      };
  void produce()
    .then(flush)
    .then(() => out.end())
    .catch((error: unknown) => {
      ctx.log.error({ err: error }, 'batch printing failed');
      out.destroy(error as Error);
    });
  const extension = body.isCompressed ? 'zip' : 'pdf';
  return {
    status: 200,
    headers: {
      'content-type': body.isCompressed ? 'application/zip' : 'application/pdf',
      'content-disposition': `attachment; filename="${batchFileName(now, extension)}"`,
      // Stored entries of known sizes: the client can show real progress.
      ...(body.isCompressed ? { 'content-length': String(zipLength(entries)) } : {}),
    },
    body: out,
  };
}
