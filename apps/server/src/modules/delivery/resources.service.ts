import type { Readable } from 'node:stream';
import { formatVerificationCode, type SignatureCheck } from '@portal/shared/schemas/signatures';
import { EXAM_TIME_ZONE_OFFSET_MINUTES } from '@portal/shared/limits';
import { ServerMessage } from '@portal/shared/errors';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { readAhead } from '../../lib/read-ahead.js';
import { AppError, conflict, notFound } from '../../lib/errors.js';
import type { AuthContext } from '../../plugins/auth.js';
import { recordAudit } from '../../plugins/audit.js';
import type { ByteRange } from '../../plugins/storage.js';
import { isExamServed, isReportWithheld, readerKey } from './delivery.policy.js';
import { isWithheld } from './holds.js';
import { markReadGrouped, readResourceForOpening, type ProtocolRow, type ResourceRow } from './delivery.repository.js';
import {
  auditPatient,
  auditUser,
  authorisedProtocol,
  type DeliveryViewer,
  institutionOf,
  loadViewer,
  type ServedExam,
  servedExams,
} from './delivery.service.js';
import { type LeftOut, type MergeSource, mergePdfs } from './pdf-merge.js';
import { type NoticeLanguage, noticeLanguage } from './pdf-notice.js';
import { attachment, fileNamePart } from '../../lib/file-names.js';
import { checkResourceSignature } from '../signatures/signature-check.service.js';
import { STAMP_MAX_BYTES, stampReport } from '../signatures/margin-stamp.js';
import { createHash } from 'node:crypto';
import { buffer } from 'node:stream/consumers';

/** How many reports a merged PDF could not include (each has a page saying so in its place). */
export const REPORTS_LEFT_OUT_HEADER = 'x-reports-left-out';

export interface FileAnswer {
  status: 200 | 206;
  headers: Record<string, string>;
  /** A small file whole (one read, one write to the socket), a large one or a range as a stream. */
  body: Readable | Buffer;
}

type ResourceKind = 'report' | 'image' | 'signature';
const TYPES_OF: Record<ResourceKind, ReadonlyArray<string>> = {
  report: ['REPORT', 'REPORT_PHYSICIAN', 'ANALYSIS'],
  image: ['IMAGE'],
  signature: ['REPORT', 'REPORT_PHYSICIAN', 'ANALYSIS', 'IMAGE'],
};
const AUDIT_EVENT: Record<ResourceKind, string> = {
  report: 'VIEW_REPORT',
  image: 'VIEW_IMAGE',
  signature: 'DOWNLOAD_SIGNATURE',
};
const EXTENSION: Record<string, string> = {
  'application/pdf': 'pdf',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'application/dicom': 'dcm',
  'application/pkcs7-signature': 'p7s',
};

const PHYSICIAN_WORD: Record<NoticeLanguage, string> = { 'pt-br': 'médico', es: 'médico', en: 'physician' };
const SIGNED_WORD: Record<NoticeLanguage, string> = { 'pt-br': 'assinado', es: 'firmado', en: 'signed' };
const REPORTS_WORD: Record<NoticeLanguage, string> = { 'pt-br': 'laudos', es: 'informes', en: 'reports' };

/**
 * How a report, image or signature file is named for people, in a zip and in a download:
 * `<exam description> - <yyyy-mm-dd>`, with `- médico` for the physician's copy ("João" and
 * "São Paulo" as written); the exam's key when the description leaves nothing.
 */
export function reportFileStem(
  exam: Pick<ServedExam, 'row'>,
  resource: Pick<ResourceRow, 'type'>,
  language: NoticeLanguage,
): string {
  const date = examDate(exam.row.performedAt);
  const kind = resource.type === 'REPORT_PHYSICIAN' ? PHYSICIAN_WORD[language] : null;
  return fileNamePart([exam.row.description, date, kind].filter(Boolean).join(' - '), exam.row.examKey);
}

/** A download's name: the protocol's number, then what the file is. */
function downloadName(protocol: ProtocolRow, stem: string, extension: string): string {
  return `${fileNamePart(protocol.number, 'protocolo')} - ${stem}.${extension}`;
}

/** Parses a single `bytes=` range; multi-range and unsatisfiable requests follow RFC 9110. */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}

/** What an audit record says of the reports a merged PDF could not include (nothing when none). */
export function leftOutTrace(leftOut: readonly LeftOut[]): { leftOut?: Array<{ id: string; reason: string }> } {
  return leftOut.length > 0 ? { leftOut: leftOut.map((l) => ({ id: l.resourceId, reason: l.reason })) } : {};
}

