import { Readable } from 'node:stream';
import type {
  Attachment,
  Binary,
  Bundle,
  BundleEntry,
  DiagnosticReport,
  DocumentReference,
  Identifier,
  ImagingStudy,
  Observation,
  Patient,
  Practitioner,
  PractitionerRole,
  Reference,
  Resource,
  ServiceRequest,
} from '@medplum/fhirtypes';
import type { ResourceType } from '@portal/shared/exam-status';
import { zExternalKey } from '@portal/shared/schemas/common';
import { type IngestExam, RESOURCE_CONTENT_TYPES, zIngestProtocol } from '@portal/shared/schemas/ingest';
import { isValidCpf } from '@portal/shared/formats';
import type { AppContext } from '../../context.js';
import { AppError } from '../../lib/errors.js';
import type { Institution } from '../institutions/institution.service.js';
import { ingestResource } from '../ingest/ingest-resource.service.js';
import { findProtocolRow, findResourceRow, listAnalyteRows, listExamRows } from '../ingest/ingest.repository.js';
import { ingestProtocol, type IngestProtocolInput } from '../ingest/ingest.service.js';
import {
  analyteCodeOf,
  conceptText,
  cpfOf,
  crmOf,
  examKindOf,
  examStatusOf,
  genderOf,
  identifierCriterion,
  keyIdentifierOf,
  matchesCriterion,
  nameText,
  observationValue,
  patientIdOf,
  READ_TYPES,
  SYSTEMS,
  telecomOf,
  timestampOf,
} from './fhir-mapping.js';
import { isR4ResourceType, validateR4 } from './fhir-validation.js';
import { FhirError, type Issue, operationOutcome } from './outcome.js';

/** Resource types a result Bundle may carry; the first group is mapped, the second read for them. */
const MAPPED: readonly string[] = [...READ_TYPES, 'ImagingStudy'];
const SUPPORTING = ['Practitioner', 'PractitionerRole', 'Organization', 'Specimen'];
/** Types whose entries must name themselves by identifier (the institution's keys). */
const KEYED = ['Patient', 'ServiceRequest', 'DiagnosticReport', 'DocumentReference', 'ImagingStudy'];

interface Entry {
  index: number;
  loc: string;
  fullUrl?: string;
  resource: Resource;
  method: 'POST' | 'PUT';
  /** `ifNoneExist` on a POST: leave an existing resource as it is. */
  createOnly: boolean;
}

interface FileInput {
  identifier: string;
  type: ResourceType;
  contentType: string;
  data: Buffer;
  /** Entries answered with this file's outcome (the DocumentReference, the Binary). */
  entries: Array<{ entry: Entry; as: 'DocumentReference' | 'Binary' }>;
}

interface ExamInput {
  entry: Entry;
  exam: IngestExam;
  observations: Array<{ entry: Entry; code: string }>;
  files: FileInput[];
}

/** One protocol of the Bundle: a ServiceRequest with its patient, reports, results and files. */
interface Group {
  request: Entry;
  patient: Entry;
  number: string;
  body: IngestProtocolInput;
  exams: ExamInput[];
  /** Supporting entries (practitioners, organisations) answered with the protocol's outcome. */
  supporting: Entry[];
  /** The ServiceRequest's requester, given to every exam of the protocol. */
  requester: IngestExam['requester'];
}

export interface EntryOutcome {
  status: string;
  location?: string;
  outcome?: ReturnType<typeof operationOutcome>;
}

/** Refusals collected while reading a Bundle, each with its place. */
class Problems {
  readonly list: Issue[] = [];
  /** Entry index → problems of that entry (batch answers). */
  readonly byEntry = new Map<number, Issue[]>();
  add(entry: Entry | number | null, issue: Issue): void {
    this.list.push(issue);
    const index = typeof entry === 'number' ? entry : entry?.index;
    if (index === undefined) return;
    const list = this.byEntry.get(index) ?? [];
    list.push(issue);
    this.byEntry.set(index, list);
  }
}

const ok = (created: boolean) => (created ? '201 Created' : '200 OK');

/**
 * `POST /api/fhir/R4`: a `transaction` or `batch` Bundle of results mapped onto contract 5's
 * ingest. A transaction is refused whole (OperationOutcome) when any entry is wrong, before
 * anything is written; a batch answers each protocol's entries on their own.
 */
