import type {
  Bundle,
  DiagnosticReport,
  DocumentReference,
  Observation,
  Patient,
  Reference,
  Resource,
  ServiceRequest,
} from '@medplum/fhirtypes';
import type { Exam, ProtocolItem } from '@portal/shared/schemas/delivery';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import type { AuthContext } from '../../plugins/auth.js';
import { recordAudits, type AuditRecord } from '../../plugins/audit.js';
import { findUserById } from '../accounts/accounts.repository.js';
import { canViewHistory } from '../delivery/delivery.policy.js';
import {
  examById,
  type ExamRow,
  protocolsByIds,
  type ProtocolRow,
  resourceWithExam,
  type ResourceRow,
} from '../delivery/delivery.repository.js';
import {
  auditPatient,
  auditUser,
  authoriseProtocol,
  buildProtocolItems,
  type DeliveryViewer,
  institutionsOf,
  loadViewer,
  servedExams,
} from '../delivery/delivery.service.js';
import { listProtocols } from '../delivery/protocol-list.repository.js';
import { openResource, type FileAnswer } from '../delivery/resources.service.js';
import { type AnalyteRow, listAnalyteRows } from '../ingest/ingest.repository.js';
import { fhirReportStatus, type ReadType, SYSTEMS } from './fhir-mapping.js';
import { analyteById } from './fhir.repository.js';
import { FhirError, fhirNotFound } from './outcome.js';

/** How many of a viewer's latest protocols a search looks through (docs/decisions.md). */
export const SEARCH_REACH = 1000;
export const COUNT_DEFAULT = 20;
export const COUNT_MAX = 100;

const LOCAL = {
  examType: 'urn:results-portal:exam-type',
  analyte: 'urn:results-portal:analyte-code',
  resourceType: 'urn:results-portal:resource-type',
  examStatus: 'urn:results-portal:fhir:StructureDefinition:exam-status',
  releaseHold: 'urn:results-portal:fhir:StructureDefinition:release-hold',
};

/** One protocol as the viewer sees it in the portal, with the rows behind it (for meta). */
interface View {
  row: ProtocolRow;
  item: ProtocolItem;
  institution: string;
  exams: Map<string, ExamRow>;
  resources: Map<string, ResourceRow>;
}

/** The views of some protocols the viewer may see, built by the portal's own answer builder. */
async function viewsOf(ctx: AppContext, viewer: DeliveryViewer, protocols: ProtocolRow[]): Promise<View[]> {
  if (protocols.length === 0) return [];
  const [items, served, institutions] = await Promise.all([
    buildProtocolItems(ctx, viewer, protocols),
    servedExams(ctx, viewer, protocols),
    institutionsOf(
      ctx,
      viewer,
      protocols.map((p) => p.institutionId),
    ),
  ]);
  return protocols.map((row, i) => {
    const exams = served.get(row.id) ?? [];
    return {
      row,
      item: items[i]!,
      institution: institutions.get(row.institutionId)?.name ?? '',
      exams: new Map(exams.map((e) => [e.row.id, e.row])),
      resources: new Map(exams.flatMap((e) => e.resources).map((r) => [r.id, r])),
    };
  });
}

/** Every read is traced as the portal's own views are: VIEW_PROTOCOL, and HISTORY_VIEWED for results. */
async function audit(
  ctx: AppContext,
  request: FastifyRequest,
  viewer: DeliveryViewer,
  views: readonly View[],
  event: 'VIEW_PROTOCOL' | 'HISTORY_VIEWED',
  what: string,
): Promise<void> {
  const seen = new Set<string>();
  const records: AuditRecord[] = [];
  const institutions = await institutionsOf(
    ctx,
    viewer,
    views.map((v) => v.row.institutionId),
  );
  for (const v of views) {
    if (seen.has(v.row.id)) continue;
    seen.add(v.row.id);
    records.push({
      event,
      tenant: institutions.get(v.row.institutionId)?.code ?? null,
      resource: { type: 'PROTOCOL', id: v.row.id, number: v.row.number },
      protocolId: v.row.id,
      systemUser: auditUser(viewer),
      sharedWith: viewer.sharedWith,
      patients: [auditPatient(v.row)],
      macro: { channel: 'FHIR R4', read: what },
    });
  }
  await recordAudits(ctx, records, request);
}