/**
 * Finds a resource the viewer may open: authorise the protocol first, then the exam's serving
 * rules (enabled, its type not switched off by the institution, images not hidden, reports not
 * withheld, results not held from the viewer). The resource, its exam and its protocol read together
 * (`readResourceForOpening`); the institution's settings from memory.
 */
async function authoriseResource(ctx: AppContext, viewer: DeliveryViewer, resourceId: string, kind: ResourceKind) {
  const found = await readResourceForOpening(ctx.database.reader, resourceId);
  if (!found || !TYPES_OF[kind].includes(found.resource.type)) throw notFound();
  const protocol = authorisedProtocol(viewer, found.protocol);
  const institution = await institutionOf(ctx, viewer, protocol.institutionId);
  const setting = institution?.visualizer.get(found.exam.type);
  if (!isExamServed({ isEnabled: found.exam.isEnabled === 1 }, setting)) throw notFound();
  if (kind === 'image' && setting?.hideButton) throw notFound();
  const isReport = found.resource.type === 'REPORT' || found.resource.type === 'REPORT_PHYSICIAN';
  if (isReport && isReportWithheld(found.exam)) throw conflict(ServerMessage.reportAwaitingRectification);
  // Release holds: a result held from the viewer opens no file of it (report, image or signature).
  if (isWithheld(viewer, protocol, found.exam, institution?.holds, ctx.clock.now())) {
    throw conflict(ServerMessage.resultHeld);
  }
  return { protocol, exam: found.exam, institution, resource: found.resource };
}

async function audit(
  ctx: AppContext,
  request: FastifyRequest,
  viewer: DeliveryViewer,
  protocol: ProtocolRow,
  event: string,
  resources: ResourceRow[],
  leftOut: readonly LeftOut[] = [],
) {
  const institution = await institutionOf(ctx, viewer, protocol.institutionId);
  // Grouped with the other calls' writes of this turn; resolves once committed.
  await recordAudit(
    ctx,
    {
      event,
      tenant: institution?.code ?? null,
      resource: {
        type: 'RESOURCE',
        protocolNumber: protocol.number,
        resources: resources.map((r) => ({ id: r.id, type: r.type, identifier: r.identifier })),
        ...leftOutTrace(leftOut),
      },
      protocolId: protocol.id,
      systemUser: auditUser(viewer),
      sharedWith: viewer.sharedWith,
      patients: [auditPatient(protocol)],
    },
    request,
  );
}

async function fileAnswer(
  ctx: AppContext,
  key: string,
  size: number,
  contentType: string,
  name: string,
  rangeHeader: string | undefined,
): Promise<FileAnswer> {
  const range = parseRange(rangeHeader, size);
  const headers: Record<string, string> = {
    'content-type': contentType,
    'content-disposition': attachment(name),
    'accept-ranges': 'bytes',
  };
  if (range === 'unsatisfiable') {
    throw new AppError(416, ServerMessage.validation, undefined, { 'content-range': `bytes */${size}` });
  }
  let body: Readable | Buffer;
  try {
    // A report is read whole (a known size, one read), larger files and ranges are streamed.
    body =
      !range && size <= READ_AHEAD_MAX_FILE ? await ctx.storage.read(key, size) : await ctx.storage.get(key, range);
  } catch {
    throw notFound(ServerMessage.resourceUnavailable);
  }
  if (range) {
    headers['content-range'] = `bytes ${range.start}-${range.end}/${size}`;
    headers['content-length'] = String(range.end - range.start + 1);
    return { status: 206, headers, body };
  }
  headers['content-length'] = String(size);
  return { status: 200, headers, body };
}

/** GET resource/report|image|signature: one file, marked read for the viewer and traced. */
export async function openResource(
  ctx: AppContext,
  auth: AuthContext,
  kind: ResourceKind,
  query: { resourceId: string; showAll?: boolean; stamp?: boolean; request?: string },
  request: FastifyRequest,
): Promise<FileAnswer> {
  const viewer = loadViewer(auth);
  const { protocol, exam, resource } = await authoriseResource(ctx, viewer, query.resourceId, kind);
  // A request naming another protocol than the resource's is a probe, not a mistake worth serving.
  if (query.request && query.request !== protocol.id) throw notFound();
  if (kind === 'report' && query.showAll) return showAll(ctx, viewer, protocol, request);
  const key = readerKey(viewer, protocol);
  // The read mark and the trace join the same grouped commit; the file is sent once both are committed.
  await Promise.all([
    key && kind !== 'signature'
      ? markReadGrouped(
          { writes: ctx.writes, reader: ctx.database.reader },
          key,
          [exam.id],
          ctx.clock.now().toISOString(),
        )
      : undefined,
    audit(ctx, request, viewer, protocol, AUDIT_EVENT[kind], [resource]),
  ]);
  const language = noticeLanguage(request.headers['accept-language']);
  const stem = reportFileStem({ row: exam }, resource, language);
  if (kind === 'signature') {
    if (!resource.signedStorageKey || resource.signedSize === null) throw notFound(ServerMessage.resourceUnavailable);
    const type = resource.signedContentType ?? 'application/octet-stream';
    const name = downloadName(protocol, `${stem} - ${SIGNED_WORD[language]}`, EXTENSION[type] ?? 'bin');
    return fileAnswer(ctx, resource.signedStorageKey, resource.signedSize, type, name, request.headers.range);
  }
  const name = downloadName(protocol, stem, EXTENSION[resource.contentType] ?? 'bin');
  if (kind === 'report' && query.stamp) {
    const stamped = await stampedAnswer(ctx, resource, name, language);
    if (stamped) return stamped;
  }
  return fileAnswer(ctx, resource.storageKey, resource.size, resource.contentType, name, request.headers.range);
}

