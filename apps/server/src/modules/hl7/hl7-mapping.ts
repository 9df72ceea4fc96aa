import { BRAZILIAN_STATES } from '@portal/shared/limits';
import { isValidCpf } from '@portal/shared/formats';
import { type Hl7Message, type Hl7Segment, fieldOf } from './hl7-message.js';
import { hl7Date, hl7Timestamp, Hl7ValueError } from './hl7-text.js';

/**
 * HL7 v2 (2.3 to 2.5.1) result and order messages to contract 5's ingest body. Segment by
 * segment; docs/integration/hl7v2.md is the integrators' version of this mapping.
 */

/** HL7 table 0357 codes used in ERR-3, with the ACK code they come with. */
export const ERROR_CODES = {
  segmentSequence: '100',
  requiredFieldMissing: '101',
  dataType: '102',
  tableValue: '103',
  unsupportedMessageType: '200',
  unsupportedEvent: '201',
  unsupportedProcessingId: '202',
  unsupportedVersion: '203',
  unknownKey: '204',
  internal: '207',
} as const;

const ERROR_TEXTS: Record<string, string> = {
  '100': 'Segment sequence error',
  '101': 'Required field missing',
  '102': 'Data type error',
  '103': 'Table value not found',
  '200': 'Unsupported message type',
  '201': 'Unsupported event code',
  '202': 'Unsupported processing id',
  '203': 'Unsupported version id',
  '204': 'Unknown key identifier',
  '207': 'Application internal error',
};
export const errorText = (code: string) => ERROR_TEXTS[code] ?? 'Application error';

/** A message that cannot be used: answered AE (or AR), with the reason in MSA-3 and ERR. */
export class Hl7Refusal extends Error {
  constructor(
    readonly ackCode: 'AE' | 'AR',
    readonly errorCode: string,
    message: string,
    /** ERR-2: segment^sequence^field[^component]. */
    readonly location = '',
  ) {
    super(message);
  }
}

const missing = (label: string, what: string) => {
  const [segment, field] = label.split('-');
  const location = field ? `${segment}^1^${field}` : (segment ?? '');
  return new Hl7Refusal('AE', ERROR_CODES.requiredFieldMissing, `${label} (${what}) is required`, location);
};

export interface ReportFile {
  examKey: string;
  identifier: string;
  type: 'REPORT';
  pdf: Buffer;
}

/** Text of an exam that came without a PDF of its own, rendered by the portal as its report. */
export interface TextReport {
  examKey: string;
  title: string;
  performedAt?: string;
  lines: string[];
}

export interface MappedProtocol {
  number: string;
  /** Contract 5's body, validated by its schema before anything is written. */
  body: {
    password?: string;
    requestedAt?: string;
    patient: Record<string, unknown>;
    exams: Array<Record<string, unknown> & { examKey: string }>;
  };
  files: ReportFile[];
  textReports: TextReport[];
}

export interface MappedMessage {
  /** ORU, ORM or OML. */
  kind: string;
  protocols: MappedProtocol[];
  /** Notes for the ACK (severity W in ERR): what was received but not used. */
  warnings: string[];
}

export const SUPPORTED = new Set(['ORU^R01', 'ORU^R30', 'ORU^R32', 'ORM^O01', 'OML^O21', 'OML^O33', 'OML^O35']);

/** The portal's own key rules (contract 5 paths): letters, digits, '.', '-', '_'; the rest becomes '-'. */
function key(value: string): string {
  return value
    .trim()
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[.]+/, '')
    .slice(0, 128);
}

/** OBR-25 (HL7 table 0123) to spec 4.1's status names. */
const RESULT_STATUS: Record<string, string> = {
  O: 'PENDING',
  S: 'PENDING',
  I: 'IN_PROGRESS',
  R: 'IN_PROGRESS',
  A: 'PARTIAL_REPORT',
  P: 'PARTIAL_REPORT',
  F: 'RELEASED',
  C: 'FINISHED_RETIFICATION',
  M: 'FINISHED_RETIFICATION',
  X: 'DISCARDED',
};

