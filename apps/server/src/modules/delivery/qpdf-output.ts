import fs from 'node:fs';

/**
 * Reads the few dictionaries the merge needs (trailer, catalog, page tree, pages) from a file
 * qpdf has just written with `--object-streams=disable`: a classic cross-reference table, every
 * object written plainly as `N 0 obj … endobj`. It reads no source file and no stream: qpdf's
 * output is the only input, and anything else in it (an xref stream, an object not where the
 * table says) is an error, not something to guess at.
 */

/** A value as qpdf wrote it; `raw` is its text, written back unchanged where it is kept. */
export type PdfValue =
  | (Span & { kind: 'dict'; entries: Map<string, PdfValue> })
  | (Span & { kind: 'array'; items: PdfValue[] })
  | (Span & { kind: 'ref'; id: number })
  | (Span & { kind: 'other' });

/** Where a value is in the text read; its text is only made when asked for. */
class Span {
  constructor(
    private readonly text: string,
    private readonly start: number,
    private readonly end: number,
  ) {}
  get raw(): string {
    return this.text.slice(this.start, this.end);
  }
}

function value<K extends PdfValue['kind'], X extends object>(
  kind: K,
  text: string,
  start: number,
  end: number,
  more: X,
): Span & { kind: K } & X {
  return Object.assign(new Span(text, start, end), { kind }, more);
}

// Character classes of PDF syntax (ISO 32000 7.2.2), by character code.
const SPACE = 1;
const DELIMITER = 2;
const CLASS = new Uint8Array(256);
for (const c of [0, 9, 10, 12, 13, 32]) CLASS[c] = SPACE;
for (const c of '()<>[]{}/%') CLASS[c.charCodeAt(0)] = DELIMITER;
const isDigits = (s: string) => s.length > 0 && s.length < 16 && /^\d+$/.test(s);

class Parser {
  at: number;
  constructor(
    readonly text: string,
    start: number,
  ) {
    this.at = start;
  }

  /** Skips white space and comments. */
  skip(): void {
    const t = this.text;
    while (this.at < t.length) {
      const c = t.charCodeAt(this.at);
      if (CLASS[c & 0xff] === SPACE && c < 256) this.at++;
      else if (c === 0x25 /* % */) {
        while (this.at < t.length && t.charCodeAt(this.at) !== 10 && t.charCodeAt(this.at) !== 13) this.at++;
      } else return;
    }
  }

  /** A regular token (number, keyword, name body) from here to the next delimiter or space. */
  private word(): string {
    const t = this.text;
    const start = this.at;
    while (this.at < t.length && CLASS[t.charCodeAt(this.at) & 0xff] === 0) this.at++;
    return t.slice(start, this.at);
  }

  private need(ok: boolean): void {
    if (!ok) throw new Truncated();
  }

  value(): PdfValue {
    this.skip();
    const t = this.text;
    this.need(this.at < t.length);
    const start = this.at;
    const c = t[this.at]!;
    if (c === '<' && t[this.at + 1] === '<') {
      this.at += 2;
      const entries = new Map<string, PdfValue>();
      for (;;) {
        this.skip();
        this.need(this.at < t.length);
        if (t[this.at] === '>') {
          this.need(this.at + 1 < t.length);
          if (t[this.at + 1] !== '>') throw new Error(`unexpected '>' at ${this.at}`);
          this.at += 2;
          return value('dict', t, start, this.at, { entries });
        }
        if (t[this.at] !== '/') throw new Error(`dictionary key expected at ${this.at}`);
        this.at++;
        const key = `/${this.word()}`;
        entries.set(key, this.value());
      }
    }
    if (c === '[') {
      this.at++;
      const items: PdfValue[] = [];
      for (;;) {
        this.skip();
        this.need(this.at < t.length);
        if (t[this.at] === ']') {
          this.at++;
          return value('array', t, start, this.at, { items });
        }
        items.push(this.value());
      }
    }
    if (c === '(') {
      // A literal string: balanced parentheses, a backslash escapes the next character.
      let depth = 0;
      for (;;) {
        this.need(this.at < t.length);
        const ch = t[this.at++]!;
        if (ch === '\\') this.at++;
        else if (ch === '(') depth++;
        else if (ch === ')' && --depth === 0) break;
      }
      return value('other', t, start, this.at, {});
    }
    if (c === '<') {
      const end = t.indexOf('>', this.at);
      this.need(end >= 0);
      this.at = end + 1;
      return value('other', t, start, this.at, {});
    }
    if (c === '/') {
      this.at++;
      this.word();
      return value('other', t, start, this.at, {});
    }
    const first = this.word();
    if (first === '') throw new Error(`unexpected '${c}' at ${this.at}`);
    // `id gen R` is a reference; anything else standing alone is a number or a keyword.
    if (isDigits(first)) {
      const back = this.at;
      this.skip();
      const gen = this.word();
      if (isDigits(gen)) {
        this.skip();
        if (this.word() === 'R') return value('ref', t, start, this.at, { id: Number(first) });
      }
      this.at = back;
    }
    return value('other', t, start, this.at, {});
  }
}

