import type {
  CodeableConcept,
  ContactPoint,
  DiagnosticReport,
  HumanName,
  Identifier,
  ImagingStudy,
  Observation,
} from '@medplum/fhirtypes';
import { digitsOnly } from '@portal/shared/formats';

/** Resource types of the FHIR door: read by signed-in users, and delivered (with ImagingStudy). */
export const READ_TYPES = [
  'Patient',
  'ServiceRequest',
  'DiagnosticReport',
  'Observation',
  'DocumentReference',
  'Binary',
] as const;
export type ReadType = (typeof READ_TYPES)[number];

/** Brazilian naming systems (RNDS) the portal understands, and the portal's own extensions. */
export const SYSTEMS = {
  cpf: 'http://rnds.saude.gov.br/fhir/r4/NamingSystem/cpf',
  cns: 'http://rnds.saude.gov.br/fhir/r4/NamingSystem/cns',
  crm: 'http://rnds.saude.gov.br/fhir/r4/NamingSystem/crm',
  loinc: 'http://loinc.org',
  v2IdentifierType: 'http://terminology.hl7.org/CodeSystem/v2-0203',
  v2DiagnosticService: 'http://terminology.hl7.org/CodeSystem/v2-0074',
  interpretation: 'http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation',
  /** The protocol password on a ServiceRequest (what a guest signs in with). */
  protocolPassword: 'urn:results-portal:fhir:StructureDefinition:protocol-password',
  /** The institution's tag (partner group) of a protocol, on a ServiceRequest. */
  protocolTag: 'urn:results-portal:fhir:StructureDefinition:protocol-tag',
  /** The portal's own identifiers in the read API. */
  protocolNumber: 'urn:results-portal:protocol-number',
  examKey: 'urn:results-portal:exam-key',
  patientId: 'urn:results-portal:patient-id',
  mothersMaidenName: 'http://hl7.org/fhir/StructureDefinition/patient-mothersMaidenName',
} as const;

const UFS = new Set('AC AL AP AM BA CE DF ES GO MA MT MS MG PA PB PR PE PI RJ RN RS RO RR SC SP SE TO'.split(' '));

const typeCodes = (id: Identifier) => (id.type?.coding ?? []).map((c) => (c.code ?? '').toUpperCase());

/** CPF: the RNDS system, an OID of the Receita Federal, or a system ending in "cpf". */
export function isCpfIdentifier(id: Identifier): boolean {
  const system = (id.system ?? '').toLowerCase();
  return system === SYSTEMS.cpf || /[/:.]cpf$/.test(system) || system === 'urn:oid:2.16.840.1.113883.13.237';
}

export function isCnsIdentifier(id: Identifier): boolean {
  const system = (id.system ?? '').toLowerCase();
  return system === SYSTEMS.cns || /[/:.]cns$/.test(system) || system === 'urn:oid:2.16.840.1.113883.13.236';
}

/** The CPF digits of a patient, when one of its identifiers is a CPF. */
export function cpfOf(identifiers: readonly Identifier[] | undefined): string | undefined {
  const found = (identifiers ?? []).find((i) => isCpfIdentifier(i) && i.value);
  return found?.value ? digitsOnly(found.value) : undefined;
}

/**
 * The institution's own patient id: a medical-record identifier (type MR), else any identifier
 * that is not a CPF or CNS, else the CPF, else the CNS.
 */
export function patientIdOf(identifiers: readonly Identifier[] | undefined): Identifier | undefined {
  const list = (identifiers ?? []).filter((i) => i.value);
  return (
    list.find((i) => typeCodes(i).includes('MR')) ??
    list.find((i) => !isCpfIdentifier(i) && !isCnsIdentifier(i)) ??
    list.find(isCpfIdentifier) ??
    list.find(isCnsIdentifier)
  );
}

/** The protocol number of a ServiceRequest: its placer (PLAC) identifier, else its first one. */
export function keyIdentifierOf(identifiers: readonly Identifier[] | undefined, preferredType?: string) {
  const list = (identifiers ?? []).filter((i) => i.value);
  return (preferredType ? list.find((i) => typeCodes(i).includes(preferredType)) : undefined) ?? list[0];
}

/**
 * A CRM license from an identifier, as Brazilian systems write it: the system names the council
 * (".../crm", "...crm-sp", "CRMSP") and the UF comes from the system, the value ("123456-SP",
 * "SP 123456", "CRM/SP 123456") or the assigner ("CRM-SP").
 */