/** ORC-5 (HL7 table 0038) to spec 4.1's status names. */
const ORDER_STATUS: Record<string, string> = {
  SC: 'PENDING',
  HD: 'PENDING',
  IP: 'IN_PROGRESS',
  A: 'PARTIAL_REPORT',
  CM: 'RELEASED',
  CA: 'DISCARDED',
  DC: 'DISCARDED',
};

/** ORC-1 order controls that cancel the order. */
const CANCELLING_CONTROLS = new Set(['CA', 'OC', 'CR', 'DC', 'OD']);

/** OBR-24 diagnostic service sections (HL7 table 0074) and their names as patients read them. */
const SECTIONS: Record<string, string> = {
  LAB: 'Laboratório',
  HM: 'Hematologia',
  CH: 'Bioquímica',
  IMM: 'Imunologia',
  SR: 'Sorologia',
  MB: 'Microbiologia',
  UR: 'Urinálise',
  PAT: 'Patologia',
  SP: 'Anatomia patológica',
  CP: 'Citopatologia',
  RAD: 'Radiologia',
  RX: 'Radiologia',
  CR: 'Radiografia',
  CT: 'Tomografia',
  MR: 'Ressonância magnética',
  US: 'Ultrassonografia',
  NMR: 'Ressonância magnética',
  NMS: 'Medicina nuclear',
  EC: 'Eletrocardiografia',
  CUS: 'Ecocardiografia',
};

const GENDERS: Record<string, string> = { F: 'FEMALE', M: 'MALE', O: 'OTHER', A: 'OTHER', U: 'UNKNOWN', N: 'UNKNOWN' };

/** Wraps a value reader so a malformed value is refused with where it was. */
function at<T>(label: string, read: () => T, sequence = 1): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof Hl7ValueError) {
      const [segment, field] = label.split('-');
      throw new Hl7Refusal('AE', ERROR_CODES.dataType, `${label}: ${error.message}`, `${segment}^${sequence}^${field}`);
    }
    throw error;
  }
}

/** The message type as `ORU^R01`, from MSH-9. */
export function messageTypeOf(message: Hl7Message): string {
  const msh9 = message.field('MSH', 9);
  const code = message.comp(msh9, 1).toUpperCase();
  const event = message.comp(msh9, 2).toUpperCase();
  return event ? `${code}^${event}` : code;
}

interface Group {
  pid: Hl7Segment;
  pv1?: Hl7Segment;
  zpw?: Hl7Segment;
  orders: Order[];
}

interface Order {
  orc?: Hl7Segment;
  obr?: Hl7Segment;
  obrIndex: number;
  results: Array<{ obx: Hl7Segment; index: number; notes: string[] }>;
  notes: string[];
}

/** Splits the message into patient groups (PID onwards) and their orders (ORC and/or OBR onwards). */
function groups(message: Hl7Message): Group[] {
  const out: Group[] = [];
  let group: Group | undefined;
  let order: Order | undefined;
  const counters = new Map<string, number>();
  for (const seg of message.segments) {
    const index = (counters.get(seg.name) ?? 0) + 1;
    counters.set(seg.name, index);
    switch (seg.name) {
      case 'PID':
        group = { pid: seg, orders: [] };
        out.push(group);
        order = undefined;
        break;
      case 'PV1':
        if (group) group.pv1 = seg;
        break;
      case 'ZPW':
        if (group) group.zpw = seg;
        break;
      case 'ORC':
        // An ORC alone (an ORM cancelling an order) still names an exam; an OBR after it completes it.
        if (!group) break;
        order = { orc: seg, obrIndex: 0, results: [], notes: [] };
        group.orders.push(order);
        break;
      case 'OBR':
        if (!group) {
          throw new Hl7Refusal('AE', ERROR_CODES.segmentSequence, `OBR ${index} comes before any PID`, `OBR^${index}`);
        }
        if (order && !order.obr && order.results.length === 0) {
          order.obr = seg;
          order.obrIndex = index;
        } else {
          order = { obr: seg, obrIndex: index, results: [], notes: [] };
          group.orders.push(order);
        }
        break;
      case 'OBX':
        if (!order?.obr) {
          throw new Hl7Refusal('AE', ERROR_CODES.segmentSequence, `OBX ${index} comes before any OBR`, `OBX^${index}`);
        }
        order.results.push({ obx: seg, index, notes: [] });
        break;
      case 'NTE': {
        const text = message
          .repetitions(seg, 3)
          .map((r) => message.text$(r))
          .join('\n')
          .trim();
        if (!text || !order) break;
        const last = order.results[order.results.length - 1];
        (last ? last.notes : order.notes).push(text);
        break;
      }
      default:
        break;
    }
  }
  return out;
}

