import { examStatusCode } from '@portal/shared/exam-status';
import type { Exam, ExamHold, ListedExam, ProtocolItem } from '@portal/shared/schemas/delivery';
import { formatBrDate } from '@portal/shared/formats';
import type { AppContext } from '../../context.js';
import { SEPARATOR } from '../../db/database.js';
import { forbidden, notFound } from '../../lib/errors.js';
import type { AuthContext } from '../../plugins/auth.js';
import {
  canSeeProtocol,
  canUseDelivery,
  isExamServed,
  isReportWithheld,
  type ProtocolFacts,
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
  type ItemProtocolRow,
  FIELD_SEPARATOR,
  type ListedProtocolRow,
  protocolFactsMany,
  type ExamWithResources,
  readProtocolFacts,
  type ProtocolRow,
  holdFactsOf,
  readsOf,
  resourcesOfProtocols,
  type ResourceSummaryRow,
  type ResourceRow,
} from './delivery.repository.js';
import { earliestEnd, examHold, holdRuleOf, type HoldProtocolFacts } from './holds.js';
import { type DeliveryInstitution, institutionsAt } from './institution-cache.js';

export interface DeliveryViewer extends Viewer {
  name: string;
  institutionId: string | null;
  /** Share sessions: the recipient's e-mail, for the audit trail. */
  sharedWith: string | null;
  /** The revision of institutions and their settings this call reads (see `institutionsOf`). */
  settingsRevision: number;
}

/** The caller as the access rules see it; 403 for roles that have no delivery calls. */
export function loadViewer(auth: AuthContext): DeliveryViewer {
  if (!canUseDelivery(auth.role)) throw forbidden();
  return loadAnyViewer(auth);
}

/** The caller as the access rules see it, from what its session statement read (no further reads). */
export function loadAnyViewer(auth: AuthContext): DeliveryViewer {
  const account = auth.account;
  return {
    role: auth.role,
    userId: auth.userId,
    sessionId: auth.sessionId,
    sessionProtocolIds: new Set(auth.protocolIds),
    license:
      auth.role === 'PHYSICIAN' &&
      account?.licenseNumber &&
      account.licenseState &&
      account.vouchedInstitutionIds.length
        ? {
            crm: account.licenseNumber,
            uf: account.licenseState.toUpperCase(),
            institutionIds: account.vouchedInstitutionIds,
          }
        : null,
    tagIds: new Set(auth.role === 'PHYSICIAN' || auth.role === 'EXTERNAL' ? (account?.tagIds ?? []) : []),
    name: account?.name ?? auth.username,
    institutionId: account?.institutionId ?? null,
    sharedWith: auth.sharedWith,
    settingsRevision: auth.settingsRevision,
  };
}

/** Institutions with their parsed and visualizer settings, as of the viewer's call. */
export function institutionsOf(
  ctx: AppContext,
  viewer: Pick<DeliveryViewer, 'settingsRevision'>,
  ids: readonly string[],
): Promise<Map<string, DeliveryInstitution>> {
  return institutionsAt(ctx.database.reader, viewer.settingsRevision, ids);
}

/** One institution with its settings, as of the viewer's call; undefined when there is none. */
export async function institutionOf(
  ctx: AppContext,
  viewer: Pick<DeliveryViewer, 'settingsRevision'>,
  id: string,
): Promise<DeliveryInstitution | undefined> {
  return (await institutionsOf(ctx, viewer, [id])).get(id);
}

/** Authorises first: the protocol when the viewer may see it, else 404 exactly like a missing one. */
export async function authoriseProtocol(ctx: AppContext, viewer: Viewer, protocolId: string) {
  return authorisedProtocol(viewer, await readProtocolFacts(ctx.database.reader, protocolId));
}

/** A protocol's facts already read, when the viewer may see it; 404 otherwise (or when there are none). */
export function authorisedProtocol<F extends ProtocolFacts>(viewer: Viewer, facts: F | undefined): F {
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
  /** Empty while the result is withheld from the viewer (`hold.withheld`). */
  resources: R[];
  setting: VisualizerSetting | undefined;
  /** The release hold on the exam as the viewer meets it (`examHold`), null when none. */
  hold: ExamHold | null;
}
export type ServedExam = Served;

