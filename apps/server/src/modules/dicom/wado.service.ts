import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { notFound } from '../../lib/errors.js';
import type { AuthContext } from '../../plugins/auth.js';
import { recordAudit } from '../../plugins/audit.js';
import { readerKey } from '../delivery/delivery.policy.js';
import { examById, markRead, type ProtocolRow } from '../delivery/delivery.repository.js';
import {
  auditPatient,
  auditUser,
  authoriseProtocol,
  type DeliveryViewer,
  institutionOf,
  loadViewer,
  type ServedExam,
  servedExams,
} from '../delivery/delivery.service.js';
import { dicomCodecs } from './dicom-codecs.js';
import { frameMediaType } from './transfer-syntax.js';
import {
  examsOfAccession,
  findSeries,
  type InstanceRow,
  instancesOf,
  recordStudyOpen,
  seriesOfStudy,
  type SeriesSummary,
  studiesByUid,
  studiesOfExamKeys,
  type StudyRow,
} from './dicom.repository.js';
import type { RenderOptions } from './render.js';

export const DICOMWEB_BASE = '/api/dicomweb';

/** A study the viewer may open, with the protocol and exam that let it. */
export interface OpenedStudy {
  viewer: DeliveryViewer;
  study: StudyRow;
  protocol: ProtocolRow;
  exam: ServedExam;
}

type Json = Record<string, unknown>;
const el = (vr: string, ...values: unknown[]) => (values.length && values[0] !== null ? { vr, Value: values } : { vr });

/** Served like the exam's other files: protocol first (spec 6), then the exam's serving rules. */
async function servedExam(ctx: AppContext, viewer: DeliveryViewer, protocolId: string, examId: string) {
  const protocol = await authoriseProtocol(ctx, viewer, protocolId);
  const served = (await servedExams(ctx, viewer, [protocol])).get(protocol.id) ?? [];
  const exam = served.find((e) => e.row.id === examId);
  // The institution's visualizer setting that hides the image button hides the study too, and so
  // does a release hold on the result.
  if (!exam || exam.setting?.hideButton || exam.hold?.withheld) throw notFound();
  return { protocol, exam };
}

/**
 * Authorises first: the study when one of the exams its Accession Number joins is the viewer's,
 * else 404 exactly like a study that does not exist (another patient's study included).
 */
export async function authoriseStudy(ctx: AppContext, auth: AuthContext, studyUid: string): Promise<OpenedStudy> {
  const viewer = loadViewer(auth);
  for (const study of await studiesByUid(ctx.db, studyUid)) {
    for (const exam of await examsOfAccession(ctx.db, study.institutionId, study.accessionNumber)) {
      try {
        return { viewer, study, ...(await servedExam(ctx, viewer, exam.protocolId, exam.id)) };
      } catch (error) {
        if ((error as { statusCode?: number }).statusCode !== 404) throw error;
      }
    }
  }
  throw notFound();
}

// Sessions that already opened a study in this process: no database write per frame.
const opened = new Set<string>();
const OPENED_MAX = 50_000;

/**
 * The study is being looked at: traced once per session and study (not once per frame, whatever
 * the number of processes), and its exam marked read for the viewer.
 */
export async function noteStudyOpened(ctx: AppContext, found: OpenedStudy, request: FastifyRequest): Promise<void> {
  const { viewer, study, protocol, exam } = found;
  const memo = `${viewer.sessionId}:${study.id}`;
  if (opened.has(memo)) return;
  const now = ctx.clock.now().toISOString();
  if (await recordStudyOpen(ctx.db, viewer.sessionId, study.id, now)) {
    const key = readerKey(viewer, protocol);
    if (key) await markRead(ctx.db, key, [exam.row.id], now);
    const institution = await institutionOf(ctx, viewer, protocol.institutionId);
    await recordAudit(
      ctx,
      {
        event: 'VIEW_IMAGE',
        tenant: institution?.code ?? null,
        resource: {
          type: 'DICOM_STUDY',
          protocolNumber: protocol.number,
          examKey: exam.row.examKey,
          studyInstanceUid: study.studyUid,
        },
        protocolId: protocol.id,
        systemUser: auditUser(viewer),
        sharedWith: viewer.sharedWith,
        patients: [auditPatient(protocol)],
      },
      request,
    );
  }
  if (opened.size >= OPENED_MAX) opened.clear();
  opened.add(memo);
}