/** PID-5 (XPN): given, middle and family names as one text. */
function personName(message: Hl7Message, raw: string): string {
  const family = message.comp(raw, 1, 1) || message.comp(raw, 1);
  const given = message.comp(raw, 2);
  const middle = message.comp(raw, 3);
  return [given, middle, family].filter(Boolean).join(' ').replace(/\s+/g, ' ').trim();
}

/** An identifier's type from CX-5, or from the assigning authority (CX-4) when that names it. */
function identifierType(message: Hl7Message, raw: string): string {
  const type = message.comp(raw, 5).toUpperCase();
  const authority = message.rawComp(raw, 4).toUpperCase();
  if (type) return type;
  // Brazil's CPF and CNS OIDs, as RNDS profiles write them.
  if (authority.includes('2.16.840.1.113883.13.237') || /(^|[^A-Z])CPF([^A-Z]|$)/.test(authority)) return 'CPF';
  if (authority.includes('2.16.840.1.113883.13.236') || /(^|[^A-Z])CNS([^A-Z]|$)/.test(authority)) return 'CNS';
  return '';
}

function patientOf(message: Hl7Message, pid: Hl7Segment): Record<string, unknown> {
  const ids = message.repetitions(pid, 3).map((raw) => ({
    id: message.comp(raw, 1),
    type: identifierType(message, raw),
  }));
  const cpfDigits = (v: string) => v.replace(/\D/g, '');
  const cpfId = ids.find((i) => i.type === 'CPF' && i.id);
  const ssn = message.value(pid, 19);
  const cpf = cpfId ? cpfDigits(cpfId.id) : isValidCpf(cpfDigits(ssn)) ? cpfDigits(ssn) : undefined;
  const own = ids.find((i) => i.id && i.type !== 'CPF' && i.type !== 'CNS') ?? ids.find((i) => i.id);
  const patientId = own?.id || message.value(pid, 2) || cpf;
  if (!patientId) throw missing('PID-3', 'patient identifier');
  const name = personName(message, message.firstRepetition(fieldOf(pid, 5)));
  if (!name) throw missing('PID-5', 'patient name');
  const birthDate = at('PID-7', () => hl7Date(message.value(pid, 7)));
  if (!birthDate) throw missing('PID-7', 'date of birth');
  const sex = message.value(pid, 8).toUpperCase();
  const gender = GENDERS[sex] ?? 'UNKNOWN';

  let phone: string | undefined;
  let email: string | undefined;
  for (const raw of [...message.repetitions(pid, 13), ...message.repetitions(pid, 14)]) {
    const use = message.comp(raw, 2).toUpperCase();
    const equipment = message.comp(raw, 3).toUpperCase();
    const address = message.comp(raw, 4);
    if (address && (use === 'NET' || equipment === 'INTERNET' || equipment === 'X.400' || address.includes('@'))) {
      email ??= address;
      continue;
    }
    const local = message.comp(raw, 7);
    const number = local
      ? `${message.comp(raw, 6)}${local}`.replace(/\D/g, '')
      : message.comp(raw, 1).replace(/[^\d+]/g, '');
    if (number) phone ??= number;
  }
  const motherName = personName(message, message.firstRepetition(fieldOf(pid, 6)));
  // PID-9 (patient alias) carries the name the patient goes by, where the sender keeps one.
  const preferredName = personName(message, message.firstRepetition(fieldOf(pid, 9)));
  return {
    patientId: key(patientId) || patientId,
    name,
    birthDate,
    gender,
    ...(email ? { email } : {}),
    ...(phone ? { phone } : {}),
    ...(cpf ? { cpf } : {}),
    ...(motherName ? { motherName } : {}),
    ...(preferredName && preferredName !== name ? { preferredName } : {}),
  };
}

const UFS: readonly string[] = BRAZILIAN_STATES;