export async function ingestBundle(ctx: AppContext, institution: Institution, input: unknown): Promise<Bundle> {
  const bundle = readBundle(input);
  const kind = bundle.type as 'transaction' | 'batch';
  const problems = new Problems();
  const entries = readEntries(bundle, problems);
  const groups = groupEntries(entries, problems);

  if (kind === 'transaction') {
    if (problems.list.length > 0) throw new FhirError(problemStatus(problems.list), problems.list);
    const answers = new Map<number, EntryOutcome>();
    for (const group of groups)
      for (const [index, outcome] of await writeGroup(ctx, institution, group)) answers.set(index, outcome);
    return responseBundle('transaction-response', bundle, answers);
  }

  const answers = new Map<number, EntryOutcome>();
  for (const group of groups) {
    const members = groupMembers(group);
    const issues = members.flatMap((index) => problems.byEntry.get(index) ?? []);
    if (issues.length > 0) {
      for (const index of members)
        answers.set(index, { status: `${problemStatus(issues)}`, outcome: operationOutcome(issues) });
      continue;
    }
    try {
      for (const [index, outcome] of await writeGroup(ctx, institution, group)) answers.set(index, outcome);
    } catch (error) {
      const refusal = asRefusal(error);
      for (const index of members)
        answers.set(index, { status: String(refusal.statusCode), outcome: operationOutcome(refusal.issues) });
    }
  }
  for (const [index, issues] of problems.byEntry) {
    if (!answers.has(index))
      answers.set(index, { status: String(problemStatus(issues)), outcome: operationOutcome(issues) });
  }
  return responseBundle('batch-response', bundle, answers);
}

function asRefusal(error: unknown): FhirError {
  if (error instanceof FhirError) return error;
  if (error instanceof AppError && error.statusCode < 500) {
    return new FhirError(error.statusCode, [{ code: 'processing', text: error.message }]);
  }
  throw error;
}

/** 422 when the Bundle is well formed but its content cannot be used; 400 when it is malformed. */
function problemStatus(issues: readonly Issue[]): number {
  return issues.some(
    (i) => i.code === 'structure' || i.code === 'invalid' || i.code === 'required' || i.code === 'value',
  )
    ? 400
    : 422;
}

function readBundle(input: unknown): Bundle {
  if (typeof input !== 'object' || input === null || (input as Resource).resourceType !== 'Bundle') {
    throw new FhirError(400, [{ code: 'invalid', text: 'The body must be a FHIR Bundle', location: 'Bundle' }]);
  }
  const bundle = input as Bundle;
  if (bundle.type !== 'transaction' && bundle.type !== 'batch') {
    throw new FhirError(400, [
      { code: 'not-supported', text: 'Only transaction and batch Bundles are accepted', location: 'Bundle.type' },
    ]);
  }
  if (!Array.isArray(bundle.entry) || bundle.entry.length === 0) {
    throw new FhirError(400, [{ code: 'required', text: 'The Bundle has no entries', location: 'Bundle.entry' }]);
  }
  return bundle;
}