/** The text ended before the value did: the caller reads more and tries again. */
class Truncated extends Error {
  constructor() {
    super('truncated');
  }
}

/** Parses the object `id` found at the start of `text` (`id 0 obj <value>`); null when it needs more text. */
export function parseObject(text: string, id: number): PdfValue | null {
  const head = /^\s*(\d+)\s+(\d+)\s+obj\b/.exec(text.slice(0, 64));
  if (!head) {
    if (text.length < 64 && /^\s*\d*\s*\d*\s*o?b?$/.test(text)) return null;
    throw new Error(`object ${id} is not where the cross-reference table says`);
  }
  if (Number(head[1]) !== id) throw new Error(`object ${head[1]} found where object ${id} should be`);
  try {
    return new Parser(text, head[0].length).value();
  } catch (error) {
    if (error instanceof Truncated) return null;
    throw error;
  }
}

/** Parses one value from a text (a trailer dictionary, a test's input). */
export function parseValue(text: string): PdfValue {
  return new Parser(text, 0).value();
}

export interface QpdfOutput {
  length: number;
  /** Where the cross-reference table starts (the next update's `/Prev`). */
  startxref: number;
  trailer: PdfValue & { kind: 'dict' };
  /** Byte offset of each object in use, by object number. */
  offsets: Map<number, number>;
  /** Reads objects by number, nearby ones in one read. */
  objects(ids: readonly number[]): Promise<Map<number, PdfValue>>;
  close(): Promise<void>;
}

const WINDOW = 256 << 10;

/** Opens qpdf's output for reading its cross-reference table and objects. */
export async function openQpdfOutput(file: string): Promise<QpdfOutput> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const { size: length } = await handle.stat();
    const read = async (position: number, size: number) => {
      const buffer = Buffer.alloc(Math.max(0, Math.min(size, length - position)));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      return buffer.subarray(0, bytesRead).toString('latin1');
    };
    const tail = await read(Math.max(0, length - 1024), 1024);
    const sx = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail);
    if (!sx) throw new Error('merged file has no startxref');
    const startxref = Number(sx[1]);
    // 20 bytes an entry; the table and trailer are read whole (about 1 MiB for 50,000 objects).
    const table = await read(startxref, length - startxref);
    if (!table.startsWith('xref')) throw new Error('merged file has no cross-reference table');
    const offsets = new Map<number, number>();
    let at = 4;
    const section = /\s*(\d+)\s+(\d+)\s*?\r?\n/y;
    for (;;) {
      section.lastIndex = at;
      const m = section.exec(table);
      if (!m) break;
      const first = Number(m[1]);
      const count = Number(m[2]);
      at = section.lastIndex;
      for (let i = 0; i < count; i++, at += 20) {
        const entry = table.slice(at, at + 20);
        if (!/^\d{10} \d{5} [nf][ \r\n]{2}$/.test(entry)) throw new Error(`bad cross-reference entry ${first + i}`);
        if (entry[17] === 'n') offsets.set(first + i, Number(entry.slice(0, 10)));
      }
    }
    const trailerAt = table.indexOf('trailer', at);
    if (trailerAt < 0) throw new Error('merged file has no trailer');
    const trailer = parseValue(table.slice(trailerAt + 7));
    if (trailer.kind !== 'dict') throw new Error('merged file has no trailer dictionary');

    const objects = async (ids: readonly number[]) => {
      const found = new Map<number, PdfValue>();
      const wanted = [...new Set(ids)]
        .map((id) => {
          const offset = offsets.get(id);
          if (offset === undefined || offset >= startxref) throw new Error(`object ${id} is not in the merged file`);
          return { id, offset };
        })
        .sort((a, b) => a.offset - b.offset);
      let window = { start: 0, text: '' };
      for (const { id, offset } of wanted) {
        for (let size = WINDOW; ; size *= 2) {
          if (offset < window.start || offset >= window.start + window.text.length) {
            window = { start: offset, text: await read(offset, size) };
          }
          const value = parseObject(window.text.slice(offset - window.start), id);
          if (value) {
            found.set(id, value);
            break;
          }
          // The object runs past the window: read it again from its start, twice as much.
          if (window.start + window.text.length >= startxref || size > 64 << 20)
            throw new Error(`object ${id} does not end`);
          window = { start: offset, text: await read(offset, size * 2) };
        }
      }
      return found;
    };
    return { length, startxref, trailer, offsets, objects, close: () => handle.close() };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The object number of a reference, or an error naming what was expected. */
export function refId(value: PdfValue | undefined, what: string): number {
  if (value?.kind !== 'ref') throw new Error(`${what} is not a reference`);
  return value.id;
}

/** A dictionary, or an error naming what was expected. */
export function dict(value: PdfValue | undefined, what: string): PdfValue & { kind: 'dict' } {
  if (value?.kind !== 'dict') throw new Error(`${what} is not a dictionary`);
  return value;
}