/**
 * OBR-16 / ORC-12 (XCN): XCN-1 is the CRM number; the assigning authority XCN-9 says CRM and the
 * state, written `CRM&SP` (HD sub-components), `CRM-SP` or `CRMSP` as systems do; some put the
 * state alone in XCN-9 with XCN-13 = CRM.
 */
function requesterOf(message: Hl7Message, raw: string): Record<string, string> | undefined {
  const id = message.comp(raw, 1);
  const family = message.comp(raw, 2, 1) || message.comp(raw, 2);
  const name = [message.comp(raw, 6), message.comp(raw, 3), message.comp(raw, 4), family]
    .filter(Boolean)
    .join(' ')
    .trim();
  if (!id && !name) return undefined;
  const authority = message.rawComp(raw, 9).toUpperCase();
  const typeCode = message.comp(raw, 13).toUpperCase();
  const parts = authority.split(message.delimiters.subComponent).map((p) => message.text$(p));
  let uf: string | undefined;
  const joined = /^CRM[\s&_/-]*([A-Z]{2})$/.exec(parts.filter(Boolean).slice(0, 2).join('&'));
  if (joined && UFS.includes(joined[1]!)) uf = joined[1];
  else if (typeCode === 'CRM' && UFS.includes(parts[0] ?? '')) uf = parts[0];
  const isCrm = uf !== undefined;
  const crm = isCrm ? id.replace(/\D/g, '') || id : undefined;
  return {
    identifier: (crm && uf ? `CRM-${uf}-${crm}` : id || name).slice(0, 100),
    name: name || id,
    ...(crm && uf ? { crm, uf } : {}),
  };
}

/** OBX-7 as minimum and maximum when it reads as a numeric range, else kept as text. */
export function referenceRange(text: string): { referenceMin?: number; referenceMax?: number; referenceText?: string } {
  const t = text.trim();
  if (!t) return {};
  const num = '([-+]?\\d+(?:[.,]\\d+)?)';
  const n = (v: string) => Number(v.replace(',', '.'));
  const range = new RegExp(`^${num}\\s*(?:-|–|a|até|to)\\s*${num}$`, 'i').exec(t);
  if (range) return { referenceMin: n(range[1]!), referenceMax: n(range[2]!) };
  const upper = new RegExp(`^(?:<=?|≤|até|ate)\\s*${num}$`, 'i').exec(t);
  if (upper) return { referenceMax: n(upper[1]!), referenceText: t };
  const lower = new RegExp(`^(?:>=?|≥|acima de)\\s*${num}$`, 'i').exec(t);
  if (lower) return { referenceMin: n(lower[1]!), referenceText: t };
  return { referenceText: t.slice(0, 200) };
}

/** An NM or SN value for contract 5: a number when it is one, the text otherwise. */
function analyteValue(message: Hl7Message, raw: string, type: string): number | string {
  if (type === 'SN') {
    // SN: comparator ^ number ^ separator/suffix ^ number ("<^5", "^1^:^128", "^10^-^20").
    const parts = [1, 2, 3, 4].map((c) => message.comp(raw, c));
    const text = parts.join('').trim();
    if (!parts[0] && !parts[2] && /^[-+]?\d+(\.\d+)?$/.test(parts[1]!)) return Number(parts[1]);
    return text;
  }
  const text = message.text$(raw);
  return /^[-+]?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
}

/** ED (source^type^subtype^encoding^data) or RP with base64 data: the PDF's bytes, if that is what it holds. */
function pdfOf(message: Hl7Message, raw: string, type: string): Buffer | undefined {
  const comps = raw.split(message.delimiters.component);
  let data: string | undefined;
  if (type === 'ED') {
    const encoding = (comps[3] ?? '').toUpperCase();
    if (encoding === 'BASE64' || encoding === 'B64') data = comps[4];
  } else {
    const pointer = comps[0] ?? '';
    const dataUri = /^data:application\/pdf;base64,(.*)$/i.exec(pointer);
    if (dataUri) data = dataUri[1];
    else if (/^JVBER/.test(pointer)) data = pointer;
  }
  if (!data) return undefined;
  // Base64 has no HL7 delimiters, but some engines escape or wrap it: read it as text first.
  const bytes = Buffer.from(message.text$(data).replace(/\s+/g, ''), 'base64');
  return bytes.subarray(0, 5).toString('latin1') === '%PDF-' ? bytes : undefined;
}