/** Every entry checked on its own: type, base R4 validity, method, identifiers. */
function readEntries(bundle: Bundle, problems: Problems): Entry[] {
  const entries: Entry[] = [];
  (bundle.entry ?? []).forEach((raw: BundleEntry, index) => {
    const loc = `Bundle.entry[${index}]`;
    const resource = raw.resource;
    if (!resource || typeof resource !== 'object') {
      problems.add(index, { code: 'required', text: 'The entry has no resource', location: `${loc}.resource` });
      return;
    }
    const type = resource.resourceType as string;
    if (!isR4ResourceType(type)) {
      problems.add(index, {
        code: 'invalid',
        text: `Unknown resource type "${String(type)}"`,
        location: `${loc}.resource.resourceType`,
      });
      return;
    }
    if (!MAPPED.includes(type) && !SUPPORTING.includes(type)) {
      problems.add(index, {
        code: 'not-supported',
        text: `${type} is not accepted here: results come as ${MAPPED.join(', ')} with ${SUPPORTING.join(', ')}`,
        location: `${loc}.resource.resourceType`,
      });
      return;
    }
    const invalid = validateR4(resource, `${loc}.resource`);
    for (const issue of invalid) problems.add(index, issue);

    const request = raw.request;
    const method = request?.method ?? 'POST';
    const entry: Entry = { index, loc, fullUrl: raw.fullUrl, resource, method: 'POST', createOnly: false };
    const identifiers = (resource as { identifier?: Identifier[] }).identifier;
    if (method === 'POST') {
      if (request?.url && request.url !== type) {
        problems.add(index, { code: 'invalid', text: `POST must name ${type}`, location: `${loc}.request.url` });
      }
      if (request?.ifNoneExist) {
        const criterion = identifierCriterion(request.ifNoneExist);
        if (!criterion) {
          problems.add(index, {
            code: 'not-supported',
            text: 'ifNoneExist must be identifier=system|value',
            location: `${loc}.request.ifNoneExist`,
          });
        } else if (!matchesCriterion(identifiers, criterion)) {
          problems.add(index, {
            code: 'processing',
            text: 'ifNoneExist names an identifier the resource does not carry',
            location: `${loc}.request.ifNoneExist`,
          });
        } else entry.createOnly = true;
      }
    } else if (method === 'PUT') {
      entry.method = 'PUT';
      const url = request?.url ?? '';
      const [path = '', query = ''] = url.split('?');
      const criterion = identifierCriterion(query);
      if (path !== type || !criterion) {
        problems.add(index, {
          code: 'not-supported',
          text: `Updates are conditional on the institution's identifier: PUT ${type}?identifier=system|value`,
          location: `${loc}.request.url`,
        });
      } else if (!matchesCriterion(identifiers, criterion)) {
        problems.add(index, {
          code: 'processing',
          text: 'The conditional update names an identifier the resource does not carry',
          location: `${loc}.request.url`,
        });
      }
    } else {
      problems.add(index, {
        code: 'not-supported',
        text: `${method} is not accepted in a results Bundle (POST or conditional PUT)`,
        location: `${loc}.request.method`,
      });
    }
    if (
      KEYED.includes(type) &&
      !(identifiers ?? []).some((i) => i.value) &&
      !(type === 'DocumentReference' && (resource as DocumentReference).masterIdentifier?.value)
    ) {
      problems.add(index, {
        code: 'required',
        text: `${type} needs an identifier: the institution's own key makes a resend idempotent`,
        location: `${loc}.resource.identifier`,
      });
    }
    entries.push(entry);
  });
  return entries;
}

/** Finds the entry a reference points at: its fullUrl (urn:uuid:…, absolute) or Type/id. */
function resolver(entries: readonly Entry[]) {
  const byKey = new Map<string, Entry>();
  for (const e of entries) {
    if (e.fullUrl) {
      byKey.set(e.fullUrl, e);
      const m = /([A-Za-z]+\/[A-Za-z0-9\-.]{1,64})(\/_history\/.*)?$/.exec(e.fullUrl);
      if (m && !e.fullUrl.startsWith('urn:')) byKey.set(m[1]!, e);
    }
    if (e.resource.id) byKey.set(`${e.resource.resourceType}/${e.resource.id}`, e);
  }
  return (reference: string | undefined) => (reference ? byKey.get(reference) : undefined);
}

