import { examStatusCode } from '@portal/shared/exam-status';
import type { Exam, ProtocolItem } from '@portal/shared/schemas/delivery';
import { formatBrDate } from '@portal/shared/validation';
import type { AppContext } from '../../context.js';
import type { Db, SqlReader } from '../../db/database.js';
import { forbidden, notFound } from '../../lib/errors.js';
import type { AuthContext } from '../../plugins/auth.js';
import { parseInstitutionSettings } from '../institutions/institution.service.js';
import {
  canSeeProtocol,
  canUseDelivery,
  isExamServed,
  isReportWithheld,
  readerKey,
  showsHistoricButton,
  type Viewer,
  type VisualizerSetting,
} from './delivery.policy.js';
import {
  enabledExamsOf,
  enabledExamSummariesOf,
  type ExamSummaryRow,
  type ExamRow,
  examsWithAnalytes,
  institutionsByIds,
  protocolFacts,
  protocolFactsMany,
  type ProtocolRow,
  readsOf,
  resourcesOfProtocols,
  resourceSummariesOfProtocols,
  type ResourceSummaryRow,
  type ResourceRow,
  sessionProtocolIds,
  shareRecipient,
  userAccessFacts,
  visualizerSettings,
} from './delivery.repository.js';

export interface DeliveryViewer extends Viewer {
  name: string;
  institutionId: string | null;
  /** Share sessions: the recipient's e-mail, for the audit trail. */
  sharedWith: string | null;
}

/** The caller as the access rules see it; 403 for roles that have no delivery calls. */
export async function loadViewer(ctx: AppContext, auth: AuthContext): Promise<DeliveryViewer> {
  if (!canUseDelivery(auth.role)) throw forbidden();
  return loadAnyViewer(ctx, auth);
}

export async function loadAnyViewer(ctx: AppContext, auth: AuthContext): Promise<DeliveryViewer> {
  const guestLike = auth.role === 'GUEST' || auth.role === 'SHARE';
  const tagged = auth.role === 'PHYSICIAN' || auth.role === 'EXTERNAL';
  const facts = auth.userId ? await userAccessFacts(ctx.database.reader, auth.userId, tagged) : null;
  return {
    role: auth.role,
    userId: auth.userId,
    sessionId: auth.sessionId,
    sessionProtocolIds: new Set(guestLike ? await sessionProtocolIds(ctx.database.reader, auth.sessionId) : []),
    license: auth.role === 'PHYSICIAN' ? (facts?.license ?? null) : null,
    tagIds: new Set(tagged ? (facts?.tagIds ?? []) : []),
    name: facts?.name ?? auth.username,
    institutionId: facts?.institutionId ?? null,
    sharedWith: auth.role === 'SHARE' && auth.shareId ? await shareRecipient(ctx.database.reader, auth.shareId) : null,
  };
}

/** Authorises first: the protocol when the viewer may see it, else 404 exactly like a missing one. */
export async function authoriseProtocol(ctx: AppContext, viewer: Viewer, protocolId: string, db: Db = ctx.db) {
  const facts = await protocolFacts(db, protocolId);
  if (!facts || !canSeeProtocol(viewer, facts)) throw notFound();
  return facts;
}

/** Authorises several protocols at once, in the given order; one not the viewer's fails them all (404). */
export async function authoriseProtocols(ctx: AppContext, viewer: Viewer, protocolIds: readonly string[]) {
  const facts = await protocolFactsMany(ctx.db, protocolIds);
  return protocolIds.map((id) => {
    const protocol = facts.get(id);
    if (!protocol || !canSeeProtocol(viewer, protocol)) throw notFound();
    return protocol;
  });
}

export interface Served<E extends ExamSummaryRow = ExamRow, R extends ResourceSummaryRow = ResourceRow> {
  row: E;
  resources: R[];
  setting: VisualizerSetting | undefined;
}
export type ServedExam = Served;