function examOf(
  message: Hl7Message,
  order: Order,
  kind: string,
  warnings: string[],
): { exam: Record<string, unknown> & { examKey: string }; files: ReportFile[]; text: TextReport | undefined } {
  const { obr, orc } = order;
  const examKeyRaw = message.value(obr, 3) || message.value(obr, 2) || message.value(orc, 3) || message.value(orc, 2);
  const examKey = key(examKeyRaw);
  if (!examKey) throw missing(obr ? 'OBR-3' : 'ORC-3', 'filler order number or OBR-2 placer order number');
  const code = message.value(obr, 4, 1);
  const description = message.value(obr, 4, 2) || code;
  if (!description && obr) throw missing('OBR-4', 'universal service identifier');
  const section = message.value(obr, 24).toUpperCase();
  const requesterRaw =
    message.firstRepetition(obr ? fieldOf(obr, 16) : '') || message.firstRepetition(orc ? fieldOf(orc, 12) : '');
  const requester = requesterRaw ? requesterOf(message, requesterRaw) : undefined;

  const control = message.value(orc, 1).toUpperCase();
  const resultStatus = message.value(obr, 25).toUpperCase();
  const orderStatus = message.value(orc, 5).toUpperCase();
  let status: string | undefined;
  if (CANCELLING_CONTROLS.has(control)) status = 'DISCARDED';
  else if (resultStatus) status = RESULT_STATUS[resultStatus] ?? resultStatus;
  else if (orderStatus) status = ORDER_STATUS[orderStatus] ?? orderStatus;
  else if (kind !== 'ORU') status = 'PENDING';

  const performedAt = at('OBR-7', () => hl7Timestamp(message.value(obr, 7)), order.obrIndex);
  const deliveredAt = at('OBR-22', () => hl7Timestamp(message.value(obr, 22)), order.obrIndex);

  const analytes: Array<Record<string, unknown>> = [];
  const lines: string[] = [];
  const files: ReportFile[] = [];
  const seenCodes = new Map<string, number>();
  for (const { obx, index, notes } of order.results) {
    const type = message.value(obx, 2).toUpperCase();
    const obsCode = message.value(obx, 3, 1);
    const obsName = message.value(obx, 3, 2) || obsCode;
    const subId = message.value(obx, 4);
    const values = message.repetitions(obx, 5);
    if (type === 'NM' || type === 'SN') {
      const codeBase = key(subId ? `${obsCode}-${subId}` : obsCode) || `OBX-${index}`;
      const seen = seenCodes.get(codeBase) ?? 0;
      seenCodes.set(codeBase, seen + 1);
      const raw = values[0] ?? '';
      if (raw === '') continue;
      const unitRaw = message.firstRepetition(fieldOf(obx, 6));
      const unit = message.comp(unitRaw, 1) || message.comp(unitRaw, 2);
      const flag = message
        .repetitions(obx, 8)
        .map((r) => message.comp(r, 1))
        .filter(Boolean)
        .join(' ');
      analytes.push({
        code: seen === 0 ? codeBase : `${codeBase}-${seen + 1}`,
        name: (obsName || codeBase).slice(0, 200),
        ...(unit ? { unit: unit.slice(0, 32) } : {}),
        value: analyteValue(message, raw, type),
        ...referenceRange(message.value(obx, 7)),
        ...(flag ? { abnormalFlag: flag.slice(0, 8) } : {}),
      });
      for (const note of notes) lines.push(`${obsName}: ${note}`);
    } else if (type === 'ED' || type === 'RP') {
      let found = false;
      for (const raw of values) {
        const pdf = pdfOf(message, raw, type);
        if (!pdf) continue;
        found = true;
        const identifier = key(`${examKey}-${obsCode || 'PDF'}${files.length > 0 ? `-${files.length + 1}` : ''}`);
        files.push({ examKey, identifier, type: 'REPORT', pdf });
      }
      if (!found) {
        warnings.push(`OBX ${index}: ${type} value is not a base64 PDF; not stored as a file`);
      }
      lines.push(...notes);
    } else if (type === 'ST' || type === 'TX' || type === 'FT' || type === 'CE' || type === 'CWE') {
      const texts = values.map((raw) =>
        type === 'CE' || type === 'CWE' ? message.comp(raw, 2) || message.comp(raw, 1) : message.text$(raw),
      );
      const text = texts.filter(Boolean).join('\n');
      if (text) {
        const label = obsName && type === 'ST' ? `${obsName}: ` : '';
        const unit = message.value(obx, 6);
        lines.push(`${label}${text}${unit ? ` ${unit}` : ''}`);
      }
      lines.push(...notes);
    } else if (values.length > 0) {
      lines.push(`${obsName}: ${values.map((v) => message.text$(v)).join(', ')}`);
      lines.push(...notes);
    }
  }
  const examNotes = order.notes;
  const textLines = [...lines, ...(examNotes.length > 0 ? ['', ...examNotes] : [])];
  const hasResults = order.results.length > 0;
  const exam = {
    examKey,
    description: (description || code || examKey).slice(0, 300),
    type: (code || description || examKey).slice(0, 100),
    modalityCode: (section || 'LAB').slice(0, 32),
    modalityName: (SECTIONS[section] ?? (section || SECTIONS.LAB!)).slice(0, 100),
    ...(requester ? { requester } : {}),
    ...(status ? { status } : {}),
    ...(performedAt ? { performedAt } : {}),
    ...(deliveredAt ? { deliveredAt } : {}),
    // An exam that came with results gives its full list; an order status update keeps what it had.
    ...(hasResults ? { analytes } : {}),
  };
  const wantsText = files.length === 0 && (textLines.some((l) => l.trim()) || analytes.length > 0);
  return {
    exam,
    files,
    text: wantsText ? { examKey, title: exam.description, performedAt, lines: textLines } : undefined,
  };
}