function groupEntries(entries: readonly Entry[], problems: Problems): Group[] {
  const find = resolver(entries);
  const used = new Set<number>();
  const of = <T extends Resource>(e: Entry) => e.resource as T;

  /** A reference that must point at an entry of one of `types`; a problem at `location` otherwise. */
  const follow = (owner: Entry, ref: Reference | undefined, types: string[], location: string, required = true) => {
    if (!ref?.reference) {
      if (required) {
        problems.add(owner, { code: 'required', text: `A reference to ${types.join(' or ')} is required`, location });
      }
      return undefined;
    }
    const target = find(ref.reference);
    if (!target || !types.includes(target.resource.resourceType)) {
      problems.add(owner, {
        code: 'processing',
        text: `The reference "${ref.reference}" does not point at a ${types.join(' or ')} of this Bundle`,
        location: `${location}.reference`,
      });
      return undefined;
    }
    return target;
  };

  const requests = entries.filter((e) => e.resource.resourceType === 'ServiceRequest');
  const groups = new Map<number, Group>();
  for (const entry of requests) {
    const sr = of<ServiceRequest>(entry);
    const patientEntry = follow(entry, sr.subject, ['Patient'], `${entry.loc}.resource.subject`);
    if (!patientEntry) continue;
    used.add(entry.index);
    used.add(patientEntry.index);
    const number = keyIdentifierOf(sr.identifier, 'PLAC')?.value ?? '';
    if (number && !zExternalKey.safeParse(number).success) {
      problems.add(entry, {
        code: 'value',
        text: 'The protocol number (identifier) may hold only letters, digits, ".", "-" and "_"',
        location: `${entry.loc}.resource.identifier`,
      });
    }
    const patient = readPatient(patientEntry, problems);
    const supporting: Entry[] = [];
    const requester = readRequester(sr.requester, find, supporting);
    const password = sr.extension?.find((x) => x.url === SYSTEMS.protocolPassword)?.valueString ?? null;
    const tag = sr.extension?.find((x) => x.url === SYSTEMS.protocolTag)?.valueString;
    groups.set(entry.index, {
      request: entry,
      patient: patientEntry,
      number,
      supporting,
      requester,
      exams: [],
      body: {
        password,
        requestedAt: timestampOf(sr.authoredOn) ?? null,
        tag: tag ?? null,
        patient,
        exams: [],
      },
    });
  }
  const onlyGroup = groups.size === 1 ? [...groups.values()][0] : undefined;

  /** The protocol of a report or study: basedOn, else the one ServiceRequest of the Bundle. */
  const groupOf = (entry: Entry, basedOn: Reference[] | undefined): Group | undefined => {
    const ref = basedOn?.find((r) => r.reference);
    if (!ref) {
      if (onlyGroup) return onlyGroup;
      problems.add(entry, {
        code: 'required',
        text: 'basedOn must name the ServiceRequest (the protocol) of this result',
        location: `${entry.loc}.resource.basedOn`,
      });
      return undefined;
    }
    const target = follow(entry, ref, ['ServiceRequest'], `${entry.loc}.resource.basedOn[0]`);
    return target ? groups.get(target.index) : undefined;
  };

  const studies = new Map<number, ExamInput>();
  const examOfReport = new Map<number, ExamInput>();
  for (const entry of entries.filter((e) => e.resource.resourceType === 'DiagnosticReport')) {
    const dr = of<DiagnosticReport>(entry);
    const group = groupOf(entry, dr.basedOn);
    if (!group) continue;
    used.add(entry.index);
    checkSameSubject(entry, dr.subject, group, find, problems);
    const study = dr.imagingStudy?.length
      ? follow(entry, dr.imagingStudy[0], ['ImagingStudy'], `${entry.loc}.resource.imagingStudy[0]`)
      : undefined;
    if (study) used.add(study.index);
    const modality = study ? of<ImagingStudy>(study).modality?.[0] : undefined;
    const { status, enabled } = examStatusOf('DiagnosticReport', dr.status);
    const examKey = examKeyOf(entry, dr.identifier, problems);
    const input: ExamInput = {
      entry,
      observations: [],
      files: [],
      exam: {
        examKey,
        description: (conceptText(dr.code) ?? examKey).slice(0, 300),
        ...examKindOf(dr.category, modality),
        requester: group.requester,
        status,
        rectificationStatus: null,
        performedAt: timestampOf(dr.effectiveDateTime ?? dr.effectivePeriod?.start) ?? null,
        deliveredAt: timestampOf(dr.issued) ?? null,
        isEnabled: enabled,
      },
    };
    if (study) studies.set(study.index, input);
    // Results: the report's full list of analytes (an exam without `result` keeps what it had).
    if (dr.result?.length) {
      const analytes: NonNullable<IngestExam['analytes']> = [];
      dr.result.forEach((ref, i) => {
        const target = follow(entry, ref, ['Observation'], `${entry.loc}.resource.result[${i}]`);
        if (!target) return;
        used.add(target.index);
        const analyte = readObservation(target, problems);
        if (analyte) {
          analytes.push(analyte);
          input.observations.push({ entry: target, code: analyte.code });
        }
      });
      input.exam.analytes = analytes;
    }
    (dr.presentedForm ?? []).forEach((form, i) => {
      const file = readAttachment(entry, form, `${entry.loc}.resource.presentedForm[${i}]`, find, problems, used);
      if (file) {
        input.files.push({
          identifier: `presentedForm-${i + 1}`,
          type: file.contentType.startsWith('image/') ? 'IMAGE' : 'REPORT',
          contentType: file.contentType,
          data: file.data,
          entries: file.binary ? [{ entry: file.binary, as: 'Binary' }] : [],
        });
      }
    });
    examOfReport.set(entry.index, input);
    group.exams.push(input);
  }

  // An ImagingStudy no report names: an exam of its own (images taken, report to come).
  for (const entry of entries.filter((e) => e.resource.resourceType === 'ImagingStudy')) {
    if (studies.has(entry.index)) continue;
    const study = of<ImagingStudy>(entry);
    const group = groupOf(entry, study.basedOn);
    if (!group) continue;
    used.add(entry.index);
    checkSameSubject(entry, study.subject, group, find, problems);
    const examKey = examKeyOf(entry, study.identifier, problems, 'ACSN');
    const { status, enabled } = examStatusOf('ImagingStudy', study.status);
    group.exams.push({
      entry,
      observations: [],
      files: [],
      exam: {
        examKey,
        description: (study.description ?? conceptText(study.procedureCode?.[0]) ?? examKey).slice(0, 300),
        ...examKindOf(undefined, study.modality?.[0] ?? { code: 'OT' }),
        requester: group.requester,
        status,
        rectificationStatus: null,
        performedAt: timestampOf(study.started) ?? null,
        deliveredAt: null,
        isEnabled: enabled,
      },
    });
  }

  for (const entry of entries.filter((e) => e.resource.resourceType === 'DocumentReference')) {
    const doc = of<DocumentReference>(entry);
    const related = doc.context?.related?.find((r) => r.reference);
    const report = follow(entry, related, ['DiagnosticReport'], `${entry.loc}.resource.context.related[0]`);
    const exam = report ? examOfReport.get(report.index) : undefined;
    if (!exam) continue;
    used.add(entry.index);
    const identifier = keyIdentifierOf(doc.identifier)?.value ?? doc.masterIdentifier?.value ?? '';
    if (!zExternalKey.safeParse(identifier).success) {
      problems.add(entry, {
        code: 'value',
        text: 'The document identifier may hold only letters, digits, ".", "-" and "_"',
        location: `${entry.loc}.resource.identifier`,
      });
    }
    if (doc.status === 'entered-in-error') continue;
    const attachment = doc.content?.[0]?.attachment;
    const file = readAttachment(entry, attachment, `${entry.loc}.resource.content[0].attachment`, find, problems, used);
    if (!file) continue;
    const physician = (doc.type?.coding ?? []).some((c) => c.code === 'REPORT_PHYSICIAN');
    exam.files.push({
      identifier,
      type:
        file.contentType.startsWith('image/') || file.contentType === 'application/dicom'
          ? 'IMAGE'
          : physician
            ? 'REPORT_PHYSICIAN'
            : 'REPORT',
      contentType: file.contentType,
      data: file.data,
      entries: [
        { entry, as: 'DocumentReference' },
        ...(file.binary ? [{ entry: file.binary, as: 'Binary' as const }] : []),
      ],
    });
  }

  for (const entry of entries) {
    const type = entry.resource.resourceType;
    if (used.has(entry.index) || problems.byEntry.has(entry.index)) continue;
    if (SUPPORTING.includes(type)) continue;
    const why: Record<string, string> = {
      Patient: 'A Patient is delivered with the ServiceRequest (the protocol) whose subject it is',
      Observation: 'An Observation is delivered as a result of a DiagnosticReport (DiagnosticReport.result)',
      Binary: 'A Binary is delivered as a report file (presentedForm.url or a DocumentReference)',
      DocumentReference: 'A DocumentReference names its DiagnosticReport in context.related',
    };
    problems.add(entry, {
      code: 'processing',
      text: why[type] ?? `${type} is not part of any protocol of this Bundle`,
      location: entry.loc,
    });
  }
  for (const group of groups.values()) {
    if (!group.number) continue;
    group.body.exams = group.exams.map((e) => e.exam);
    checkProtocol(group, problems);
  }
  return [...groups.values()];
}