/**
 * Issue 22.3, "when asked": the signature of a resource's signed file checked again now (the
 * trust roots and CRLs may have changed since it arrived), with the report's verification code.
 * Authorised like the signed file's download and traced.
 */
export async function verifyResourceSignature(
  ctx: AppContext,
  auth: AuthContext,
  resourceId: string,
  request: FastifyRequest,
): Promise<{ resourceId: string; verificationCode: string; check: SignatureCheck | null }> {
  const viewer = loadViewer(auth);
  const { protocol, resource } = await authoriseResource(ctx, viewer, resourceId, 'signature');
  if (!resource.signedStorageKey) throw notFound(ServerMessage.resourceUnavailable);
  const [check] = await Promise.all([
    checkResourceSignature(ctx, resource),
    audit(ctx, request, viewer, protocol, 'VERIFY_SIGNATURE', [resource]),
  ]);
  return {
    resourceId: resource.id,
    verificationCode: resource.verificationCode ? formatVerificationCode(resource.verificationCode) : '',
    check,
  };
}

/** The report PDFs of a protocol in print order (contract 8): REPORT files, then REPORT_PHYSICIAN files. */
export function printableReports(exams: readonly ServedExam[]): Array<{ exam: ServedExam; resource: ResourceRow }> {
  const sorted = [...exams]
    .filter((e) => !isReportWithheld(e.row))
    .sort((a, b) => {
      const pa = a.row.performedAt ?? '\uffff';
      const pb = b.row.performedAt ?? '\uffff';
      return pa < pb ? -1 : pa > pb ? 1 : a.row.position - b.row.position;
    });
  const out: Array<{ exam: ServedExam; resource: ResourceRow }> = [];
  // Within a protocol every REPORT comes first, then the REPORT_PHYSICIAN files, each by exam date.
  for (const type of ['REPORT', 'REPORT_PHYSICIAN']) {
    for (const exam of sorted) {
      for (const r of exam.resources) {
        if (r.type === type && r.contentType === 'application/pdf') out.push({ exam, resource: r });
      }
    }
  }
  return out;
}

/** Files up to this size are read whole and ahead of the merge or zip; larger ones are streamed. */
export const READ_AHEAD_MAX_FILE = 1 << 20;

/**
 * How each stored file is opened, in the order given: small files are read whole ahead of the
 * one being written (`lib/read-ahead.ts`), large ones streamed when their turn comes, so memory
 * stays flat. Each `open` must be called once, in order.
 */
export function storedFileOpeners(
  ctx: AppContext,
  resources: ReadonlyArray<{ storageKey: string; size: number }>,
): Array<() => Promise<Buffer | Readable>> {
  const small = resources.filter((r) => r.size <= READ_AHEAD_MAX_FILE);
  const ahead = readAhead(
    small,
    (r) => r.size,
    (r) => ctx.storage.read(r.storageKey),
  );
  return resources.map((r) => () => (r.size <= READ_AHEAD_MAX_FILE ? ahead.next() : ctx.storage.get(r.storageKey)));
}

/** The exam's date in Brazil's time, `yyyy-mm-dd`, or null when it was not performed yet. */
export function examDate(performedAt: string | null): string | null {
  if (!performedAt) return null;
  const local = new Date(new Date(performedAt).getTime() + EXAM_TIME_ZONE_OFFSET_MINUTES * 60_000);
  return Number.isNaN(local.getTime()) ? null : local.toISOString().slice(0, 10);
}

/**
 * The reports of protocols as merge sources, named as a notice page calls them. Each report up to
 * STAMP_MAX_BYTES enters the merge as a copy with its verification code and QR code in a strip
 * below its pages (issue 22.3); larger ones, and PDFs pdf-lib cannot read, enter as they are.
 */
