import { examStatusCode } from '@portal/shared/exam-status';
import type { Exam, ProtocolItem } from '@portal/shared/schemas/delivery';
import { formatBrDate } from '@portal/shared/validation';
import type { AppContext } from '../../context.js';
import { type Db, SEPARATOR } from '../../db/database.js';
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
  type ExamSummaryRow,
  type ExamRow,
  examsWithAnalytes,
  type InstitutionRow,
  type ItemProtocolRow,
  institutionsByIds,
  institutionsWithSettings,
  FIELD_SEPARATOR,
  type ListedProtocolRow,
  protocolFacts,
  protocolFactsMany,
  type ProtocolRow,
  readsOf,
  resourcesOfProtocols,
  type ResourceSummaryRow,
  type ResourceRow,
  sessionProtocolIds,
  shareRecipient,
  userTagIds,
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
  const r = ctx.database.reader;
  // The account came with the session; only tags, a guest's protocols or a share's recipient remain.
  const account = auth.account;
  const [tagIds, protocolIds, sharedWith] = await Promise.all([
    tagged && auth.userId ? userTagIds(r, auth.userId) : Promise.resolve([]),
    guestLike ? sessionProtocolIds(r, auth.sessionId) : Promise.resolve([]),
    auth.role === 'SHARE' && auth.shareId ? shareRecipient(r, auth.shareId) : Promise.resolve(null),
  ]);
  return {
    role: auth.role,
    userId: auth.userId,
    sessionId: auth.sessionId,
    sessionProtocolIds: new Set(protocolIds),
    license:
      auth.role === 'PHYSICIAN' && account?.licenseNumber && account.licenseState
        ? { crm: account.licenseNumber, uf: account.licenseState.toUpperCase() }
        : null,
    tagIds: new Set(tagIds),
    name: account?.name ?? auth.username,
    institutionId: account?.institutionId ?? null,
    sharedWith,
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
  const institutionOf = new Map(protocols.map((p) => [p.id, p.institutionId]));
  const byExam = new Map<string, ResourceRow[]>();
  for (const r of resources) {
    const list = byExam.get(r.examId);
    if (list) list.push(r);
    else byExam.set(r.examId, [r]);
  }
  const out = new Map<string, ServedExam[]>(protocols.map((p) => [p.id, []]));
  for (const row of exams) {
    const setting = settings.get(`${institutionOf.get(row.protocolId)}|${row.type}`);
    if (!isExamServed({ isEnabled: row.isEnabled === 1 }, setting)) continue;
    out.get(row.protocolId)?.push({ row, setting, resources: byExam.get(row.id) ?? [] });
  }
  return out;
}

/** What an item needs of one exam: its row, resources, the image-button setting and the viewer's read mark. */
interface ItemExam<
  E extends Pick<ExamSummaryRow, 'id' | 'rectificationStatus'>,
  R extends { id: string; type: string },
> {
  row: E;
  resources: R[];
  hideButton: boolean;
  read: boolean;
  hasAnalytes: boolean;
}

/** The resources of an exam its viewer may reach, and the report and image the answer names. */
function visibleResources<R extends { id: string; type: string }>(
  e: Pick<ItemExam<Pick<ExamSummaryRow, 'id' | 'rectificationStatus'>, R>, 'row' | 'resources' | 'hideButton'>,
) {
  const hide = e.hideButton;
  const withheld = isReportWithheld(e.row);
  // A report awaiting rectification is withheld: its identifier never leaves the server.
  const resources = e.resources.filter(
    (r) => !(withheld && (r.type === 'REPORT' || r.type === 'REPORT_PHYSICIAN')) && !(hide && r.type === 'IMAGE'),
  );
  const report = resources.find((r) => r.type === 'REPORT') ?? resources.find((r) => r.type === 'REPORT_PHYSICIAN');
  const image = resources.find((r) => r.type === 'IMAGE');
  return { hide, resources, report, image };
}

