import { Readable } from 'node:stream';
import { zIngestProtocol } from '@portal/shared/schemas/ingest';
import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../../db/database.js';
import { AppError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { recordAudit } from '../../plugins/audit.js';
import { findInstitutionByHl7Facility, type Institution } from '../institutions/institution.service.js';
import { ingestResource } from '../ingest/ingest-resource.service.js';
import { ingestProtocol, type IngestProtocolInput } from '../ingest/ingest.service.js';
import { type AckCode, type AckProblem, ackContextOf, buildAck, buildBatchAck } from './hl7-ack.js';
import { ERROR_CODES, Hl7Refusal, mapMessage, type MappedProtocol, messageTypeOf, SUPPORTED } from './hl7-mapping.js';
import { type Hl7Message, Hl7ParseError, parseEnvelope } from './hl7-message.js';
import { textReportPdf } from './hl7-report-pdf.js';
import { type Charset, charsetOf, decodeText, encodeText, UnsupportedCharsetError } from './hl7-text.js';
import { findStoredHl7Message, insertHl7MessageRow, updateHl7MessageRow } from './hl7.repository.js';

/** Where a message came from. */
export interface Hl7Source {
  transport: 'MLLP' | 'MLLP_TLS' | 'HTTPS';
  remoteAddress: string | null;
  /** HTTPS: the institution of the API key. MLLP: unknown, found by MSH-4. */
  institution?: Institution;
  /**
   * MLLP over TLS with a client certificate: the names it carries (subject CN and DNS names); the
   * institution must list one of them among its sending facilities.
   */
  certificateNames?: string[];
}

/** Versions read here (contract 9: 2.3 to 2.5.1; later 2.x are read the same way). */
const VERSION = /^2\.(3|3\.1|4|5|5\.1|6|7|7\.1|8|8\.1|8\.2)$/;

const SAFE_CHARSET: Charset = { declared: '', encoding: 'latin1' };

/**
 * Contract 9: one MLLP frame or HTTPS body (a message or a batch) in, its ACK out, encoded in the
 * sender's character set. An ACK AA is built only after every write of the message committed.
 */
export async function receiveHl7(ctx: AppContext, bytes: Uint8Array, source: Hl7Source): Promise<Buffer> {
  let charset: Charset;
  try {
    charset = charsetOf(bytes);
  } catch (error) {
    if (!(error instanceof UnsupportedCharsetError)) throw error;
    const text = decodeText(bytes, SAFE_CHARSET);
    const ack = await refuseUnread(ctx, text, source, SAFE_CHARSET, {
      code: ERROR_CODES.tableValue,
      text: `MSH-18 character set "${error.message}" is not supported (use ASCII, 8859/1 or UNICODE UTF-8)`,
      location: 'MSH^1^18',
      severity: 'E',
    });
    return encodeText(ack, SAFE_CHARSET);
  }
  const text = decodeText(bytes, charset);
  let envelope;
  try {
    envelope = parseEnvelope(text, charset);
  } catch (error) {
    if (!(error instanceof Hl7ParseError)) throw error;
    const ack = await refuseUnread(ctx, text, source, charset, {
      code: ERROR_CODES.segmentSequence,
      text: `The message could not be read: ${error.message}`,
      severity: 'E',
    });
    return encodeText(ack, charset);
  }
  const acks: string[] = [];
  for (const message of envelope.messages) acks.push(await receiveMessage(ctx, message, source));
  const answer = envelope.batch ? buildBatchAck(envelope.batch, acks, ctx.clock.now()) : acks[0]!;
  return encodeText(answer, charset);
}

/** A message larger than the ingest limit: not read, kept as a note in the trail, answered AE. */
export async function refuseOversize(ctx: AppContext, source: Hl7Source, maxBytes: number): Promise<Buffer> {
  const text = `The message is larger than ${maxBytes} bytes and was not read`;
  const ack = await refuseUnread(ctx, `(${text})`, source, SAFE_CHARSET, {
    code: ERROR_CODES.internal,
    text,
    severity: 'E',
  });
  return encodeText(ack, SAFE_CHARSET);
}

/** A frame that is not HL7 at all: kept for the trail and answered AE (MSA-2 carries what looked like MSH-10). */
async function refuseUnread(
  ctx: AppContext,
  text: string,
  source: Hl7Source,
  charset: Charset,
  problem: AckProblem,
): Promise<string> {
  const controlId = /^MSH(.)(?:[^\r\n]*?\1){8}([^\r\n|^]*)/.exec(text)?.[2] ?? '';
  const ack = buildAck({ ...ackContextOf(undefined), controlId }, 'AE', [problem], ctx.clock.now());
  const now = ctx.clock.now().toISOString();
  await insertHl7MessageRow(ctx.db, {
    id: newId(),
    institutionId: source.institution?.id ?? null,
    transport: source.transport,
    remoteAddress: source.remoteAddress,
    sendingFacility: null,
    controlId: controlId || null,
    messageType: null,
    charset: charset.declared || charset.encoding,
    message: text,
    outcome: 'ERROR',
    ackCode: 'AE',
    ack,
    error: problem.text,
    protocolNumbers: null,
    receivedAt: now,
    completedAt: now,
  });
  return ack;
}

function refusal(code: AckCode, errorCode: string, text: string, location?: string): Hl7Refusal {
  return new Hl7Refusal(code === 'AA' ? 'AE' : code, errorCode, text, location);
}

/** The institution that sent the message, or a refusal AR. */
async function senderOf(ctx: AppContext, message: Hl7Message, source: Hl7Source): Promise<Institution> {
  if (source.institution) return source.institution;
  const msh4 = message.field('MSH', 4);
  const namespace = message.comp(msh4, 1);
  const whole = message.text$(msh4);
  const institution =
    (namespace ? await findInstitutionByHl7Facility(ctx, namespace) : null) ??
    (whole && whole !== namespace ? await findInstitutionByHl7Facility(ctx, whole) : null);
  if (!institution) {
    throw refusal('AR', ERROR_CODES.unknownKey, `Unknown sending facility "${whole}" (MSH-4)`, 'MSH^1^4');
  }
  if (source.certificateNames && source.certificateNames.length > 0) {
    const names = source.certificateNames.map((n) => n.toUpperCase());
    if (!names.includes(namespace.toUpperCase()) && !names.includes(whole.toUpperCase())) {
      throw refusal(
        'AR',
        ERROR_CODES.unknownKey,
        `The client certificate does not name the sending facility "${whole}" (MSH-4)`,
        'MSH^1^4',
      );
    }
  }
  return institution;
}

/** Checks of the header that come before anything is written. */
function checkHeader(message: Hl7Message): void {
  const type = messageTypeOf(message);
  if (!message.value(message.segments[0], 9)) {
    throw refusal('AR', ERROR_CODES.requiredFieldMissing, 'MSH-9 (message type) is required', 'MSH^1^9');
  }
  if (!SUPPORTED.has(type)) {
    throw refusal('AR', ERROR_CODES.unsupportedMessageType, `Message type ${type} is not accepted here`, 'MSH^1^9');
  }
  const version = message.comp(message.field('MSH', 12), 1);
  if (!VERSION.test(version)) {
    throw refusal(
      'AR',
      ERROR_CODES.unsupportedVersion,
      `HL7 version "${version}" is not supported (2.3 to 2.5.1)`,
      'MSH^1^12',
    );
  }
  if (!message.field('MSH', 10)) {
    throw refusal('AE', ERROR_CODES.requiredFieldMissing, 'MSH-10 (message control id) is required', 'MSH^1^10');
  }
}

/** One message: the sender known, kept, mapped, written, acknowledged. */
async function receiveMessage(ctx: AppContext, message: Hl7Message, source: Hl7Source): Promise<string> {
  const context = ackContextOf(message);
  const controlId = message.text$(message.field('MSH', 10));
  const rowId = newId();
  const receivedAt = ctx.clock.now().toISOString();
  let institution: Institution | undefined = source.institution;
  const finish = async (
    outcome: string,
    code: AckCode,
    problems: AckProblem[],
    protocolNumbers: string[] | null = null,
  ): Promise<string> => {
    const ack = buildAck(context, code, problems, ctx.clock.now());
    await updateHl7MessageRow(ctx.db, rowId, {
      outcome,
      ackCode: code,
      ack,
      error: problems.find((p) => p.severity === 'E')?.text ?? null,
      protocolNumbers: protocolNumbers ? JSON.stringify(protocolNumbers) : null,
      completedAt: ctx.clock.now().toISOString(),
    });
    return ack;
  };
  // Kept before anything else: a message whose processing fails half-way is still in the trail.
  await insertHl7MessageRow(ctx.db, {
    id: rowId,
    institutionId: institution?.id ?? null,
    transport: source.transport,
    remoteAddress: source.remoteAddress,
    sendingFacility: message.text$(message.field('MSH', 4)) || null,
    controlId: controlId || null,
    messageType: messageTypeOf(message) || null,
    charset: message.charset.declared || message.charset.encoding,
    message: message.text,
    outcome: 'RECEIVED',
    ackCode: null,
    ack: null,
    error: null,
    protocolNumbers: null,
    receivedAt,
    completedAt: null,
  });

  try {
    institution = await senderOf(ctx, message, source);
    if (!source.institution) await updateHl7MessageRow(ctx.db, rowId, { institutionId: institution.id });
    checkHeader(message);

    const stored = await findStoredHl7Message(ctx.db, institution.id, controlId);
    if (stored) {
      return await finish(
        'REPEATED',
        'AA',
        [],
        stored.protocolNumbers ? (JSON.parse(stored.protocolNumbers) as string[]) : null,
      );
    }

    const mapped = mapMessage(message);
    const protocols = mapped.protocols.map(validated);
    for (const protocol of protocols) await writeProtocol(ctx, institution, protocol, message);
    const numbers = protocols.map((p) => p.number);
    const warnings: AckProblem[] = mapped.warnings.map((text) => ({ code: ERROR_CODES.dataType, text, severity: 'W' }));
    try {
      return await finish('STORED', 'AA', warnings, numbers);
    } catch (error) {
      // The same MSH-10 stored at the same moment by another connection: this one is the repeat.
      if (!isUniqueViolation(error)) throw error;
      return await finish('REPEATED', 'AA', warnings, numbers);
    }
  } catch (error) {
    if (error instanceof Hl7Refusal) {
      return finish(error.ackCode === 'AR' ? 'REJECTED' : 'ERROR', error.ackCode, [
        { code: error.errorCode, text: error.message, location: error.location, severity: 'E' },
      ]);
    }
    // Storage or database trouble: nothing is acknowledged as stored; the sender sends again.
    ctx.log.error({ err: error, hl7MessageId: rowId }, 'an HL7 message could not be stored');
    const text =
      error instanceof AppError
        ? `The message could not be stored: ${error.message}`
        : 'The message could not be stored now; send it again';
    return finish('ERROR', 'AE', [{ code: ERROR_CODES.internal, text, severity: 'E' }]).catch(() =>
      buildAck(context, 'AE', [{ code: ERROR_CODES.internal, text, severity: 'E' }], ctx.clock.now()),
    );
  }
}

interface ValidProtocol extends MappedProtocol {
  ingest: IngestProtocolInput;
}

/** Contract 5's own schema decides what may be written: an HL7 result is held to the JSON rules. */
function validated(protocol: MappedProtocol): ValidProtocol {
  const hasPassword = typeof protocol.body.password === 'string' && protocol.body.password !== '';
  const parsed = zIngestProtocol.safeParse({ ...protocol.body, password: hasPassword ? protocol.body.password : '-' });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Hl7Refusal(
      'AE',
      ERROR_CODES.dataType,
      `Protocol ${protocol.number}: ${issue.path.join('.')}: ${issue.message}`,
    );
  }
  return { ...protocol, ingest: { ...parsed.data, password: hasPassword ? parsed.data.password : null } };
}