/** The exams of some protocols that may be served (enabled, type not switched off), with their resources. */
export async function servedExams(
  ctx: AppContext,
  protocols: readonly ProtocolRow[],
): Promise<Map<string, ServedExam[]>> {
  const ids = protocols.map((p) => p.id);
  // Three independent queries at once: one round trip instead of three on PostgreSQL.
  const [exams, settings, resources] = await Promise.all([
    enabledExamsOf(ctx.db, ids),
    visualizerSettings(
      ctx.database.reader,
      protocols.map((p) => p.institutionId),
    ),
    resourcesOfProtocols(ctx.db, ids),
  ]);
  return assembleServed(protocols, exams, settings, resources);
}

/** servedExams with only what a list shows about exams. */
async function servedExamSummaries(
  r: SqlReader,
  protocols: readonly ProtocolRow[],
): Promise<Map<string, Served<ExamSummaryRow, ResourceSummaryRow>[]>> {
  const ids = protocols.map((p) => p.id);
  const [exams, settings, resources] = await Promise.all([
    enabledExamSummariesOf(r, ids),
    visualizerSettings(
      r,
      protocols.map((p) => p.institutionId),
    ),
    resourceSummariesOfProtocols(r, ids),
  ]);
  return assembleServed(protocols, exams, settings, resources);
}

function assembleServed<E extends ExamSummaryRow, R extends ResourceSummaryRow>(
  protocols: readonly ProtocolRow[],
  exams: E[],
  settings: Map<string, VisualizerSetting>,
  resources: R[],
): Map<string, Served<E, R>[]> {
  const institutionOf = new Map(protocols.map((p) => [p.id, p.institutionId]));
  const byExam = new Map<string, R[]>();
  for (const r of resources) {
    const list = byExam.get(r.examId);
    if (list) list.push(r);
    else byExam.set(r.examId, [r]);
  }
  const out = new Map<string, Served<E, R>[]>(protocols.map((p) => [p.id, []]));
  for (const row of exams) {
    const setting = settings.get(`${institutionOf.get(row.protocolId)}|${row.type}`);
    if (!isExamServed({ isEnabled: row.isEnabled === 1 }, setting)) continue;
    out.get(row.protocolId)?.push({ row, setting, resources: byExam.get(row.id) ?? [] });
  }
  return out;
}

/** The resources of an exam its viewer may reach, and the report and image the answer names. */
function visibleResources<R extends ResourceSummaryRow>(e: Served<ExamSummaryRow, R>) {
  const hide = e.setting?.hideButton ?? false;
  const withheld = isReportWithheld(e.row);
  // A report awaiting rectification is withheld: its identifier never leaves the server.
  const resources = e.resources.filter(
    (r) => !(withheld && (r.type === 'REPORT' || r.type === 'REPORT_PHYSICIAN')) && !(hide && r.type === 'IMAGE'),
  );
  const report = resources.find((r) => r.type === 'REPORT') ?? resources.find((r) => r.type === 'REPORT_PHYSICIAN');
  const image = resources.find((r) => r.type === 'IMAGE');
  return { hide, resources, report, image };
}

function toExam(e: ServedExam, read: boolean): Exam {
  const { hide, resources, report, image } = visibleResources(e);
  return {
    id: e.row.id,
    examKey: e.row.examKey,
    description: e.row.description,
    type: e.row.type,
    modality: { name: e.row.modalityName },
    modalityCode: e.row.modalityCode,
    modalityName: e.row.modalityName,
    requester: { identifier: e.row.requesterIdentifier, name: e.row.requesterName },
    requesterName: e.row.requesterName,
    resources: resources.map((r) => ({ type: r.type, identifier: r.id, hasSignedFile: r.signedStorageKey !== null })),
    identifierReport: report?.id ?? null,
    identifierImage: image?.id ?? null,
    examRead: read,
    rectificationStatus: e.row.rectificationStatus,
    status: e.row.status,
    statusCode: examStatusCode(e.row.status),
    deliveredAt: e.row.deliveredAt,
    performedAt: e.row.performedAt,
    hasSignedFile: resources.some((r) => r.signedStorageKey !== null),
    isEnabled: true,
    hideImageButtonExam: hide,
    hasImageResolved: image !== undefined,
  };
}