/** The protocol number: ORC-4 placer group number, else PV1-19 visit number, else the first placer order number. */
function protocolNumberOf(message: Hl7Message, group: Group): string {
  for (const order of group.orders) {
    const groupNumber = message.value(order.orc, 4);
    if (groupNumber) return key(groupNumber);
  }
  const visit = message.value(group.pv1, 19);
  if (visit) return key(visit);
  const first = group.orders[0];
  return key(message.value(first?.obr, 2) || message.value(first?.orc, 2));
}

/** Maps one message (already known to be of a supported type) to the protocols it writes. */
export function mapMessage(message: Hl7Message): MappedMessage {
  const kind = messageTypeOf(message).split('^')[0]!;
  const warnings: string[] = [];
  const list = groups(message);
  if (list.length === 0) throw missing('PID', 'patient identification segment');
  const byNumber = new Map<string, MappedProtocol>();
  for (const group of list) {
    const patient = patientOf(message, group.pid);
    if (group.orders.length === 0) throw missing('OBR', 'observation request segment');
    const number = protocolNumberOf(message, group);
    if (!number) throw missing('ORC-4', 'placer group number, PV1-19 visit number or OBR-2 placer order number');
    const first = group.orders[0]!;
    const [requestedField, requestedValue] = (
      [
        ['OBR-6', message.value(first.obr, 6)],
        ['ORC-9', message.value(first.orc, 9)],
        ['OBR-7', message.value(first.obr, 7)],
      ] as const
    ).find(([, v]) => v !== '') ?? ['OBR-6', ''];
    const requestedAt = at(requestedField, () => hl7Timestamp(requestedValue));
    const password = group.zpw ? message.value(group.zpw, 2) : '';
    const protocol = byNumber.get(number) ?? {
      number,
      body: { ...(password ? { password } : {}), ...(requestedAt ? { requestedAt } : {}), patient, exams: [] },
      files: [],
      textReports: [],
    };
    byNumber.set(number, protocol);
    for (const order of group.orders) {
      const { exam, files, text } = examOf(message, order, kind, warnings);
      // The same exam twice in one message: the later group is the newer state.
      protocol.body.exams = protocol.body.exams.filter((e) => e.examKey !== exam.examKey);
      protocol.body.exams.push(exam);
      protocol.files.push(...files);
      if (text) protocol.textReports.push(text);
    }
  }
  return { kind, protocols: [...byNumber.values()], warnings };
}