export function mergeSources(
  ctx: AppContext,
  groups: ReadonlyArray<{ protocol: ProtocolRow; reports: ReadonlyArray<{ exam: ServedExam; resource: ResourceRow }> }>,
  language: NoticeLanguage,
): MergeSource[][] {
  const stamped = (r: ResourceRow) => r.verificationCode !== null && r.size <= STAMP_MAX_BYTES;
  // Files on this machine's disk are read by qpdf where they are stored; others are read ahead and copied.
  const local = ctx.storage.localPath?.bind(ctx.storage);
  const all = groups.flatMap((g) => g.reports.map((r) => r.resource));
  const openers = storedFileOpeners(
    ctx,
    all.filter((r) => !local || stamped(r)),
  );
  let i = 0;
  return groups.map(({ protocol, reports }) =>
    reports.map(({ exam, resource }) => {
      const date = examDate(exam.row.performedAt);
      const read = !local || stamped(resource) ? openers[i++]! : () => ctx.storage.get(resource.storageKey);
      return {
        protocolNumber: protocol.number,
        report: date ? `${exam.row.description}, ${date.split('-').reverse().join('/')}` : exam.row.description,
        resourceId: resource.id,
        size: resource.size,
        ...(local && !stamped(resource) ? { path: local(resource.storageKey) } : {}),
        open: stamped(resource)
          ? async () => {
              const opened = await read();
              const original = Buffer.isBuffer(opened) ? opened : await buffer(opened);
              return (
                (await stampReport(original, resource.verificationCode!, ctx.config.publicUrl, language)) ?? original
              );
            }
          : read,
      };
    }),
  );
}

/**
 * `stamp=true`: a copy of a PDF report with its verification code and QR code in the margin, to
 * download and print; the SHA-256 of each copy is kept so `/validar` recognises it. The stored
 * report (what a detached signature covers) is served unchanged without it.
 */
async function stampedAnswer(
  ctx: AppContext,
  resource: ResourceRow,
  name: string,
  language: NoticeLanguage,
): Promise<FileAnswer | null> {
  if (resource.contentType !== 'application/pdf' || !resource.verificationCode || resource.size > STAMP_MAX_BYTES) {
    return null;
  }
  const copy = await stampReport(
    await ctx.storage.read(resource.storageKey, resource.size),
    resource.verificationCode,
    ctx.config.publicUrl,
    language,
  );
  if (!copy) return null;
  // Every copy handed out stays recognisable: kept once per distinct copy (language, address).
  await ctx.db
    .insertInto('stampedCopies')
    .values({
      resourceId: resource.id,
      sha256: createHash('sha256').update(copy).digest('hex'),
      language,
      createdAt: ctx.clock.now().toISOString(),
    })
    .onConflict((oc) => oc.columns(['resourceId', 'sha256']).doNothing())
    .execute();
  return {
    status: 200,
    headers: {
      'content-type': 'application/pdf',
      'content-disposition': attachment(name),
      'content-length': String(copy.length),
    },
    body: copy,
  };
}

/** showAll=true: every available report of the protocol merged in one PDF; all marked read (spec 4.2). */
async function showAll(
  ctx: AppContext,
  viewer: DeliveryViewer,
  protocol: ProtocolRow,
  request: FastifyRequest,
): Promise<FileAnswer> {
  const exams = (await servedExams(ctx, viewer, [protocol])).get(protocol.id) ?? [];
  const reports = printableReports(exams);
  // Merged before anything is recorded: the trace lists what could not be included.
  const language = noticeLanguage(request.headers['accept-language']);
  const [sources] = mergeSources(ctx, [{ protocol, reports }], language);
  const merged = await mergePdfs([{ title: null, sources: sources! }], language);
  try {
    const key = readerKey(viewer, protocol);
    await Promise.all([
      key
        ? markReadGrouped(
            { writes: ctx.writes, reader: ctx.database.reader },
            key,
            reports.map((r) => r.exam.row.id),
            ctx.clock.now().toISOString(),
          )
        : undefined,
      audit(
        ctx,
        request,
        viewer,
        protocol,
        'VIEW_REPORT',
        reports.map((r) => r.resource),
        merged.leftOut,
      ),
    ]);
  } catch (error) {
    merged.body.destroy();
    throw error;
  }
  return {
    status: 200,
    headers: {
      'content-type': 'application/pdf',
      'content-disposition': attachment(downloadName(protocol, REPORTS_WORD[language], 'pdf')),
      'content-length': String(merged.length),
      [REPORTS_LEFT_OUT_HEADER]: String(merged.leftOut.length),
    },
    body: merged.body,
  };
}