function toExam(e: ItemExam<ExamRow, ResourceRow>): Exam {
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
    examRead: e.read,
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

/** Parsed institution settings by their JSON text: every item of every list needs them. */
const settingsByText = new Map<string, ReturnType<typeof parseInstitutionSettings>>();
function institutionSettings(json: string | undefined) {
  const text = json ?? '{}';
  let settings = settingsByText.get(text);
  if (!settings) {
    settings = parseInstitutionSettings(text);
    if (settingsByText.size >= 1000) settingsByText.clear();
    settingsByText.set(text, settings);
  }
  return settings;
}

/** One spec 3 protocol item from its row, institution and served exams. */
function protocolItem<
  E extends Pick<ExamSummaryRow, 'id' | 'rectificationStatus'>,
  R extends { id: string; type: string },
>(
  viewer: Viewer,
  p: ItemProtocolRow,
  institution: Pick<InstitutionRow, 'name' | 'token' | 'settings'> | undefined,
  exams: ItemExam<E, R>[],
  options: { external?: boolean; details?: (exams: ItemExam<E, R>[]) => Exam[] },
): ProtocolItem {
  const visible = exams.map((e) => visibleResources(e));
  const allRead = exams.length > 0 && exams.every((e) => e.read);
  const reports = visible.filter((v) => v.report !== undefined).length;
  const settings = institutionSettings(institution?.settings);
  return {
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
      exams.some((e) => e.hasAnalytes),
    ),
    protocolRead: allRead,
    allExamsRead: allRead,
    tagID: p.tagId,
    hasTag: p.tagId !== null,
    institutionId: p.institutionId,
    examsIds: exams.map((e) => e.row.id),
    ...(options.details ? { exams: options.details(exams), institutionNotice: settings.protocolNotice } : {}),
    ...(options.external
      ? {
          institutionToken: institution?.token ?? '',
          institutionName: institution?.name ?? '',
          patientName: p.patientName,
          patientBirthDate: p.patientBirthDate,
        }
      : {}),
  };
}

/**
 * The spec 3 protocol items of a list page: the page's rows carry their exams (`listedExamsColumn`);
 * one more statement reads the page's institutions and their visualizer settings.
 */
export async function buildListItems(
  ctx: AppContext,
  viewer: Viewer,
  protocols: readonly ListedProtocolRow[],
  options: { external?: boolean },
): Promise<ProtocolItem[]> {
  const { institutions, settings } = await institutionsWithSettings(
    ctx.database.reader,
    protocols.map((p) => p.institutionId),
  );
  type ListExam = ItemExam<Pick<ExamSummaryRow, 'id' | 'rectificationStatus'>, { id: string; type: string }>;
  return protocols.map((p) => {
    const exams: ListExam[] = [];
    for (const exam of p.exams ? p.exams.split(SEPARATOR) : []) {
      const [id = '', type = '', rectification = '', flagText = '0'] = exam.split(FIELD_SEPARATOR);
      const setting = settings.size > 0 ? settings.get(`${p.institutionId}|${type}`) : undefined;
      if (!isExamServed({ isEnabled: true }, setting)) continue;
      const flag = Number(flagText);
      exams.push({
        row: { id, rectificationStatus: rectification || null },
        // Lists tell only whether a report and an image exist: their identifiers stay in the details.
        resources: [
          ...(flag & 1 ? [{ id: '', type: 'REPORT' }] : []),
          ...(flag & 2 ? [{ id: '', type: 'IMAGE' }] : []),
        ],
        hideButton: setting?.hideButton ?? false,
        hasAnalytes: (flag & 4) !== 0,
        read: (flag & 8) !== 0,
      });
    }
    return protocolItem(viewer, p, institutions.get(p.institutionId), exams, options);
  });
}

/**
 * Builds the spec 3 protocol items of some protocols with their exam details in a fixed number of
 * queries (no per-row lookups): exams, resources, read marks, analytes and institutions each come
 * in one query.
 */
export async function buildProtocolItems(
  ctx: AppContext,
  viewer: Viewer,
  protocols: readonly ProtocolRow[],
  options: { external?: boolean } = {},
): Promise<ProtocolItem[]> {
  const r = ctx.database.reader;
  const [examsByProtocol, institutions] = await Promise.all([
    servedExams(ctx, protocols),
    institutionsByIds(
      r,
      protocols.map((p) => p.institutionId),
    ),
  ]);
  const examIds = [...examsByProtocol.values()].flat().map((e) => e.row.id);
  const keys = protocols.map((p) => readerKey(viewer, p)).filter((k): k is string => k !== null);
  const [reads, analytes] = await Promise.all([
    readsOf(r, examIds, keys),
    viewer.role === 'PATIENT' ? examsWithAnalytes(r, examIds) : Promise.resolve(new Set<string>()),
  ]);
  return protocols.map((p) => {
    const key = readerKey(viewer, p);
    const exams = (examsByProtocol.get(p.id) ?? []).map((e) => ({
      row: e.row,
      resources: e.resources,
      hideButton: e.setting?.hideButton ?? false,
      read: key !== null && reads.has(`${key}|${e.row.id}`),
      hasAnalytes: analytes.has(e.row.id),
    }));
    return protocolItem(viewer, p, institutions.get(p.institutionId), exams, {
      external: options.external,
      details: (list) => list.map((e) => toExam(e)),
    });
  });
}

/** Names of the patient of a protocol, for audit records. */
export function auditPatient(p: ProtocolRow): Record<string, unknown> {
  return { id: p.patientExternalId, name: p.patientName, birthDate: p.patientBirthDate };
}

export function auditUser(viewer: DeliveryViewer): { id: string | null; name: string | null; role: string } {
  return { id: viewer.userId, name: viewer.name, role: viewer.role };
}