function studyUrl(ctx: AppContext, studyUid: string) {
  return `${ctx.config.publicUrl}${DICOMWEB_BASE}/studies/${studyUid}`;
}

function studyJson(ctx: AppContext, study: StudyRow, series: SeriesSummary[]): Json {
  const modalities = [...new Set(series.map((s) => s.modality).filter((m): m is string => !!m))];
  return {
    '00080020': el('DA', study.studyDate),
    '00080030': el('TM', study.studyTime),
    '00080050': el('SH', study.accessionNumber),
    '00080061': el('CS', ...modalities),
    '00081030': el('LO', study.studyDescription),
    '00081190': el('UR', studyUrl(ctx, study.studyUid)),
    '00100010': study.patientName ? el('PN', { Alphabetic: study.patientName }) : el('PN'),
    '00100020': el('LO', study.patientId),
    '0020000D': el('UI', study.studyUid),
    '00201206': el('IS', series.length),
    '00201208': el(
      'IS',
      series.reduce((n, s) => n + s.instanceCount, 0),
    ),
  };
}

function seriesJson(ctx: AppContext, study: StudyRow, s: SeriesSummary): Json {
  return {
    '00080060': el('CS', s.modality),
    '0008103E': el('LO', s.seriesDescription),
    '00081190': el('UR', `${studyUrl(ctx, study.studyUid)}/series/${s.seriesUid}`),
    '0020000D': el('UI', study.studyUid),
    '0020000E': el('UI', s.seriesUid),
    '00200011': el('IS', s.seriesNumber),
    '00201209': el('IS', s.instanceCount),
  };
}

function instanceJson(ctx: AppContext, study: StudyRow, seriesUid: string, i: InstanceRow): Json {
  return {
    '00080016': el('UI', i.sopClassUid),
    '00080018': el('UI', i.sopUid),
    '00081190': el('UR', `${studyUrl(ctx, study.studyUid)}/series/${seriesUid}/instances/${i.sopUid}`),
    '00083002': el('UI', i.transferSyntaxUid),
    '0020000D': el('UI', study.studyUid),
    '0020000E': el('UI', seriesUid),
    '00200013': el('IS', i.instanceNumber),
    '00280008': el('IS', i.numberOfFrames),
    '00280010': el('US', i.rows),
    '00280011': el('US', i.columns),
  };
}

/** QIDO-RS studies of one exam the viewer may see (the viewer's way from an exam to its images). */
export async function studiesOfExam(ctx: AppContext, auth: AuthContext, examId: string): Promise<Json[]> {
  const viewer = loadViewer(auth);
  const row = await examById(ctx.db, examId);
  if (!row) throw notFound();
  const { protocol, exam } = await servedExam(ctx, viewer, row.protocolId, row.id);
  const studies = await studiesOfExamKeys(ctx.db, protocol.institutionId, [exam.row.examKey]);
  return Promise.all(studies.map(async (s) => studyJson(ctx, s, await seriesOfStudy(ctx.db, s.id))));
}

export async function seriesOf(ctx: AppContext, found: OpenedStudy): Promise<Json[]> {
  return (await seriesOfStudy(ctx.db, found.study.id)).map((s) => seriesJson(ctx, found.study, s));
}

/** The instances of a study, of one of its series, or the one named (404 when none). */
export async function selectInstances(
  ctx: AppContext,
  found: OpenedStudy,
  seriesUid?: string,
  sopUid?: string,
): Promise<Array<InstanceRow & { seriesUid: string }>> {
  if (seriesUid) {
    // One series (every frame and instance call): no study-wide aggregate.
    const series = await findSeries(ctx.db, found.study.id, seriesUid);
    if (!series) throw notFound();
    const rows = await instancesOf(ctx.db, {
      studyId: found.study.id,
      seriesId: series.id,
      ...(sopUid ? { sopUid } : {}),
    });
    if (rows.length === 0) throw notFound();
    return rows.map((r) => ({ ...r, seriesUid })).sort((a, b) => (a.instanceNumber ?? 0) - (b.instanceNumber ?? 0));
  }
  const series = await seriesOfStudy(ctx.db, found.study.id);
  const uidOf = new Map(series.map((s) => [s.id, s.seriesUid]));
  const order = new Map(series.map((s, i) => [s.id, i]));
  const rows = await instancesOf(ctx.db, { studyId: found.study.id, ...(sopUid ? { sopUid } : {}) });
  if (rows.length === 0) throw notFound();
  return rows
    .map((r) => ({ ...r, seriesUid: uidOf.get(r.seriesId)! }))
    .sort(
      (a, b) => order.get(a.seriesId)! - order.get(b.seriesId)! || (a.instanceNumber ?? 0) - (b.instanceNumber ?? 0),
    );
}