function subjectOf(viewer: DeliveryViewer, v: View): Reference<Patient> {
  const name = v.item.patient.name;
  if (viewer.role === 'PATIENT' && viewer.userId) return { reference: `Patient/${viewer.userId}`, display: name };
  return { identifier: { system: SYSTEMS.patientId, value: v.item.patient.patientId }, display: name };
}

function toServiceRequest(viewer: DeliveryViewer, v: View): ServiceRequest {
  const exams = v.item.exams ?? [];
  const done = exams.length > 0 && exams.every((e) => e.statusCode === 'L' || e.statusCode === 'RF');
  const requester = exams.find((e) => e.requesterName)?.requesterName;
  return {
    resourceType: 'ServiceRequest',
    id: v.item.requestId,
    meta: { lastUpdated: v.row.updatedAt },
    identifier: [{ system: SYSTEMS.protocolNumber, value: v.item.number }],
    status: done ? 'completed' : 'active',
    intent: 'order',
    code: { text: exams.map((e) => e.description).join(', ') || v.item.number },
    subject: subjectOf(viewer, v),
    ...(v.item.requestedAt ? { authoredOn: v.item.requestedAt } : {}),
    ...(requester ? { requester: { display: requester } } : {}),
    performer: [{ display: v.institution }],
  };
}

const categoryOf = (e: Exam) => ({
  coding: [{ system: SYSTEMS.v2DiagnosticService, code: e.modalityCode, display: e.modalityName }],
  text: e.modalityName,
});

function toDiagnosticReport(viewer: DeliveryViewer, v: View, e: Exam, analytes: AnalyteRow[]): DiagnosticReport {
  const row = v.exams.get(e.id);
  const forms = e.resources
    .filter((r) => r.type !== 'IMAGE')
    .map((r) => v.resources.get(r.identifier))
    .filter((r): r is ResourceRow => r !== undefined);
  return {
    resourceType: 'DiagnosticReport',
    id: e.id,
    meta: { lastUpdated: row?.updatedAt ?? v.row.updatedAt },
    extension: [
      { url: LOCAL.examStatus, valueCode: e.statusCode },
      // Held from this reader: the report comes without its forms and results.
      ...(e.hold?.withheld ? [{ url: LOCAL.releaseHold, valueCode: e.hold.rule }] : []),
    ],
    identifier: [{ system: SYSTEMS.examKey, value: e.examKey }],
    basedOn: [{ reference: `ServiceRequest/${v.item.requestId}` }],
    status: fhirReportStatus(e.statusCode),
    category: [categoryOf(e)],
    code: { coding: [{ system: LOCAL.examType, code: e.type, display: e.description }], text: e.description },
    subject: subjectOf(viewer, v),
    ...(e.performedAt ? { effectiveDateTime: e.performedAt } : {}),
    ...(e.deliveredAt ? { issued: e.deliveredAt } : {}),
    performer: [{ display: v.institution }],
    ...(analytes.length > 0
      ? { result: analytes.map((a) => ({ reference: `Observation/${a.id}`, display: a.name })) }
      : {}),
    ...(forms.length > 0
      ? {
          presentedForm: forms.map((r) => ({
            contentType: r.contentType,
            url: `Binary/${r.id}`,
            size: Number(r.size),
            title: `${e.description} (${r.type})`,
          })),
        }
      : {}),
  };
}

function interpretationOf(a: AnalyteRow) {
  if (a.valueNumber === null || (a.referenceMin === null && a.referenceMax === null)) return undefined;
  const code =
    a.referenceMin !== null && a.valueNumber < a.referenceMin
      ? 'L'
      : a.referenceMax !== null && a.valueNumber > a.referenceMax
        ? 'H'
        : 'N';
  const display = { L: 'Low', H: 'High', N: 'Normal' }[code];
  return [{ coding: [{ system: SYSTEMS.interpretation, code, display }] }];
}