function examKeyOf(entry: Entry, identifiers: Identifier[] | undefined, problems: Problems, type?: string): string {
  const key = keyIdentifierOf(identifiers, type)?.value ?? '';
  if (key && !zExternalKey.safeParse(key).success) {
    problems.add(entry, {
      code: 'value',
      text: 'The exam key (identifier) may hold only letters, digits, ".", "-" and "_"',
      location: `${entry.loc}.resource.identifier`,
    });
  }
  return key;
}

function checkSameSubject(
  entry: Entry,
  subject: Reference | undefined,
  group: Group,
  find: (reference: string | undefined) => Entry | undefined,
  problems: Problems,
): void {
  if (!subject?.reference) return;
  if (find(subject.reference) !== group.patient) {
    problems.add(entry, {
      code: 'processing',
      text: 'The subject differs from the subject of its ServiceRequest',
      location: `${entry.loc}.resource.subject.reference`,
    });
  }
}

function readPatient(entry: Entry, problems: Problems): IngestProtocolInput['patient'] {
  const p = entry.resource as Patient;
  const name = nameText(p.name);
  if (!name)
    problems.add(entry, { code: 'required', text: 'The patient needs a name', location: `${entry.loc}.resource.name` });
  if (!p.birthDate || !/^\d{4}-\d{2}-\d{2}$/.test(p.birthDate)) {
    problems.add(entry, {
      code: 'required',
      text: 'The patient needs a full birth date (YYYY-MM-DD): guests sign in with it',
      location: `${entry.loc}.resource.birthDate`,
    });
  }
  const cpf = cpfOf(p.identifier);
  if (cpf !== undefined && !isValidCpf(cpf)) {
    const at = (p.identifier ?? []).findIndex((i) => cpfOf([i]) !== undefined);
    problems.add(entry, {
      code: 'value',
      text: 'The CPF is not valid',
      location: `${entry.loc}.resource.identifier[${at}].value`,
    });
  }
  const mother = p.extension?.find((x) => x.url === SYSTEMS.mothersMaidenName)?.valueString;
  return {
    patientId: (patientIdOf(p.identifier)?.value ?? '').slice(0, 100),
    name: name ?? '',
    birthDate: p.birthDate ?? '',
    gender: genderOf(p.gender),
    email: telecomOf(p.telecom, 'email')?.trim().toLowerCase() ?? null,
    phone: telecomOf(p.telecom, 'phone') ?? null,
    cpf: cpf ?? null,
    motherName: mother ?? null,
  };
}

