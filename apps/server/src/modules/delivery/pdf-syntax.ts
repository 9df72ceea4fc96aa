/**
 * Just enough PDF syntax to copy objects between files: a value parser over latin1 text and a
 * reference rewriter that never touches strings, names or comments.
 */

/** Malformed PDF syntax (as opposed to a failure to write the output). */
export class PdfSyntaxError extends Error {}

export type PdfNode =
  | { k: 'dict'; entries: Map<string, PdfNode>; start: number; end: number }
  | { k: 'array'; items: PdfNode[]; start: number; end: number }
  | { k: 'ref'; num: number; gen: number; start: number; end: number }
  | { k: 'name'; v: string; start: number; end: number }
  | { k: 'num'; v: number; start: number; end: number }
  | { k: 'other'; start: number; end: number };

const WS = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIM = new Set('()<>[]{}/%'.split('').map((c) => c.charCodeAt(0)));

export function isWs(code: number): boolean {
  return WS.has(code);
}

export function skipWs(s: string, i: number): number {
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (WS.has(c)) i++;
    else if (c === 0x25 /* % */) {
      while (i < s.length && s[i] !== '\n' && s[i] !== '\r') i++;
    } else break;
  }
  return i;
}

function endOfLiteralString(s: string, i: number): number {
  // s[i] === '('
  let depth = 0;
  for (; i < s.length; i++) {
    const ch = s[i];
    if (ch === '\\') i++;
    else if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) return i + 1;
  }
  throw new PdfSyntaxError('unterminated string');
}

function endOfRegular(s: string, i: number): number {
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (WS.has(c) || DELIM.has(c)) break;
    i++;
  }
  return i;
}

const REF_AT = /(\d+)[\0\t\n\f\r ]+(\d+)[\0\t\n\f\r ]+R(?![^\0\t\n\f\r ()<>[\]{}/%])/y;

/** Parses one value starting at `i` (after whitespace). */
export function parseValue(s: string, i: number): PdfNode {
  i = skipWs(s, i);
  const start = i;
  const ch = s[i];
  if (ch === '<' && s[i + 1] === '<') {
    const entries = new Map<string, PdfNode>();
    i += 2;
    for (;;) {
      i = skipWs(s, i);
      if (i >= s.length) throw new PdfSyntaxError('unterminated dictionary');
      if (s[i] === '>' && s[i + 1] === '>') return { k: 'dict', entries, start, end: i + 2 };
      const key = parseValue(s, i);
      if (key.k !== 'name') throw new PdfSyntaxError('dictionary key is not a name');
      const value = parseValue(s, key.end);
      entries.set(key.v, value);
      i = value.end;
    }
  }
  if (ch === '[') {
    const items: PdfNode[] = [];
    i++;
    for (;;) {
      i = skipWs(s, i);
      if (i >= s.length) throw new PdfSyntaxError('unterminated array');
      if (s[i] === ']') return { k: 'array', items, start, end: i + 1 };
      const item = parseValue(s, i);
      items.push(item);
      i = item.end;
    }
  }
  if (ch === '(') return { k: 'other', start, end: endOfLiteralString(s, i) };
  if (ch === '<') {
    const close = s.indexOf('>', i);
    if (close < 0) throw new PdfSyntaxError('unterminated hex string');
    return { k: 'other', start, end: close + 1 };
  }
  if (ch === '/') {
    const end = endOfRegular(s, i + 1);
    return { k: 'name', v: s.slice(i + 1, end), start, end };
  }
  REF_AT.lastIndex = i;
  const ref = REF_AT.exec(s);
  if (ref) return { k: 'ref', num: Number(ref[1]), gen: Number(ref[2]), start, end: REF_AT.lastIndex };
  const end = endOfRegular(s, i);
  if (end === i) throw new PdfSyntaxError(`unexpected character at ${i}`);
  const word = s.slice(i, end);
  const num = Number(word);
  return Number.isFinite(num) && /^[+-]?[\d.]+$/.test(word)
    ? { k: 'num', v: num, start, end }
    : { k: 'other', start, end };
}

/**
 * Copies `s[start, end)` with every indirect reference renumbered by `map` (unknown ones become
 * `null`, as a reader would treat a dangling reference).
 */
export function rewriteRefs(s: string, start: number, end: number, map: (num: number) => number | undefined): string {
  let out = '';
  let copyFrom = start;
  let i = start;
  while (i < end) {
    const c = s.charCodeAt(i);
    if (c === 0x28 /* ( */) {
      i = endOfLiteralString(s, i);
    } else if (c === 0x3c /* < */ && s[i + 1] !== '<') {
      const close = s.indexOf('>', i);
      i = close < 0 ? end : close + 1;
    } else if (c === 0x2f /* / */) {
      i = endOfRegular(s, i + 1);
    } else if (c === 0x25 /* % */) {
      while (i < end && s[i] !== '\n' && s[i] !== '\r') i++;
    } else if (c >= 0x30 && c <= 0x39) {
      REF_AT.lastIndex = i;
      const ref = REF_AT.exec(s);
      if (ref && REF_AT.lastIndex <= end) {
        const mapped = map(Number(ref[1]));
        out += s.slice(copyFrom, i) + (mapped === undefined ? 'null' : `${mapped} 0 R`);
        i = REF_AT.lastIndex;
        copyFrom = i;
      } else {
        i = endOfRegular(s, i);
      }
    } else if (c === 0x2b || c === 0x2d || c === 0x2e) {
      // A signed or fractional number is never the start of a reference.
      i = endOfRegular(s, i + 1);
    } else {
      i++;
    }
  }
  return out + s.slice(copyFrom, end);
}

/** PDF text string for titles: UTF-16BE with a byte-order mark, written in hex. */
export function pdfTextString(text: string): string {
  let hex = 'FEFF';
  for (let i = 0; i < text.length; i++) hex += text.charCodeAt(i).toString(16).padStart(4, '0').toUpperCase();
  return `<${hex}>`;
}