function toObservation(viewer: DeliveryViewer, v: View, e: Exam, a: AnalyteRow): Observation {
  const loinc = /^\d{1,7}-\d$/.test(a.code);
  const unit = a.unit ?? undefined;
  const range =
    a.referenceMin !== null || a.referenceMax !== null || a.referenceText
      ? [
          {
            ...(a.referenceMin !== null ? { low: { value: a.referenceMin, ...(unit ? { unit } : {}) } } : {}),
            ...(a.referenceMax !== null ? { high: { value: a.referenceMax, ...(unit ? { unit } : {}) } } : {}),
            ...(a.referenceText ? { text: a.referenceText } : {}),
          },
        ]
      : undefined;
  const interpretation = interpretationOf(a);
  return {
    resourceType: 'Observation',
    id: a.id,
    meta: { lastUpdated: v.exams.get(e.id)?.updatedAt ?? v.row.updatedAt },
    status:
      fhirReportStatus(e.statusCode) === 'final'
        ? 'final'
        : fhirReportStatus(e.statusCode) === 'amended'
          ? 'amended'
          : 'preliminary',
    category: [
      {
        coding: [
          {
            system: 'http://terminology.hl7.org/CodeSystem/observation-category',
            code: 'laboratory',
            display: 'Laboratory',
          },
        ],
      },
    ],
    code: { coding: [{ system: loinc ? SYSTEMS.loinc : LOCAL.analyte, code: a.code, display: a.name }], text: a.name },
    subject: subjectOf(viewer, v),
    ...(e.performedAt ? { effectiveDateTime: e.performedAt } : {}),
    ...(a.valueNumber !== null
      ? { valueQuantity: { value: a.valueNumber, ...(unit ? { unit } : {}) } }
      : { valueString: a.value }),
    ...(interpretation ? { interpretation } : {}),
    ...(range ? { referenceRange: range } : {}),
  };
}

function toDocumentReference(viewer: DeliveryViewer, v: View, e: Exam, r: ResourceRow): DocumentReference {
  return {
    resourceType: 'DocumentReference',
    id: r.id,
    meta: { lastUpdated: r.updatedAt },
    status: 'current',
    type: { coding: [{ system: LOCAL.resourceType, code: r.type }], text: r.type },
    category: [categoryOf(e)],
    subject: subjectOf(viewer, v),
    date: r.createdAt,
    content: [
      { attachment: { contentType: r.contentType, url: `Binary/${r.id}`, size: Number(r.size), title: e.description } },
    ],
    context: { related: [{ reference: `DiagnosticReport/${e.id}` }] },
  };
}

/** A resource of the read API with the protocol it comes from and the date searches compare. */
interface Found {
  resource: Resource;
  view: View;
  date: string | null;
}

/** The viewer's protocols for a search: the latest SEARCH_REACH of his reach (spec 6). */
async function reachViews(ctx: AppContext, viewer: DeliveryViewer): Promise<View[]> {
  const { rows } = await listProtocols(ctx.database.reader, viewer, {
    orderBy: 'date',
    offset: 0,
    limit: SEARCH_REACH,
  });
  const protocols = await protocolsByIds(
    ctx.db,
    rows.map((r) => r.id),
  );
  const order = new Map(rows.map((r, i) => [r.id, i]));
  protocols.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  return viewsOf(ctx, viewer, protocols);
}

async function analytesOf(
  ctx: AppContext,
  viewer: DeliveryViewer,
  views: readonly View[],
): Promise<Map<string, AnalyteRow[]>> {
  const out = new Map<string, AnalyteRow[]>();
  // Results are the history's values: a patient feature (spec 6).
  if (!canViewHistory(viewer.role)) return out;
  // A result held from the viewer gives no Observation (release holds).
  const ids = views.flatMap((v) => (v.item.exams ?? []).filter((e) => !e.hold?.withheld).map((e) => e.id));
  for (let i = 0; i < ids.length; i += 500) {
    for (const a of await listAnalyteRows(ctx.db, ids.slice(i, i + 500))) {
      const list = out.get(a.examId) ?? [];
      list.push(a);
      out.set(a.examId, list);
    }
  }
  for (const list of out.values()) list.sort((a, b) => a.position - b.position);
  return out;
}