export function crmOf(id: Identifier): { crm: string; uf: string } | undefined {
  const system = id.system ?? '';
  const assigner = id.assigner?.display ?? id.assigner?.identifier?.value ?? '';
  const isCrm = /crm/i.test(system) || typeCodes(id).includes('CRM') || /crm/i.test(assigner);
  if (!isCrm || !id.value) return undefined;
  const value = id.value.toUpperCase();
  const crm = digitsOnly(value);
  if (crm === '') return undefined;
  const ufIn = (text: string) => {
    const m = /(?:^|[^A-Z])CRM[-/\s_]?([A-Z]{2})(?:[^A-Z]|$)/.exec(text.toUpperCase());
    if (m && UFS.has(m[1]!)) return m[1];
    return undefined;
  };
  const inValue = /(?:^|[^A-Z])([A-Z]{2})(?:[^A-Z]|$)/.exec(value.replace(/CRM/g, ' '));
  const uf =
    ufIn(system) ??
    (inValue && UFS.has(inValue[1]!) ? inValue[1] : undefined) ??
    ufIn(assigner) ??
    (UFS.has(assigner.trim().toUpperCase()) ? assigner.trim().toUpperCase() : undefined);
  return uf ? { crm: crm.replace(/^0+(?=\d)/, ''), uf } : undefined;
}

export function nameText(names: readonly HumanName[] | undefined): string | undefined {
  const name = names?.find((n) => n.use === 'official') ?? names?.[0];
  if (!name) return undefined;
  const text = name.text?.trim() || [...(name.given ?? []), name.family ?? ''].join(' ').replace(/\s+/g, ' ').trim();
  return text || undefined;
}

export function telecomOf(points: readonly ContactPoint[] | undefined, system: 'email' | 'phone'): string | undefined {
  const list = (points ?? []).filter((p) => p.system === system && p.value);
  return (list.find((p) => p.use === 'mobile') ?? list[0])?.value;
}

export function genderOf(gender: string | undefined): 'FEMALE' | 'MALE' | 'OTHER' | 'UNKNOWN' {
  return gender === 'female' ? 'FEMALE' : gender === 'male' ? 'MALE' : gender === 'other' ? 'OTHER' : 'UNKNOWN';
}

/** The text of a concept: its text, else the display or code of its first coding. */
export function conceptText(concept: CodeableConcept | undefined): string | undefined {
  const coding = concept?.coding?.find((c) => c.display) ?? concept?.coding?.[0];
  return concept?.text?.trim() || coding?.display?.trim() || coding?.code?.trim() || undefined;
}

/** An analyte's code: the LOINC code when there is one, else the first (local) code. */
export function analyteCodeOf(concept: CodeableConcept | undefined): string | undefined {
  const codings = concept?.coding ?? [];
  const chosen = codings.find((c) => c.system === SYSTEMS.loinc && c.code) ?? codings.find((c) => c.code);
  return chosen?.code ?? concept?.text;
}

const REPORT_STATUS: Record<string, string> = {
  registered: 'PENDING',
  partial: 'PARTIAL_REPORT',
  preliminary: 'PARTIAL_REPORT',
  final: 'RELEASED',
  amended: 'FINISHED_RETIFICATION',
  corrected: 'FINISHED_RETIFICATION',
  appended: 'FINISHED_RETIFICATION',
  cancelled: 'DISCARDED',
  'entered-in-error': 'DISCARDED',
};

/** An exam known only by its ImagingStudy: images taken (in progress), the report not yet issued. */
const IMAGING_STATUS: Record<string, string> = {
  registered: 'PENDING',
  available: 'IN_PROGRESS',
  cancelled: 'DISCARDED',
  'entered-in-error': 'DISCARDED',
};

/** Spec 4.1 status of an exam from a report's (or a lone study's) status; entered-in-error disables it. */
export function examStatusOf(
  resource: 'DiagnosticReport' | 'ImagingStudy',
  status: DiagnosticReport['status'] | ImagingStudy['status'] | undefined,
): { status: string; enabled: boolean } {
  const table = resource === 'DiagnosticReport' ? REPORT_STATUS : IMAGING_STATUS;
  return { status: table[status ?? ''] ?? 'NOT_INFORMED', enabled: status !== 'entered-in-error' };
}

/** A FHIR status for an exam from its spec 4.1 display code (the read API). */
export function fhirReportStatus(code: string): DiagnosticReport['status'] {
  switch (code) {
    case 'P':
      return 'registered';
    case 'A':
    case 'LP':
    case 'NC':
    case 'DU':
      return 'partial';
    case 'L':
      return 'final';
    case 'RF':
      return 'amended';
    case 'R':
      return 'preliminary';
    case 'D':
    case 'N':
      return 'cancelled';
    default:
      return 'unknown';
  }
}

