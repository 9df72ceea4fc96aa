import { randomBytes } from 'node:crypto';
import type { Hl7Message, Hl7Segment } from './hl7-message.js';
import { errorText } from './hl7-mapping.js';
import { type Delimiters, escapeValue, hl7Now } from './hl7-text.js';

/** How the portal names itself in the MSH of its ACKs when the message did not name a receiver. */
export const PORTAL_APPLICATION = 'RESULTS-PORTAL';

const STANDARD: Delimiters = { field: '|', component: '^', repetition: '~', escape: '\\', subComponent: '&' };

export type AckCode = 'AA' | 'AE' | 'AR';

export interface AckProblem {
  /** HL7 table 0357. */
  code: string;
  text: string;
  /** ERR-2: segment^sequence^field. */
  location?: string;
  severity: 'E' | 'W';
}

/** The header fields of the message answered (raw, as received), or nothing for one we could not read. */
export interface AckContext {
  sendingApplication: string;
  sendingFacility: string;
  receivingApplication: string;
  receivingFacility: string;
  event: string;
  controlId: string;
  processingId: string;
  version: string;
  charset: string;
}

export function ackContextOf(message: Hl7Message | undefined): AckContext {
  const f = (n: number) => (message ? message.field('MSH', n) : '');
  const msh9 = f(9);
  return {
    sendingApplication: f(3),
    sendingFacility: f(4),
    receivingApplication: f(5),
    receivingFacility: f(6),
    event: message ? message.comp(msh9, 2) : '',
    controlId: f(10),
    processingId: f(11),
    version: f(12),
    charset: f(18),
  };
}

/** A fresh MSH-10 for the portal's own messages. */
export const newControlId = () =>
  `ACK${Date.now().toString(36).toUpperCase()}${randomBytes(4).toString('hex').toUpperCase()}`;

/**
 * The original-mode acknowledgement (MSA-1 AA, AE or AR) of one message: MSA-2 echoes its MSH-10,
 * MSA-3 says why when it was not stored, and each problem gets an ERR segment.
 */
export function buildAck(context: AckContext, code: AckCode, problems: AckProblem[], now: Date): string {
  const esc = (t: string) => escapeValue(t, STANDARD);
  const reason = problems.find((p) => p.severity === 'E') ?? problems[0];
  const msh = [
    'MSH',
    '^~\\&',
    context.receivingApplication || PORTAL_APPLICATION,
    context.receivingFacility,
    context.sendingApplication,
    context.sendingFacility,
    hl7Now(now),
    '',
    `ACK^${context.event}^ACK`,
    newControlId(),
    context.processingId || 'P',
    context.version || '2.5.1',
    '',
    '',
    '',
    '',
    '',
    context.charset,
  ];
  const segments = [
    msh.join('|').replace(/\|+$/, ''),
    ['MSA', code, context.controlId, reason && code !== 'AA' ? esc(reason.text).slice(0, 80) : '']
      .join('|')
      .replace(/\|+$/, ''),
  ];
  for (const p of problems) {
    segments.push(
      [
        'ERR',
        '',
        p.location ?? '',
        `${p.code}^${esc(errorText(p.code))}^HL70357`,
        p.severity,
        '',
        '',
        '',
        esc(p.text),
      ].join('|'),
    );
  }
  return `${segments.join('\r')}\r`;
}

/** The acknowledgements of a batch, wrapped in BHS/BTS (and FHS/FTS when the batch came in a file). */
export function buildBatchAck(
  batch: { fhs: Hl7Segment | null; bhs: Hl7Segment | null },
  acks: string[],
  now: Date,
): string {
  const header = (name: 'FHS' | 'BHS', seg: Hl7Segment | null) =>
    [
      name,
      '^~\\&',
      PORTAL_APPLICATION,
      seg?.fields[6] ?? '',
      seg?.fields[3] ?? '',
      seg?.fields[4] ?? '',
      hl7Now(now),
      '',
      '',
      '',
      newControlId(),
      seg?.fields[11] ?? '',
    ]
      .join('|')
      .replace(/\|+$/, '');
  const lines: string[] = [];
  if (batch.fhs) lines.push(header('FHS', batch.fhs));
  lines.push(header('BHS', batch.bhs));
  const body = acks.join('').replace(/\r$/, '');
  if (body) lines.push(body);
  lines.push(`BTS|${acks.length}`);
  if (batch.fhs) lines.push('FTS|1');
  return `${lines.join('\r')}\r`;
}