function resourcesOf(
  type: ReadType,
  viewer: DeliveryViewer,
  views: View[],
  analytes: Map<string, AnalyteRow[]>,
): Found[] {
  const out: Found[] = [];
  for (const v of views) {
    if (type === 'ServiceRequest') {
      out.push({ resource: toServiceRequest(viewer, v), view: v, date: v.item.requestedAt ?? null });
      continue;
    }
    for (const e of v.item.exams ?? []) {
      const date = e.performedAt ?? v.item.requestedAt ?? null;
      if (type === 'DiagnosticReport') {
        out.push({ resource: toDiagnosticReport(viewer, v, e, analytes.get(e.id) ?? []), view: v, date });
      } else if (type === 'Observation') {
        for (const a of analytes.get(e.id) ?? []) out.push({ resource: toObservation(viewer, v, e, a), view: v, date });
      } else if (type === 'DocumentReference') {
        for (const listed of e.resources) {
          const r = v.resources.get(listed.identifier);
          if (r) out.push({ resource: toDocumentReference(viewer, v, e, r), view: v, date: r.createdAt });
        }
      }
    }
  }
  return out;
}

/** Patient (self): a patient's own account, as the account screens show it. */
async function selfPatient(ctx: AppContext, viewer: DeliveryViewer): Promise<Patient | undefined> {
  if (viewer.role !== 'PATIENT' || !viewer.userId) return undefined;
  const user = await findUserById(ctx.db, viewer.userId);
  if (!user) return undefined;
  return {
    resourceType: 'Patient',
    id: user.id,
    meta: { lastUpdated: user.updatedAt },
    ...(user.cpf ? { identifier: [{ system: SYSTEMS.cpf, value: user.cpf }] } : {}),
    name: [{ text: user.name }],
    telecom: [
      { system: 'email', value: user.email },
      ...(user.phoneMobile ? [{ system: 'phone' as const, value: user.phoneMobile, use: 'mobile' as const }] : []),
    ],
    ...(user.gender === 'FEMALE' || user.gender === 'MALE'
      ? { gender: user.gender === 'FEMALE' ? 'female' : 'male' }
      : {}),
    ...(user.birth ? { birthDate: user.birth } : {}),
  } as Patient;
}

async function auditSelf(ctx: AppContext, request: FastifyRequest, viewer: DeliveryViewer): Promise<void> {
  await recordAudits(
    ctx,
    [
      {
        event: 'VIEW_PATIENT',
        resource: { type: 'PATIENT', id: viewer.userId },
        systemUser: auditUser(viewer),
        macro: { channel: 'FHIR R4', read: 'Patient' },
      },
    ],
    request,
  );
}

/** `GET /api/fhir/R4/{type}/{id}`: one resource the viewer may see, else 404 as if it did not exist. */
export async function readOne(
  ctx: AppContext,
  auth: AuthContext,
  type: ReadType,
  id: string,
  request: FastifyRequest,
): Promise<Resource> {
  const viewer = loadViewer(auth);
  if (type === 'Patient') {
    const patient = id === viewer.userId ? await selfPatient(ctx, viewer) : undefined;
    if (!patient) throw fhirNotFound();
    await auditSelf(ctx, request, viewer);
    return patient;
  }
  let protocolId: string | undefined;
  let examId: string | undefined;
  let analyte: AnalyteRow | undefined;
  if (type === 'ServiceRequest') protocolId = id;
  else if (type === 'DiagnosticReport') {
    const exam = await examById(ctx.db, id);
    protocolId = exam?.protocolId;
    examId = exam?.id;
  } else if (type === 'Observation') {
    if (!canViewHistory(viewer.role)) throw fhirNotFound();
    analyte = await analyteById(ctx.db, id);
    const exam = analyte ? await examById(ctx.db, analyte.examId) : undefined;
    protocolId = exam?.protocolId;
    examId = exam?.id;
  } else if (type === 'DocumentReference') {
    const found = await resourceWithExam(ctx.db, id);
    protocolId = found?.exam.protocolId;
    examId = found?.exam.id;
  }
  if (!protocolId) throw fhirNotFound();
  // The delivery module's rule decides; "not yours" is the same 404 as "not found".
  const facts = await authoriseProtocol(ctx, viewer, protocolId).catch(() => undefined);
  if (!facts) throw fhirNotFound();
  const [view] = await viewsOf(ctx, viewer, [facts]);
  if (!view) throw fhirNotFound();
  let resource: Resource | undefined;
  if (type === 'ServiceRequest') resource = toServiceRequest(viewer, view);
  else {
    const exam = (view.item.exams ?? []).find((e) => e.id === examId);
    if (!exam) throw fhirNotFound();
    if (type === 'DiagnosticReport') {
      const analytes = await analytesOf(ctx, viewer, [view]);
      resource = toDiagnosticReport(viewer, view, exam, analytes.get(exam.id) ?? []);
    } else if (type === 'Observation' && analyte) resource = toObservation(viewer, view, exam, analyte);
    else if (type === 'DocumentReference') {
      const listed = exam.resources.some((r) => r.identifier === id);
      const row = view.resources.get(id);
      if (listed && row) resource = toDocumentReference(viewer, view, exam, row);
    }
  }
  if (!resource) throw fhirNotFound();
  await audit(
    ctx,
    request,
    viewer,
    [view],
    type === 'Observation' ? 'HISTORY_VIEWED' : 'VIEW_PROTOCOL',
    `${type}/${id}`,
  );
  return resource;
}

