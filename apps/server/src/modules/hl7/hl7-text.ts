/**
 * The byte and text level of HL7 v2: character sets (MSH-18), escape sequences and timestamps.
 * Segments, fields and batches are parsed by node-hl7-client (docs/decisions.md).
 */

/** How the message's bytes become text, chosen from MSH-18. */
export interface Charset {
  /** What MSH-18 said ('' when empty). */
  declared: string;
  /** The WHATWG encoding name used to decode and encode (`utf-8`, `latin1`, `iso-8859-15`...). */
  encoding: string;
}

export class UnsupportedCharsetError extends Error {}

/** The MSH-18 values we read; `8859/N` names ISO-8859-N. */
const ISO_8859 = /^8859\/(\d{1,2})$/;

function validUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** MSH-18 of the raw bytes, read before decoding (every character set here keeps ASCII as is). */
export function declaredCharset(bytes: Uint8Array): string {
  const head = Buffer.from(bytes.subarray(0, Math.min(bytes.length, 4096))).toString('latin1');
  const start = head.search(/(?:^|[\r\n])(MSH|FHS|BHS)/);
  const msh = head.indexOf('MSH', Math.max(start, 0));
  if (msh < 0) return '';
  const line = head.slice(msh).split(/[\r\n]/)[0] ?? '';
  const fieldSeparator = line[3] ?? '|';
  const fields = line.split(fieldSeparator);
  const componentSeparator = (fields[1] ?? '^')[0] ?? '^';
  const repetitionSeparator = (fields[1] ?? '^~')[1] ?? '~';
  // MSH-18 is fields[17] (MSH-1 is the separator itself); a repetition names alternatives, the first counts.
  return (fields[17] ?? '').split(repetitionSeparator)[0]!.split(componentSeparator)[0]!.trim().toUpperCase();
}

/**
 * Contract 9: ASCII, 8859/1 (and the other 8859 parts) and UNICODE UTF-8. An empty or ASCII
 * MSH-18 with bytes above 127 is what many Brazilian systems send: valid UTF-8 is read as such,
 * anything else as Latin-1 (docs/decisions.md).
 */
export function charsetOf(bytes: Uint8Array): Charset {
  const declared = declaredCharset(bytes);
  if (declared === 'UNICODE UTF-8' || declared === 'UTF-8' || declared === 'UNICODE') {
    return { declared, encoding: 'utf-8' };
  }
  const iso = ISO_8859.exec(declared);
  if (iso) {
    const part = Number(iso[1]);
    if (part === 1) return { declared, encoding: 'latin1' };
    const encoding = `iso-8859-${part}`;
    try {
      new TextDecoder(encoding);
      return { declared, encoding };
    } catch {
      throw new UnsupportedCharsetError(declared);
    }
  }
  if (declared === '' || declared === 'ASCII') {
    return { declared, encoding: validUtf8(bytes) ? 'utf-8' : 'latin1' };
  }
  throw new UnsupportedCharsetError(declared);
}

export function decodeText(bytes: Uint8Array, charset: Charset): string {
  return new TextDecoder(charset.encoding).decode(bytes);
}

/** Text to bytes in the message's character set (an ACK answers in the sender's own). */
export function encodeText(text: string, charset: Charset): Buffer {
  if (charset.encoding === 'utf-8') return Buffer.from(text, 'utf8');
  // Characters the set cannot write become '?' (an ACK's own texts are ASCII; other 8859 parts keep ASCII only).
  const limit = charset.encoding === 'latin1' ? 0xff : 0x7f;
  return Buffer.from(Array.from(text, (ch) => (ch.codePointAt(0)! <= limit ? ch : '?')).join(''), 'latin1');
}

/** The separators of a message, from MSH-1 and MSH-2. */
export interface Delimiters {
  field: string;
  component: string;
  repetition: string;
  escape: string;
  subComponent: string;
}

export function delimitersOf(mshLine: string): Delimiters {
  const field = mshLine[3] ?? '|';
  const encoding = mshLine.slice(4).split(field)[0] ?? '^~\\&';
  return {
    field,
    component: encoding[0] ?? '^',
    repetition: encoding[1] ?? '~',
    escape: encoding[2] ?? '\\',
    subComponent: encoding[3] ?? '&',
  };
}

/**
 * Resolves HL7 escape sequences in a value: separators (\F\ \S\ \T\ \R\ \E\), line breaks of
 * formatted text (\.br\, \.sp\), hexadecimal data (\Xhh..\, bytes in the message's character
 * set) and highlighting (\H\ \N\, dropped). Sequences we cannot render are dropped, never shown raw.
 */