/**
 * The exams of some protocols that may be served (enabled, type not switched off), with their
 * resources and holds; a result withheld from the viewer comes without its resources, so no read
 * path built on this (merges, prints, zips, FHIR, DICOMweb) can reach its files.
 */
export async function servedExams(
  ctx: AppContext,
  viewer: Pick<DeliveryViewer, 'settingsRevision' | 'role' | 'license'>,
  protocols: ReadonlyArray<ProtocolRow & Partial<Pick<HoldProtocolFacts, 'requesterLicenses'>>>,
): Promise<Map<string, ServedExam[]>> {
  const ids = protocols.map((p) => p.id);
  // Independent queries at once: one round trip instead of several on PostgreSQL.
  const [exams, institutions, resources] = await Promise.all([
    enabledExamsOf(ctx.db, ids),
    institutionsOf(
      ctx,
      viewer,
      protocols.map((p) => p.institutionId),
    ),
    resourcesOfProtocols(ctx.db, ids),
  ]);
  const protocolOf = new Map(protocols.map((p) => [p.id, p]));
  const now = ctx.clock.now();
  const byExam = new Map<string, ResourceRow[]>();
  for (const r of resources) {
    const list = byExam.get(r.examId);
    if (list) list.push(r);
    else byExam.set(r.examId, [r]);
  }
  const out = new Map<string, ServedExam[]>(protocols.map((p) => [p.id, []]));
  for (const row of exams) {
    const protocol = protocolOf.get(row.protocolId);
    if (!protocol) continue;
    const institution = institutions.get(protocol.institutionId);
    const setting = institution?.visualizer.get(row.type);
    if (!isExamServed({ isEnabled: row.isEnabled === 1 }, setting)) continue;
    const hold = examHold(viewer, protocol, row, institution?.holds, now);
    out.get(row.protocolId)?.push({ row, setting, hold, resources: hold?.withheld ? [] : (byExam.get(row.id) ?? []) });
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
  hold: ExamHold | null;
}

/** The resources of an exam its viewer may reach, and the report and image the answer names. */
function visibleResources<R extends { id: string; type: string }>(
  e: Pick<ItemExam<Pick<ExamSummaryRow, 'id' | 'rectificationStatus'>, R>, 'row' | 'resources' | 'hideButton' | 'hold'>,
) {
  const hide = e.hideButton;
  const withheld = isReportWithheld(e.row);
  // A report awaiting rectification is withheld: its identifier never leaves the server. A result
  // held from the viewer shows none of its files.
  const resources = e.hold?.withheld
    ? []
    : e.resources.filter(
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
    hold: e.hold,
  };
}

/** What a protocol item says of its served exams. */
interface ExamsSummary {
  ids: string[];
  allRead: boolean;
  /** Exams with a report the viewer may open. */
  reports: number;
  /** Whether an exam has an image the viewer may open. */
  image: boolean;
  rectification: boolean;
  analytes: boolean;
  /** List rows: each served exam's name and where it stands, in words on the screen. */
  list: ListedExam[];
}

/** The summary of exams known in full (details). */
function summarise<
  E extends Pick<ExamSummaryRow, 'id' | 'rectificationStatus'>,
  R extends { id: string; type: string },
>(exams: ItemExam<E, R>[]): ExamsSummary {
  const visible = exams.map((e) => visibleResources(e));
  return {
    ids: exams.map((e) => e.row.id),
    allRead: exams.length > 0 && exams.every((e) => e.read),
    reports: visible.filter((v) => v.report !== undefined).length,
    image: visible.some((v) => v.image !== undefined),
    rectification: exams.some((e) => e.row.rectificationStatus !== null),
    analytes: exams.some((e) => e.hasAnalytes && !e.hold?.withheld),
    list: [],
  };
}

/**
 * The summary of a list row's exams (`listedExamsColumn`: per exam its id, type, rectification
 * and flags) under the institution's visualizer settings, by the same rules as `visibleResources`.
 */
function summariseListed(
  listed: string | null,
  visualizer: ReadonlyMap<string, VisualizerSetting> | undefined,
  holdOf: (examId: string) => ExamHold | null,
  readExamIds?: ReadonlySet<string>,
) {
  const summary: ExamsSummary = {
    ids: [],
    allRead: true,
    reports: 0,
    image: false,
    rectification: false,
    analytes: false,
    list: [],
  };
  for (const exam of listed ? listed.split(SEPARATOR) : []) {
    const [id = '', type = '', rectification = '', flagText = '0', status = '', ...description] =
      exam.split(FIELD_SEPARATOR);
    const setting = visualizer?.get(type);
    if (!isExamServed({ isEnabled: true }, setting)) continue;
    const hold = holdOf(id);
    // A result held from the viewer counts as having no report, image or history values.
    const flags = Number(flagText) | (readExamIds?.has(id) ? 8 : 0);
    const flag = hold?.withheld ? flags & 8 : flags;
    summary.ids.push(id);
    if (rectification) summary.rectification = true;
    // 1: a report (withheld while awaiting rectification), 2: an image (hidden by the setting),
    // 4: history results, 8: read by this viewer.
    if (flag & 1 && !isReportWithheld({ rectificationStatus: rectification })) summary.reports++;
    if (flag & 2 && !setting?.hideButton) summary.image = true;
    if (flag & 4) summary.analytes = true;
    if (!(flag & 8)) summary.allRead = false;
    summary.list.push({
      id,
      description: description.join(FIELD_SEPARATOR),
      statusCode: examStatusCode(status),
      rectificationStatus: rectification || null,
      examRead: (flag & 8) !== 0,
      ...(hold ? { hold } : {}),
    });
  }
  if (summary.ids.length === 0) summary.allRead = false;
  return summary;
}

/** One spec 3 protocol item from its row, institution and the summary of its served exams. */
function protocolItem(
  viewer: Viewer,
  p: ItemProtocolRow,
  institution: Pick<DeliveryInstitution, 'name' | 'token' | 'settings'> | undefined,
  exams: ExamsSummary,
  options: { external?: boolean; details?: Exam[] },
): ProtocolItem {
  const settings = institution?.settings;
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
    hasAtLeastOneRectification: exams.rectification,
    hasExamStatusVisualizer: settings?.hasExamStatusVisualizer ?? false,
    hasPatientUser: p.patientUserId !== null,
    hasImageResolved: exams.image,
    showAllButton: exams.reports > 1,
    showHistoricButton: showsHistoricButton(viewer.role, exams.analytes),
    protocolRead: exams.allRead,
    allExamsRead: exams.allRead,
    tagID: p.tagId,
    hasTag: p.tagId !== null,
    institutionId: p.institutionId,
    examsIds: exams.ids,
    examList: options.details
      ? options.details.map((e) => ({
          id: e.id,
          description: e.description,
          statusCode: e.statusCode,
          rectificationStatus: e.rectificationStatus,
          examRead: e.examRead,
          ...(e.hold ? { hold: e.hold } : {}),
        }))
      : exams.list,
    ...(options.details ? { exams: options.details, institutionNotice: settings?.protocolNotice ?? null } : {}),
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
 * institutions and their visualizer settings come from memory (`institutionsOf`).
 */
export async function buildListItems(
  ctx: AppContext,
  viewer: DeliveryViewer,
  protocols: readonly ListedProtocolRow[],
  options: { external?: boolean },
): Promise<ProtocolItem[]> {
  return (await buildListPage(ctx, viewer, protocols, options)).items;
}

/**
 * `buildListItems` and the moment the page stops being true by itself (a hold of N hours on one
 * of its exams ends then; null when nothing on it ends with time).
 */
export async function buildListPage(
  ctx: AppContext,
  viewer: DeliveryViewer,
  protocols: readonly ListedProtocolRow[],
  options: { external?: boolean },
): Promise<{ items: ProtocolItem[]; until: string | null }> {
  const institutions = await institutionsOf(
    ctx,
    viewer,
    protocols.map((p) => p.institutionId),
  );
  // Only exams of a type under a hold rule cost a further read (most pages have none).
  const ruled: string[] = [];
  for (const p of protocols) {
    const holds = institutions.get(p.institutionId)?.holds;
    if (!holds || holds.size === 0 || !p.exams) continue;
    for (const exam of p.exams.split(SEPARATOR)) {
      const [id = '', type = ''] = exam.split(FIELD_SEPARATOR);
      if (holdRuleOf(holds, type)) ruled.push(id);
    }
  }
  const facts = ruled.length > 0 ? await holdFactsOf(ctx.database.reader, ruled) : undefined;
  const now = ctx.clock.now();
  const holds: Array<ExamHold | null> = [];
  const items = protocols.map((p) => {
    const institution = institutions.get(p.institutionId);
    const holdOf = (examId: string) => {
      const f = facts?.get(examId);
      if (!f) return null;
      const hold = examHold(
        viewer,
        { institutionId: p.institutionId, requesterLicenses: f.requesterLicenses },
        f,
        institution?.holds,
        now,
      );
      holds.push(hold);
      return hold;
    };
    return protocolItem(
      viewer,
      p,
      institution,
      summariseListed(p.exams, institution?.visualizer, holdOf, p.readExamIds),
      options,
    );
  });
  return { items, until: earliestEnd(holds) };
}

/**
 * Builds the spec 3 protocol items of some protocols with their exam details in a fixed number of
 * queries (no per-row lookups): exams, resources, read marks, analytes and institutions each come
 * in one query.
 */
export async function buildProtocolItems(
  ctx: AppContext,
  viewer: DeliveryViewer,
  protocols: readonly ProtocolRow[],
  options: { external?: boolean } = {},
): Promise<ProtocolItem[]> {
  const r = ctx.database.reader;
  const examsByProtocol = await servedExams(ctx, viewer, protocols);
  // Read into memory by servedExams already.
  const institutions = await institutionsOf(
    ctx,
    viewer,
    protocols.map((p) => p.institutionId),
  );
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
      hasAnalytes: analytes.has(e.row.id) && !e.hold?.withheld,
      hold: e.hold,
    }));
    return protocolItem(viewer, p, institutions.get(p.institutionId), summarise(exams), {
      external: options.external,
      details: exams.map((e) => toExam(e)),
    });
  });
}