export async function instancesSearchResult(ctx: AppContext, found: OpenedStudy, seriesUid?: string): Promise<Json[]> {
  return (await selectInstances(ctx, found, seriesUid)).map((i) => instanceJson(ctx, found.study, i.seriesUid, i));
}

/** WADO-RS metadata: the stored DICOM JSON of each instance, its pixel data as a bulk data URI. */
export async function metadataOf(
  ctx: AppContext,
  found: OpenedStudy,
  seriesUid?: string,
  sopUid?: string,
): Promise<Json[]> {
  return (await selectInstances(ctx, found, seriesUid, sopUid)).map((i) => {
    const url = `${studyUrl(ctx, found.study.studyUid)}/series/${i.seriesUid}/instances/${i.sopUid}`;
    const json = JSON.parse(i.metadata) as Json;
    if (i.frames === null || (JSON.parse(i.frames) as unknown[]).length > 0) {
      json['7FE00010'] = {
        vr: 'OB',
        BulkDataURI: `${url}/frames/${Array.from({ length: i.numberOfFrames }, (_, n) => n + 1).join(',')}`,
      };
    }
    return json;
  });
}

/** The stored Part 10 files, one after another, exactly as they were received. */
export function instanceStream(ctx: AppContext, instances: readonly InstanceRow[]): AsyncIterable<Readable> {
  return (async function* () {
    for (const i of instances) yield await ctx.storage.get(i.storageKey);
  })();
}

/** The frames asked for (1-based), each as the bytes of its pixel data. */
export async function framesOf(ctx: AppContext, instance: InstanceRow, numbers: readonly number[]): Promise<Buffer[]> {
  if (numbers.some((n) => !Number.isInteger(n) || n < 1 || n > instance.numberOfFrames)) throw notFound();
  if (instance.frames === null) {
    const { frameOfFile } = await dicomCodecs();
    const whole = await ctx.storage.read(instance.storageKey);
    return numbers.map((n) => frameOfFile(whole, n - 1));
  }
  const ranges = JSON.parse(instance.frames) as Array<Array<[number, number]>>;
  return Promise.all(
    numbers.map(async (n) => {
      const parts: Buffer[] = [];
      for (const [offset, length] of ranges[n - 1] ?? []) {
        const chunks: Buffer[] = [];
        for await (const chunk of await ctx.storage.get(instance.storageKey, {
          start: offset,
          end: offset + length - 1,
        })) {
          chunks.push(chunk as Buffer);
        }
        parts.push(...chunks);
      }
      return Buffer.concat(parts);
    }),
  );
}

export { frameMediaType };

/** A rendered frame (PS3.18 8.3.5): the whole file decoded by dcmjs-imaging, then JPEG or PNG. */
export async function renderedOf(ctx: AppContext, instance: InstanceRow, options: RenderOptions) {
  const frame = options.frame ?? Math.floor(instance.numberOfFrames / 2) + 1;
  if (frame < 1 || frame > instance.numberOfFrames) throw notFound();
  const { renderFrame } = await dicomCodecs();
  const bytes = await ctx.storage.read(instance.storageKey);
  return renderFrame(bytes, { ...options, frame });
}

/** The study's key image: the middle instance of its first series (the middle frame of a multi-frame one). */
export async function keyInstance(ctx: AppContext, found: OpenedStudy): Promise<InstanceRow> {
  const [first] = await seriesOfStudy(ctx.db, found.study.id);
  if (!first) throw notFound();
  const rows = await instancesOf(ctx.db, { studyId: found.study.id, seriesId: first.id });
  const middle = rows[Math.floor((rows.length - 1) / 2)];
  if (!middle) throw notFound();
  return middle;
}