export function unescapeValue(raw: string, d: Delimiters, charset: Charset): string {
  const e = d.escape;
  if (!e || !raw.includes(e)) return raw;
  let out = '';
  let i = 0;
  while (i < raw.length) {
    const ch = raw[i]!;
    if (ch !== e) {
      out += ch;
      i++;
      continue;
    }
    const end = raw.indexOf(e, i + 1);
    if (end < 0) {
      out += raw.slice(i);
      break;
    }
    const seq = raw.slice(i + 1, end);
    i = end + 1;
    if (seq === 'F') out += d.field;
    else if (seq === 'S') out += d.component;
    else if (seq === 'T') out += d.subComponent;
    else if (seq === 'R') out += d.repetition;
    else if (seq === 'E') out += d.escape;
    else if (seq === '.br') out += '\n';
    else if (/^\.sp[+]?\d*$/.test(seq)) out += '\n'.repeat(Math.max(1, Number(seq.slice(3).replace('+', '')) || 1));
    else if (/^X([0-9A-Fa-f]{2})+$/.test(seq)) {
      out += new TextDecoder(charset.encoding === 'utf-8' ? 'utf-8' : charset.encoding).decode(
        Buffer.from(seq.slice(1), 'hex'),
      );
    }
    // \H\ \N\ \.fi\ \.nf\ \.in..\ \.ti..\ \.ce\ \Cxxyy\ \Mxxyyzz\ \Zxx\: no text of their own.
  }
  return out;
}

/** Escapes a text for an ER7 field (an ACK's MSA-3 and ERR texts). */
export function escapeValue(text: string, d: Delimiters): string {
  let out = '';
  for (const ch of text.replace(/\r\n|\r|\n/g, ' ')) {
    if (ch === d.escape) out += `${d.escape}E${d.escape}`;
    else if (ch === d.field) out += `${d.escape}F${d.escape}`;
    else if (ch === d.component) out += `${d.escape}S${d.escape}`;
    else if (ch === d.subComponent) out += `${d.escape}T${d.escape}`;
    else if (ch === d.repetition) out += `${d.escape}R${d.escape}`;
    else out += ch;
  }
  return out;
}

/**
 * The offset assumed for HL7 timestamps without one: Brazil's official time (no daylight saving
 * since 2019), where the senders are (docs/decisions.md).
 */
export const DEFAULT_OFFSET = '-03:00';

const TS = /^(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\.\d{1,4})?([+-]\d{4})?$/;

/** HL7 DTM/TS (`YYYY[MM[DD[HH[MM[SS[.S]]]]]][+-ZZZZ]`) to ISO 8601 with offset; undefined when empty. */
export function hl7Timestamp(value: string): string | undefined {
  const text = value.trim();
  if (text === '') return undefined;
  const m = TS.exec(text);
  if (!m) throw new Hl7ValueError(`"${text}" is not an HL7 date/time (YYYYMMDDHHMMSS[+-ZZZZ])`);
  const [, y, mo = '01', d = '01', h = '00', mi = '00', s = '00', , tz] = m;
  const offset = tz ? `${tz.slice(0, 3)}:${tz.slice(3)}` : DEFAULT_OFFSET;
  const iso = `${y}-${mo}-${d}T${h}:${mi}:${s}${offset}`;
  if (Number.isNaN(new Date(iso).getTime()) || Number(mo) > 12 || Number(d) > 31 || Number(h) > 23) {
    throw new Hl7ValueError(`"${text}" is not an HL7 date/time`);
  }
  return iso;
}

/** HL7 DT (or the date part of a TS) to `YYYY-MM-DD`; undefined when empty. */
export function hl7Date(value: string): string | undefined {
  const text = value.trim();
  if (text === '') return undefined;
  const m = /^(\d{4})(\d{2})(\d{2})/.exec(text);
  if (!m) throw new Hl7ValueError(`"${text}" is not an HL7 date (YYYYMMDD)`);
  return `${m[1]}-${m[2]}-${m[3]}`;
}

/** A value that does not read as its HL7 data type; the mapping adds where it was. */
export class Hl7ValueError extends Error {}

/** An HL7 timestamp for now, in the portal's offset (MSH-7 of an ACK). */
export function hl7Now(date: Date): string {
  const local = new Date(date.getTime() - 3 * 3600_000);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${local.getUTCFullYear()}${p(local.getUTCMonth() + 1)}${p(local.getUTCDate())}${p(local.getUTCHours())}${p(local.getUTCMinutes())}${p(local.getUTCSeconds())}-0300`;
}