/** `GET /api/fhir/R4/Binary/{id}`: the file itself, opened as the portal opens it (read mark, trace). */
export async function readBinary(
  ctx: AppContext,
  auth: AuthContext,
  id: string,
  request: FastifyRequest,
): Promise<FileAnswer> {
  loadViewer(auth);
  const found = await resourceWithExam(ctx.db, id);
  if (!found) throw fhirNotFound();
  const kind = found.resource.type === 'IMAGE' ? 'image' : 'report';
  return openResource(ctx, auth, kind, { resourceId: id }, request);
}

type Prefix = 'eq' | 'ne' | 'gt' | 'lt' | 'ge' | 'le' | 'sa' | 'eb';

/** A date search value as the interval it names (a day is a day in Brazil, GMT-3). */
function dateCriterion(raw: string, name: string): { prefix: Prefix; start: number; end: number } {
  const m = /^(eq|ne|gt|lt|ge|le|sa|eb)?(\d{4})(?:-(\d{2})(?:-(\d{2})(T[\d:.]+(?:Z|[+-]\d{2}:\d{2})?)?)?)?$/.exec(raw);
  if (!m) throw new FhirError(400, [{ code: 'value', text: `Invalid date in ${name}: ${raw}`, location: name }]);
  const prefix = (m[1] ?? 'eq') as Prefix;
  const [year, month, day, time] = [
    Number(m[2]),
    m[3] ? Number(m[3]) : undefined,
    m[4] ? Number(m[4]) : undefined,
    m[5],
  ];
  if (time) {
    const at = Date.parse(`${m[2]}-${m[3]}-${m[4]}${time}`);
    if (Number.isNaN(at))
      throw new FhirError(400, [{ code: 'value', text: `Invalid date in ${name}: ${raw}`, location: name }]);
    return { prefix, start: at, end: at + 1000 };
  }
  const utc = (y: number, mo: number, d: number) => Date.UTC(y, mo, d, 3);
  if (day !== undefined && month !== undefined)
    return { prefix, start: utc(year, month - 1, day), end: utc(year, month - 1, day + 1) };
  if (month !== undefined) return { prefix, start: utc(year, month - 1, 1), end: utc(year, month, 1) };
  return { prefix, start: utc(year, 0, 1), end: utc(year + 1, 0, 1) };
}

function dateMatches(value: string | null | undefined, c: ReturnType<typeof dateCriterion>): boolean {
  if (!value) return false;
  const at = Date.parse(value.length === 10 ? `${value}T00:00:00-03:00` : value);
  if (Number.isNaN(at)) return false;
  switch (c.prefix) {
    case 'eq':
      return at >= c.start && at < c.end;
    case 'ne':
      return at < c.start || at >= c.end;
    case 'gt':
    case 'sa':
      return at >= c.end;
    case 'ge':
      return at >= c.start;
    case 'lt':
    case 'eb':
      return at < c.start;
    case 'le':
      return at < c.end;
  }
}

/** A token search value `system|code`, `|code` or `code`, any of a comma-separated list. */
function tokenMatches(raw: string, codings: ReadonlyArray<{ system?: string; code?: string }>): boolean {
  return raw.split(',').some((one) => {
    const bar = one.indexOf('|');
    const system = bar >= 0 ? one.slice(0, bar) : undefined;
    const code = (bar >= 0 ? one.slice(bar + 1) : one).toLowerCase();
    return codings.some(
      (c) =>
        (c.code ?? '').toLowerCase() === code &&
        (system === undefined || (system === '' ? !c.system : c.system === system)),
    );
  });
}

