import { Batch, Message } from 'node-hl7-client';
import { type Charset, type Delimiters, delimitersOf, unescapeValue } from './hl7-text.js';

/**
 * One HL7 v2 message as segments. node-hl7-client splits batches, messages and segments;
 * fields, repetitions and components are read here from each segment's raw text, so escape
 * sequences are resolved once, in the message's own character set.
 */
export interface Hl7Segment {
  name: string;
  /** `fields[n]` is field n as sent (for MSH, fields[1] is the field separator itself). */
  fields: string[];
}

export class Hl7ParseError extends Error {}

export class Hl7Message {
  constructor(
    readonly text: string,
    readonly segments: Hl7Segment[],
    readonly delimiters: Delimiters,
    readonly charset: Charset,
  ) {}

  /** Field n of the first segment of that name, raw ('' when absent). */
  field(segment: string, n: number): string {
    const seg = this.segments.find((s) => s.name === segment);
    return seg ? fieldOf(seg, n) : '';
  }

  /** Field n, component c (1-based), unescaped. */
  value(seg: Hl7Segment | undefined, n: number, c = 1, s?: number): string {
    if (!seg) return '';
    return this.text$(component(this.firstRepetition(fieldOf(seg, n)), c, this.delimiters, s));
  }

  /** Unescapes a raw piece of a field. */
  text$(raw: string): string {
    return unescapeValue(raw, this.delimiters, this.charset).trim();
  }

  /** The repetitions of field n, raw. */
  repetitions(seg: Hl7Segment | undefined, n: number): string[] {
    if (!seg) return [];
    const raw = fieldOf(seg, n);
    return raw === '' ? [] : raw.split(this.delimiters.repetition);
  }

  firstRepetition(raw: string): string {
    return raw.split(this.delimiters.repetition)[0] ?? '';
  }

  /** Component c (1-based) of a raw field or repetition, and its sub-component s when given, unescaped. */
  comp(raw: string, c: number, s?: number): string {
    return this.text$(component(raw, c, this.delimiters, s));
  }

  /** Component c of a raw repetition, raw (sub-components still joined). */
  rawComp(raw: string, c: number): string {
    return raw.split(this.delimiters.component)[c - 1] ?? '';
  }
}

export function fieldOf(seg: Hl7Segment, n: number): string {
  return seg.fields[n] ?? '';
}

function component(raw: string, c: number, d: Delimiters, s?: number): string {
  const comp = raw.split(d.component)[c - 1] ?? '';
  return s === undefined ? comp : (comp.split(d.subComponent)[s - 1] ?? '');
}

/** Segments end with CR; LF and CRLF, as some systems and files send them, are taken alike. */
export function normaliseSegments(text: string): string {
  return text
    .replace(/\r\n|\n/g, '\r')
    .replace(/\r+/g, '\r')
    .replace(/^\r+|\r+$/g, '');
}

function splitFields(raw: string, d: Delimiters): Hl7Segment {
  const name = raw.slice(0, 3);
  if (name === 'MSH' || name === 'BHS' || name === 'FHS') {
    // MSH-1 is the field separator and MSH-2 the encoding characters: number fields as HL7 does.
    const rest = raw.slice(4).split(d.field);
    return { name, fields: [name, d.field, ...rest] };
  }
  return { name, fields: raw.split(d.field) };
}

function toMessage(library: Message, charset: Charset): Hl7Message {
  const raws = library.toArray().map((s) => s.toRaw());
  const msh = raws[0] ?? '';
  if (!msh.startsWith('MSH')) throw new Hl7ParseError('the message does not begin with an MSH segment');
  const delimiters = delimitersOf(msh);
  const segments = raws.filter((r) => /^[A-Z][A-Z0-9]{2}/.test(r)).map((r) => splitFields(r, delimiters));
  return new Hl7Message(raws.join('\r'), segments, delimiters, charset);
}

/** What arrived: one message, or a batch (FHS/BHS) of them with its header segments. */
export interface Hl7Envelope {
  batch: { fhs: Hl7Segment | null; bhs: Hl7Segment | null; delimiters: Delimiters } | null;
  messages: Hl7Message[];
}

/** Splits the decoded text into messages; a text that does not read as HL7 throws Hl7ParseError. */
export function parseEnvelope(decoded: string, charset: Charset): Hl7Envelope {
  const text = normaliseSegments(decoded.replace(/^\uFEFF/, ''));
  const head = text.slice(0, 3);
  if (head !== 'MSH' && head !== 'BHS' && head !== 'FHS') {
    throw new Hl7ParseError('the message does not begin with an MSH, BHS or FHS segment');
  }
  if (text.length < 8 || text[3] === undefined || /[A-Za-z0-9\r]/.test(text[3])) {
    throw new Hl7ParseError('MSH-1 and MSH-2 (the separators) are missing');
  }
  try {
    if (head === 'MSH') {
      if (text.split('\r').filter((l) => l.startsWith('MSH')).length > 1) {
        return parseBatch(`BHS${text.slice(3, text.indexOf(text[3], 4) + 1)}\r${text}\rBTS|`, charset, null);
      }
      return { batch: null, messages: [toMessage(new Message({ text }), charset)] };
    }
    const lines = text.split('\r');
    const fhsLine = head === 'FHS' ? lines[0]! : null;
    const inner = lines.filter((l) => !l.startsWith('FHS') && !l.startsWith('FTS'));
    let batchText = inner.join('\r');
    if (!batchText.startsWith('BHS')) {
      const sep = text[3]!;
      batchText = `BHS${sep}${text.slice(4).split(sep)[0]}\r${batchText}\rBTS${sep}`;
    }
    return parseBatch(batchText, charset, fhsLine);
  } catch (error) {
    if (error instanceof Hl7ParseError) throw error;
    throw new Hl7ParseError(error instanceof Error ? error.message : String(error));
  }
}

function parseBatch(text: string, charset: Charset, fhsLine: string | null): Hl7Envelope {
  const delimiters = delimitersOf(text);
  const bhsLine = text.split('\r')[0]!;
  const batch = new Batch({ text });
  return {
    batch: {
      fhs: fhsLine ? splitFields(fhsLine, delimiters) : null,
      bhs: splitFields(bhsLine, delimiters),
      delimiters,
    },
    messages: batch.messages().map((m) => toMessage(m, charset)),
  };
}