/** The requester of a protocol: a Practitioner (or role) of the Bundle, or a logical reference. */
function readRequester(
  ref: Reference | undefined,
  find: (reference: string | undefined) => Entry | undefined,
  supporting: Entry[],
): IngestExam['requester'] {
  if (!ref) return null;
  let target = find(ref.reference);
  if (target?.resource.resourceType === 'PractitionerRole') {
    supporting.push(target);
    const role = target.resource as PractitionerRole;
    target = find(role.practitioner?.reference);
  }
  const identifiers: Identifier[] = [];
  let name = ref.display;
  if (target) {
    supporting.push(target);
    const resource = target.resource as Practitioner;
    identifiers.push(
      ...(resource.identifier ?? []),
      ...(resource.qualification ?? []).flatMap((q) =>
        (q.identifier ?? []).map((i) => ({ ...i, type: i.type ?? q.code })),
      ),
    );
    name = nameText(resource.name) ?? (resource as { name?: string }).name ?? name;
  }
  if (ref.identifier) identifiers.push(ref.identifier);
  const license = identifiers.map(crmOf).find((l) => l !== undefined);
  const identifier = license ? `CRM-${license.uf}-${license.crm}` : identifiers.find((i) => i.value)?.value;
  if (!identifier || !name || typeof name !== 'string') return null;
  return {
    identifier: identifier.slice(0, 100),
    name: name.slice(0, 200),
    crm: license?.crm ?? null,
    uf: license?.uf ?? null,
  };
}