/**
 * One authorised protocol's item with its exam details (spec 2.8), from its exams as read with their
 * resources and the viewer's read marks (`readProtocolDetail`): the served ones, their holds applied.
 */
export function protocolDetailItem(
  ctx: AppContext,
  viewer: DeliveryViewer,
  protocol: ProtocolRow & Partial<Pick<HoldProtocolFacts, 'requesterLicenses'>>,
  institution: DeliveryInstitution | undefined,
  rows: readonly ExamWithResources[],
  options: { external?: boolean } = {},
): ProtocolItem {
  const key = readerKey(viewer, protocol);
  const exams: Array<ItemExam<ExamRow, ResourceRow>> = [];
  const now = ctx.clock.now();
  for (const e of rows) {
    const setting = institution?.visualizer.get(e.row.type);
    if (!isExamServed({ isEnabled: e.row.isEnabled === 1 }, setting)) continue;
    const hold = examHold(viewer, protocol, e.row, institution?.holds, now);
    exams.push({
      row: e.row,
      resources: hold?.withheld ? [] : e.resources,
      hideButton: setting?.hideButton ?? false,
      read: key !== null && e.read,
      // Kept on the exam by triggers on analytes; the historic button is for patients only.
      hasAnalytes: viewer.role === 'PATIENT' && e.row.hasAnalytes === 1 && !hold?.withheld,
      hold,
    });
  }
  return protocolItem(viewer, protocol, institution, summarise(exams), {
    external: options.external,
    details: exams.map((e) => toExam(e)),
  });
}

/** The patient of a protocol as the institution sent it, for audit records (spec 3's trace record). */
export function auditPatient(p: ProtocolRow): Record<string, unknown> {
  return {
    id: p.patientExternalId,
    name: p.patientName,
    preferredName: p.patientPreferredName,
    motherName: p.patientMotherName,
    document: p.patientCpf,
    birthDate: p.patientBirthDate,
  };
}

export function auditUser(viewer: DeliveryViewer): { id: string | null; name: string | null; role: string } {
  return { id: viewer.userId, name: viewer.name, role: viewer.role };
}