/** Names of HL7 v2 table 0074 diagnostic services, in Portuguese as the portal shows modalities. */
const SERVICE_NAMES: Record<string, string> = {
  LAB: 'Laboratório',
  HM: 'Hematologia',
  CH: 'Bioquímica',
  MB: 'Microbiologia',
  SP: 'Patologia cirúrgica',
  CP: 'Citopatologia',
  RAD: 'Radiologia',
  CT: 'Tomografia computadorizada',
  MR: 'Ressonância magnética',
  US: 'Ultrassonografia',
  NMS: 'Medicina nuclear',
  CUS: 'Ultrassonografia cardíaca',
  EC: 'Eletrocardiografia',
  IMG: 'Imagem',
  OTH: 'Outros',
};

/** DICOM modality names for ImagingStudy.modality. */
const MODALITY_NAMES: Record<string, string> = {
  CR: 'Radiografia computadorizada',
  DX: 'Radiografia digital',
  CT: 'Tomografia computadorizada',
  MR: 'Ressonância magnética',
  US: 'Ultrassonografia',
  MG: 'Mamografia',
  NM: 'Medicina nuclear',
  PT: 'PET',
  XA: 'Angiografia',
  ECG: 'Eletrocardiografia',
  OT: 'Outros',
};

/** Exam type and modality from a report's category (v2 0074) and, for images, the study's modality. */
export function examKindOf(
  category: readonly CodeableConcept[] | undefined,
  modality?: { code?: string; display?: string },
): { type: string; modalityCode: string; modalityName: string } {
  const coding =
    (category ?? []).flatMap((c) => c.coding ?? []).find((c) => c.system === SYSTEMS.v2DiagnosticService && c.code) ??
    (category ?? []).flatMap((c) => c.coding ?? []).find((c) => c.code);
  const serviceCode = (coding?.code ?? (modality?.code ? 'IMG' : 'LAB')).toUpperCase().slice(0, 32);
  const serviceName = coding?.display ?? conceptText(category?.[0]) ?? SERVICE_NAMES[serviceCode] ?? serviceCode;
  if (modality?.code) {
    const code = modality.code.toUpperCase().slice(0, 32);
    return {
      type: code,
      modalityCode: code,
      modalityName: (modality.display ?? MODALITY_NAMES[code] ?? code).slice(0, 100),
    };
  }
  return {
    type: serviceCode,
    modalityCode: serviceCode,
    modalityName: (SERVICE_NAMES[serviceCode] ?? serviceName).slice(0, 100),
  };
}

/** An analyte value: a number from a quantity or integer, else text; undefined when there is none. */
export function observationValue(o: Observation): { value: number | string; unit?: string } | undefined {
  if (o.valueQuantity?.value !== undefined) {
    return { value: o.valueQuantity.value, unit: o.valueQuantity.unit ?? o.valueQuantity.code };
  }
  if (o.valueInteger !== undefined) return { value: o.valueInteger };
  if (o.valueString !== undefined) return { value: o.valueString };
  if (o.valueCodeableConcept) {
    const text = conceptText(o.valueCodeableConcept);
    return text ? { value: text } : undefined;
  }
  if (o.valueBoolean !== undefined) return { value: o.valueBoolean ? 'Sim' : 'Não' };
  return undefined;
}

/** FHIR dateTime: a date alone is the day's start in Brazil (GMT-3), as the portal's days are. */
export function timestampOf(value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return `${value}T00:00:00-03:00`;
  if (/^\d{4}(-\d{2})?$/.test(value)) return undefined;
  return value;
}

/** Parses a conditional search `identifier=system|value` (or `identifier=value`). */
export function identifierCriterion(query: string): { system?: string; value: string } | undefined {
  const params = new URLSearchParams(query);
  const keys = [...params.keys()];
  if (keys.length !== 1 || keys[0] !== 'identifier') return undefined;
  const token = params.get('identifier') ?? '';
  const bar = token.indexOf('|');
  if (bar < 0) return token ? { value: token } : undefined;
  const value = token.slice(bar + 1);
  return value ? { system: token.slice(0, bar) || undefined, value } : undefined;
}

export function matchesCriterion(
  identifiers: readonly Identifier[] | undefined,
  criterion: { system?: string; value: string },
): boolean {
  return (identifiers ?? []).some(
    (i) => i.value === criterion.value && (criterion.system === undefined || i.system === criterion.system),
  );
}