function readObservation(entry: Entry, problems: Problems): NonNullable<IngestExam['analytes']>[number] | undefined {
  const o = entry.resource as Observation;
  if (o.status === 'cancelled' || o.status === 'entered-in-error') return undefined;
  const code = analyteCodeOf(o.code);
  if (!code) {
    problems.add(entry, {
      code: 'required',
      text: 'The Observation needs a code',
      location: `${entry.loc}.resource.code`,
    });
    return undefined;
  }
  const value = observationValue(o);
  if (!value) {
    problems.add(entry, {
      code: 'required',
      text: 'The Observation needs a value (valueQuantity, valueString, valueInteger or valueCodeableConcept)',
      location: `${entry.loc}.resource.value[x]`,
    });
    return undefined;
  }
  const range = o.referenceRange?.[0];
  return {
    code: code.slice(0, 64),
    name: (conceptText(o.code) ?? code).slice(0, 200),
    unit: value.unit?.slice(0, 32) ?? null,
    value: typeof value.value === 'string' ? value.value.slice(0, 200) : value.value,
    referenceMin: range?.low?.value ?? null,
    referenceMax: range?.high?.value ?? null,
    referenceText: range?.text?.slice(0, 200) ?? null,
  };
}

/** The bytes of an attachment: inline base64, or a Binary of the Bundle named by its url. */
function readAttachment(
  entry: Entry,
  attachment: Attachment | undefined,
  location: string,
  find: (reference: string | undefined) => Entry | undefined,
  problems: Problems,
  used: Set<number>,
): { contentType: string; data: Buffer; binary?: Entry } | undefined {
  if (!attachment) return undefined;
  let contentType = attachment.contentType;
  let data = attachment.data;
  let binary: Entry | undefined;
  if (data === undefined && attachment.url) {
    binary = find(attachment.url);
    if (!binary || binary.resource.resourceType !== 'Binary') {
      problems.add(entry, {
        code: 'processing',
        text: `The attachment url "${attachment.url}" does not point at a Binary of this Bundle`,
        location: `${location}.url`,
      });
      return undefined;
    }
    used.add(binary.index);
    const b = binary.resource as Binary;
    contentType = contentType ?? b.contentType;
    data = b.data;
  }
  if (data === undefined) {
    problems.add(entry, { code: 'required', text: 'The attachment carries no data', location: `${location}.data` });
    return undefined;
  }
  const type = contentType?.split(';')[0]!.trim().toLowerCase();
  if (!type || !(RESOURCE_CONTENT_TYPES as readonly string[]).includes(type)) {
    problems.add(entry, {
      code: type ? 'not-supported' : 'required',
      text: `The attachment's contentType must be one of ${RESOURCE_CONTENT_TYPES.join(', ')}`,
      location: `${location}.contentType`,
    });
    return undefined;
  }
  const bytes = Buffer.from(data, 'base64');
  if (bytes.length === 0) {
    problems.add(entry, { code: 'required', text: 'The attachment is empty', location: `${location}.data` });
    return undefined;
  }
  return { contentType: type, data: bytes, binary };
}

/** The mapped protocol against contract 5's own schema, so both doors accept the same things. */
function checkProtocol(group: Group, problems: Problems): void {
  const parsed = zIngestProtocol.safeParse({ ...group.body, password: group.body.password ?? 'kept' });
  if (parsed.success) {
    group.body = { ...parsed.data, password: group.body.password };
    return;
  }
  for (const issue of parsed.error.issues) {
    const [head, index] = issue.path;
    const exam = head === 'exams' && typeof index === 'number' ? group.exams[index] : undefined;
    const at = exam?.entry ?? (head === 'patient' ? group.patient : group.request);
    problems.add(at, {
      code: 'value',
      text: `${issue.path.join('.')}: ${issue.message}`,
      location: `${at.loc}.resource`,
    });
  }
}

function groupMembers(group: Group): number[] {
  const indexes = new Set<number>([group.request.index, group.patient.index, ...group.supporting.map((e) => e.index)]);
  for (const exam of group.exams) {
    indexes.add(exam.entry.index);
    for (const o of exam.observations) indexes.add(o.entry.index);
    for (const f of exam.files) for (const e of f.entries) indexes.add(e.entry.index);
  }
  return [...indexes];
}