/**
 * Builds the spec 3 protocol items of a page in a fixed number of queries (no per-row lookups):
 * exams, resources, read marks, analytes and institutions each come in one query.
 */
export async function buildProtocolItems(
  ctx: AppContext,
  viewer: Viewer,
  protocols: readonly ProtocolRow[],
  options: { withExams: boolean; external?: boolean },
): Promise<ProtocolItem[]> {
  const r = ctx.database.reader;
  // Lists show no exam details: they read only the few exam and resource columns they summarise.
  const [examsByProtocol, institutions] = await Promise.all([
    options.withExams ? servedExams(ctx, protocols) : servedExamSummaries(r, protocols),
    institutionsByIds(
      r,
      protocols.map((p) => p.institutionId),
    ),
  ]);
  const allExams = [...examsByProtocol.values()].flat();
  const examIds = allExams.map((e) => e.row.id);
  const keys = protocols.map((p) => readerKey(viewer, p)).filter((k): k is string => k !== null);
  const [reads, analytes] = await Promise.all([
    readsOf(r, examIds, keys),
    viewer.role === 'PATIENT' ? examsWithAnalytes(r, examIds) : Promise.resolve(new Set<string>()),
  ]);
  return protocols.map((p) => {
    const key = readerKey(viewer, p);
    const exams = examsByProtocol.get(p.id) ?? [];
    const institution = institutions.get(p.institutionId);
    const readFlags = exams.map((e) => key !== null && reads.has(`${key}|${e.row.id}`));
    const visible = exams.map((e) => visibleResources(e));
    const allRead = exams.length > 0 && readFlags.every(Boolean);
    const reports = visible.filter((v) => v.report !== undefined).length;
    const settings = parseInstitutionSettings(institution?.settings);
    const item: ProtocolItem = {
      requestId: p.id,
      number: p.number,
      requestedAt: p.requestedAt,
      requestedAtFormated: p.requestedAt ? formatBrDate(p.requestedAt) : null,
      institution: { id: p.institutionId, name: institution?.name ?? '', token: institution?.token ?? '' },
      patient: {
        name: p.patientName,
        patientId: p.patientExternalId,
        birthDate: p.patientBirthDate,
        gender: p.patientGender,
        email: p.patientEmail,
        phone: p.patientPhone,
      },
      hasAtLeastOneRectification: exams.some((e) => e.row.rectificationStatus !== null),
      hasExamStatusVisualizer: settings.hasExamStatusVisualizer,
      hasPatientUser: p.patientUserId !== null,
      hasImageResolved: visible.some((v) => v.image !== undefined),
      showAllButton: reports > 1,
      showHistoricButton: showsHistoricButton(
        viewer.role,
        exams.some((e) => analytes.has(e.row.id)),
      ),
      protocolRead: allRead,
      allExamsRead: allRead,
      tagID: p.tagId,
      hasTag: p.tagId !== null,
      institutionId: p.institutionId,
      examsIds: exams.map((e) => e.row.id),
      ...(options.withExams
        ? {
            exams: (exams as ServedExam[]).map((e, i) => toExam(e, readFlags[i] ?? false)),
            institutionNotice: settings.protocolNotice,
          }
        : {}),
      ...(options.external
        ? {
            institutionToken: institution?.token ?? '',
            institutionName: institution?.name ?? '',
            patientName: p.patientName,
            patientBirthDate: p.patientBirthDate,
          }
        : {}),
    };
    return item;
  });
}

/** Names of the patient of a protocol, for audit records. */
export function auditPatient(p: ProtocolRow): Record<string, unknown> {
  return { id: p.patientExternalId, name: p.patientName, birthDate: p.patientBirthDate };
}

export function auditUser(viewer: DeliveryViewer): { id: string | null; name: string | null; role: string } {
  return { id: viewer.userId, name: viewer.name, role: viewer.role };
}