function referenceText(a: {
  referenceMin?: number | null;
  referenceMax?: number | null;
  referenceText?: string | null;
}) {
  if (a.referenceMin != null && a.referenceMax != null) return `${a.referenceMin} a ${a.referenceMax}`;
  return (
    a.referenceText ??
    (a.referenceMin != null ? `>= ${a.referenceMin}` : a.referenceMax != null ? `<= ${a.referenceMax}` : '')
  );
}

/** Writes one protocol through contract 5's services: the protocol and exams, then its files. */
async function writeProtocol(ctx: AppContext, institution: Institution, protocol: ValidProtocol, message: Hl7Message) {
  // A message carries some exams of the protocol: the others stay as they are. Without ZPW a stored
  // protocol keeps its password and a new one is locked: no password opens it (docs/decisions.md).
  const { result } = await ingestProtocol(ctx, institution, protocol.number, protocol.ingest, {
    lockWithoutPassword: true,
  });
  const upload = (examKey: string, identifier: string, pdf: Buffer) =>
    ingestResource(ctx, institution, {
      number: protocol.number,
      examKey,
      identifier,
      type: 'REPORT',
      signed: false,
      contentType: 'application/pdf',
      declaredLength: pdf.length,
      body: Readable.from([pdf]),
    });
  for (const file of protocol.files) await upload(file.examKey, file.identifier, file.pdf);
  for (const report of protocol.textReports) {
    const exam = protocol.ingest.exams.find((e) => e.examKey === report.examKey);
    const pdf = await textReportPdf({
      institution: institution.name,
      title: report.title,
      patientName: protocol.ingest.patient.name,
      protocolNumber: protocol.number,
      performedAt: report.performedAt,
      analytes: (exam?.analytes ?? []).map((a) => ({
        name: a.name,
        value: `${a.value}${a.unit ? ` ${a.unit}` : ''}`,
        reference: referenceText(a),
        flag: a.abnormalFlag ?? '',
      })),
      lines: report.lines,
      // A fixed date: the same message gives the same bytes, and a resend replaces nothing.
      receivedAt: new Date(report.performedAt ?? 0),
    });
    await upload(report.examKey, `${report.examKey}-LAUDO`.slice(0, 128), pdf);
  }
  await recordAudit(ctx, {
    event: 'HL7_RESULT_RECEIVED',
    tenant: institution.code,
    protocolId: result.requestId,
    resource: { type: 'PROTOCOL', id: result.requestId, number: protocol.number },
    systemUser: { id: null, name: institution.code, role: 'INSTITUTION' },
    macro: {
      controlId: message.text$(message.field('MSH', 10)),
      messageType: messageTypeOf(message),
      exams: protocol.ingest.exams.map((e) => e.examKey),
    },
  });
}