function codingsOf(resource: Resource, element: 'code' | 'category' | 'type') {
  const value = (resource as unknown as Record<string, unknown>)[element];
  const concepts = (Array.isArray(value) ? value : value ? [value] : []) as Array<{
    coding?: Array<{ system?: string; code?: string }>;
  }>;
  return concepts.flatMap((c) => c.coding ?? []);
}

export type SearchQuery = Record<string, string | string[] | undefined>;

const values = (query: SearchQuery, name: string): string[] => {
  const v = query[name];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
};

/**
 * `GET /api/fhir/R4/{type}?…`: a searchset over what the viewer may see, newest first, with
 * `patient`, `date`, `code`, `category`, `_lastUpdated`, `_count` and paging links.
 */
export async function search(
  ctx: AppContext,
  auth: AuthContext,
  type: ReadType,
  query: SearchQuery,
  request: FastifyRequest,
  base: string,
): Promise<Bundle> {
  const viewer = loadViewer(auth);
  const count = Math.min(Math.max(Number(values(query, '_count')[0] ?? COUNT_DEFAULT) || 0, 0), COUNT_MAX);
  const offset = Math.max(Number(values(query, '_offset')[0] ?? 0) || 0, 0);
  const dates = values(query, 'date').map((d) => dateCriterion(d, 'date'));
  const updated = values(query, '_lastUpdated').map((d) => dateCriterion(d, '_lastUpdated'));
  const patients = values(query, 'patient').concat(values(query, 'subject'));
  const patientOk = patients.every((p) => {
    const id = p.replace(/^Patient\//, '');
    return viewer.role === 'PATIENT' && id === viewer.userId;
  });

  let found: Found[] = [];
  if (type === 'Patient') {
    const self = patientOk ? await selfPatient(ctx, viewer) : undefined;
    const ids = values(query, '_id');
    if (self && (ids.length === 0 || ids.includes(self.id ?? '')))
      found = [{ resource: self, view: undefined as never, date: null }];
  } else if (type !== 'Binary' && patientOk) {
    const views = await reachViews(ctx, viewer);
    const analytes =
      type === 'Observation' || type === 'DiagnosticReport' ? await analytesOf(ctx, viewer, views) : new Map();
    found = resourcesOf(type, viewer, views, analytes);
  }
  const codes = values(query, 'code');
  const categories = values(query, 'category');
  found = found.filter(
    (f) =>
      dates.every((d) => dateMatches(f.date, d)) &&
      updated.every((d) => dateMatches(f.resource.meta?.lastUpdated, d)) &&
      codes.every((c) => tokenMatches(c, codingsOf(f.resource, type === 'DocumentReference' ? 'type' : 'code'))) &&
      categories.every((c) => tokenMatches(c, codingsOf(f.resource, 'category'))),
  );
  found.sort((a, b) =>
    (a.date ?? '') < (b.date ?? '')
      ? 1
      : (a.date ?? '') > (b.date ?? '')
        ? -1
        : a.resource.id! < b.resource.id!
          ? -1
          : 1,
  );
  const page = found.slice(offset, offset + count);
  const views = page.map((f) => f.view).filter((v): v is View => v !== undefined);
  if (type === 'Patient' && page.length > 0) await auditSelf(ctx, request, viewer);
  else if (views.length > 0)
    await audit(
      ctx,
      request,
      viewer,
      views,
      type === 'Observation' ? 'HISTORY_VIEWED' : 'VIEW_PROTOCOL',
      `search ${type}`,
    );

  const link = (at: number) => {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      if (name === '_offset' || value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) params.append(name, v);
    }
    params.set('_count', String(count));
    params.set('_offset', String(at));
    return `${base}/${type}?${params.toString()}`;
  };
  return {
    resourceType: 'Bundle',
    type: 'searchset',
    total: found.length,
    link: [
      { relation: 'self', url: link(offset) },
      ...(count > 0 && offset + count < found.length ? [{ relation: 'next', url: link(offset + count) }] : []),
      ...(count > 0 && offset > 0 ? [{ relation: 'previous', url: link(Math.max(0, offset - count)) }] : []),
    ],
    entry: page.map((f) => ({
      fullUrl: `${base}/${f.resource.resourceType}/${f.resource.id}`,
      resource: f.resource,
      search: { mode: 'match' as const },
    })),
  };
}