/**
 * Writes one protocol through contract 5's ingest, merged (`IngestMerge`): the stored exams the
 * Bundle does not name are kept (FHIR resources come and go one by one), and what `ifNoneExist`
 * names is left untouched when it exists.
 */
async function writeGroup(ctx: AppContext, institution: Institution, group: Group): Promise<Map<number, EntryOutcome>> {
  // What existed before, for the answer's 201/200; the merge itself is decided in the write.
  const existing = await findProtocolRow(ctx.db, institution.id, group.number);
  const before = existing ? await listExamRows(ctx.db, existing.id) : [];
  const storedKeys = new Set(before.map((e) => e.examKey));
  const keyOf = new Map(before.map((r) => [r.id, r.examKey]));
  const analytesBefore = new Set(
    (
      await listAnalyteRows(
        ctx.db,
        before.map((r) => r.id),
      )
    ).map((a) => `${keyOf.get(a.examId)}\n${a.code}`),
  );
  const { created, result } = await ingestProtocol(ctx, institution, group.number, group.body, {
    keepProtocol: group.request.createOnly,
    keepPatient: group.patient.createOnly,
    keepExams: new Set(group.exams.filter((e) => e.entry.createOnly).map((e) => e.exam.examKey)),
  });

  const answers = new Map<number, EntryOutcome>();
  answers.set(group.request.index, { status: ok(created), location: `ServiceRequest/${result.requestId}` });
  answers.set(group.patient.index, { status: ok(created) });
  for (const e of group.supporting) answers.set(e.index, { status: '200 OK' });

  const rows = new Map((await listExamRows(ctx.db, result.requestId)).map((r) => [r.examKey, r]));
  const analyteIds = new Map(
    (
      await listAnalyteRows(
        ctx.db,
        [...rows.values()].map((r) => r.id),
      )
    ).map((a) => [`${a.examId}\n${a.code}`, a.id]),
  );
  for (const input of group.exams) {
    const row = rows.get(input.exam.examKey);
    if (!row) continue;
    const skipped = input.entry.createOnly && storedKeys.has(input.exam.examKey);
    const isStudy = input.entry.resource.resourceType === 'ImagingStudy';
    answers.set(input.entry.index, {
      status: ok(!storedKeys.has(input.exam.examKey)),
      location: isStudy ? undefined : `DiagnosticReport/${row.id}`,
    });
    for (const o of input.observations) {
      const id = analyteIds.get(`${row.id}\n${o.code}`);
      answers.set(o.entry.index, {
        status: ok(!analytesBefore.has(`${input.exam.examKey}\n${o.code}`)),
        ...(id ? { location: `Observation/${id}` } : {}),
      });
    }
    if (skipped) {
      for (const file of input.files) {
        const kept = await findResourceRow(ctx.db, row.id, file.identifier);
        for (const { entry, as } of file.entries) {
          answers.set(entry.index, { status: '200 OK', ...(kept ? { location: `${as}/${kept.id}` } : {}) });
        }
      }
      continue;
    }
    for (const file of input.files) {
      const upload = await ingestResource(ctx, institution, {
        number: group.number,
        examKey: input.exam.examKey,
        identifier: file.identifier,
        type: file.type,
        signed: false,
        contentType: file.contentType,
        declaredLength: file.data.length,
        body: Readable.from([file.data]),
      });
      const stored = await findResourceRow(ctx.db, row.id, file.identifier);
      for (const { entry, as } of file.entries) {
        answers.set(entry.index, {
          status: ok(upload.created),
          ...(stored ? { location: `${as}/${stored.id}` } : {}),
        });
      }
    }
  }
  return answers;
}

function responseBundle(
  type: 'transaction-response' | 'batch-response',
  bundle: Bundle,
  answers: Map<number, EntryOutcome>,
): Bundle {
  return {
    resourceType: 'Bundle',
    type,
    entry: (bundle.entry ?? []).map((_entry, index) => {
      const answer = answers.get(index) ?? { status: '200 OK' };
      return {
        response: {
          status: answer.status,
          ...(answer.location ? { location: answer.location } : {}),
          ...(answer.outcome ? { outcome: answer.outcome } : {}),
        },
      };
    }),
  };
}
