import { setImmediate } from 'node:timers/promises';
import pLimit from 'p-limit';
import { PDFDocument } from 'pdf-lib';
import { type PdfNode, PdfSyntaxError, parseValue, pdfTextString, rewriteRefs, skipWs } from './pdf-syntax.js';

/** Where merged bytes go; resolves when the consumer can take more (back-pressure). */
export type ByteSink = (chunk: Uint8Array) => Promise<void>;

interface SourceXref {
  /** object number -> byte offset of `N G obj` */
  offsets: Map<number, number>;
  trailer: Map<string, PdfNode>;
  /** Offsets of the xref sections (objects end before them). */
  sectionOffsets: number[];
}

class NeedsFallback extends PdfSyntaxError {}

const PAGE_INHERITED = ['Resources', 'MediaBox', 'CropBox', 'Rotate'] as const;

function parseClassicXref(s: string): SourceXref {
  const tail = s.lastIndexOf('startxref');
  if (tail < 0) throw new NeedsFallback('no startxref');
  let at = Number(/startxref\s+(\d+)/.exec(s.slice(tail, tail + 40))?.[1] ?? NaN);
  const offsets = new Map<number, number>();
  const sectionOffsets: number[] = [];
  let trailer: Map<string, PdfNode> | null = null;
  const seen = new Set<number>();
  while (Number.isFinite(at) && !seen.has(at)) {
    seen.add(at);
    let i = skipWs(s, at);
    if (!s.startsWith('xref', i)) throw new NeedsFallback('cross-reference stream');
    sectionOffsets.push(at);
    i += 4;
    for (;;) {
      i = skipWs(s, i);
      if (s.startsWith('trailer', i)) break;
      const head = /(\d+)\s+(\d+)/y;
      head.lastIndex = i;
      const m = head.exec(s);
      if (!m) throw new NeedsFallback('bad xref subsection');
      const first = Number(m[1]);
      const count = Number(m[2]);
      i = head.lastIndex;
      const entry = /\s*(\d{10})\s(\d{5})\s([nf])/y;
      for (let n = 0; n < count; n++) {
        entry.lastIndex = i;
        const e = entry.exec(s);
        if (!e) throw new NeedsFallback('bad xref entry');
        i = entry.lastIndex;
        const num = first + n;
        // Later sections (read first) win over the ones they update.
        if (e[3] === 'n' && !offsets.has(num)) offsets.set(num, Number(e[1]));
        else if (e[3] === 'f' && !offsets.has(num)) offsets.set(num, -1);
      }
    }
    const dict = parseValue(s, i + 'trailer'.length);
    if (dict.k !== 'dict') throw new NeedsFallback('bad trailer');
    if (dict.entries.has('Encrypt') || dict.entries.has('XRefStm')) throw new NeedsFallback('encrypted or hybrid');
    trailer ??= dict.entries;
    const prev = dict.entries.get('Prev');
    at = prev?.k === 'num' ? prev.v : NaN;
  }
  if (!trailer) throw new NeedsFallback('no trailer');
  for (const [num, off] of offsets) if (off < 0) offsets.delete(num);
  return { offsets, trailer, sectionOffsets };
}

/**
 * Where the `endobj` of a stream object starts. The data length comes from /Length (direct or
 * indirect) and is checked against the `endstream` that must follow; a wrong or missing length
 * falls back to the first `endstream` after the data start, as readers do.
 */
function endOfStreamObject(s: string, streamKeyword: number, dict: PdfNode, bodyOf: (num: number) => PdfNode): number {
  let dataStart = streamKeyword + 'stream'.length;
  if (s[dataStart] === '\r') dataStart++;
  if (s[dataStart] === '\n') dataStart++;
  let length: number | undefined;
  const lengthNode = dict.k === 'dict' ? dict.entries.get('Length') : undefined;
  if (lengthNode?.k === 'num') length = lengthNode.v;
  else if (lengthNode?.k === 'ref') {
    const target = bodyOf(lengthNode.num);
    if (target.k === 'num') length = target.v;
  }
  let endStream = -1;
  if (length !== undefined && s.startsWith('endstream', skipWs(s, dataStart + length))) {
    endStream = skipWs(s, dataStart + length);
  } else {
    endStream = s.indexOf('endstream', dataStart);
  }
  const endObj = endStream < 0 ? -1 : s.indexOf('endobj', endStream);
  if (endObj < 0) throw new NeedsFallback('stream without end');
  return endObj;
}

/** Re-saves a PDF pdf-lib can read with a classic cross-reference table and no object streams. */
async function normalise(bytes: Uint8Array): Promise<Buffer> {
  const src = await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false });
  const out = await PDFDocument.create({ updateMetadata: false });
  const pages = await out.copyPages(src, src.getPageIndices());
  for (const p of pages) out.addPage(p);
  return Buffer.from(await out.save({ useObjectStreams: false, addDefaultPage: false }));
}

/**
 * Merging is the part of a print that keeps the processor busy. However many merges are open, at
 * most two documents are merged at a time in a server process, each starting in a turn of the
 * event loop of its own, so other users' calls are answered between them instead of waiting
 * behind whole merges.
 */
const documentTurns = pLimit(2);

/**
 * Merges PDFs into one by copying each source object's bytes with renumbered ids: no object is
 * decoded, so a report costs about what reading it does. Sources with cross-reference streams,
 * object streams or encryption are first re-saved by pdf-lib. A document's output is gathered
 * while it is merged and goes to `sink` after its turn, so a slow reader never holds a turn; only
 * one source file and its output are held in memory at a time.
 */
export class PdfMerger {
  private offset = 0;
  private nextId = 4;
  private readonly xref: number[] = [];
  private readonly pages: number[] = [];
  private readonly bookmarks: Array<{ title: string; page: number }> = [];
  private pendingTitle: string | null = null;
  private static readonly PAGES_ID = 1;
  private static readonly CATALOG_ID = 2;
  private static readonly OUTLINES_ID = 3;

  constructor(private readonly sink: ByteSink) {}

  private buffered: Uint8Array[] = [];

  private write(chunk: Uint8Array): void {
    this.offset += chunk.length;
    this.buffered.push(chunk);
  }

  private writeObject(id: number, parts: Uint8Array[]): void {
    this.xref[id] = this.offset;
    for (const p of parts) this.write(p);
  }

  /** Hands the gathered output to the sink, waiting for it as it asks. */
  private async drain(): Promise<void> {
    const chunks = this.buffered;
    this.buffered = [];
    for (const chunk of chunks) await this.sink(chunk);
  }

  async begin(): Promise<void> {
    this.write(Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1'));
    await this.drain();
  }

  /** The next page added starts a bookmark with this title. */
  bookmark(title: string): void {
    this.pendingTitle = title;
  }

  get pageCount(): number {
    return this.pages.length;
  }

  /**
   * Appends a document's pages. Returns false, having added no page, when neither the fast copy
   * nor pdf-lib can read it: one damaged report must not cost the reader the others.
   */
  async addDocument(bytes: Buffer): Promise<boolean> {
    const added = await documentTurns(async () => {
      await setImmediate();
      return this.append(bytes);
    });
    await this.drain();
    return added;
  }

  private async append(bytes: Buffer): Promise<boolean> {
    const mark = { offset: this.offset, nextId: this.nextId, buffered: this.buffered.length };
    try {
      this.copy(bytes);
      return true;
    } catch (error) {
      // Only a source we cannot parse goes to pdf-lib; a failing output is the caller's problem.
      if (!(error instanceof PdfSyntaxError)) throw error;
      // What the fast copy wrote before it gave up is taken back: no orphan objects in the file.
      this.offset = mark.offset;
      this.nextId = mark.nextId;
      this.xref.length = Math.min(this.xref.length, mark.nextId);
      this.buffered.length = mark.buffered;
    }
    let normalised: Buffer;
    try {
      normalised = await normalise(new Uint8Array(bytes));
    } catch {
      return false;
    }
    // pdf-lib's own output is always readable by the fast copy; if it ever is not, the merge fails.
    this.copy(normalised);
    return true;
  }

  private copy(bytes: Buffer): void {
    const s = bytes.toString('latin1');
    const { offsets, trailer } = parseClassicXref(s);
    const root = trailer.get('Root');
    if (root?.k !== 'ref') throw new NeedsFallback('no catalog');

    const bodyOf = (num: number): PdfNode => {
      const off = offsets.get(num);
      if (off === undefined) throw new NeedsFallback(`missing object ${num}`);
      const head = /\s*(\d+)\s+(\d+)\s+obj/y;
      head.lastIndex = off;
      if (!head.exec(s)) throw new NeedsFallback(`object ${num} not at its offset`);
      return parseValue(s, head.lastIndex);
    };
    const catalog = bodyOf(root.num);
    const pagesRef = catalog.k === 'dict' ? catalog.entries.get('Pages') : undefined;
    if (pagesRef?.k !== 'ref') throw new NeedsFallback('no page tree');

    // Walk the page tree in order, remembering the attributes each page inherits.
    const treeNodes = new Set<number>([root.num]);
    const leaves: Array<{ num: number; inherited: Map<string, { s: string }> }> = [];
    const walk = (num: number, inherited: Map<string, { s: string }>, depth: number) => {
      if (depth > 64 || treeNodes.has(num)) throw new NeedsFallback('page tree loop');
      const node = bodyOf(num);
      if (node.k !== 'dict') throw new NeedsFallback('page node is not a dictionary');
      const type = node.entries.get('Type');
      const kids = node.entries.get('Kids');
      if (type?.k === 'name' && type.v === 'Pages' && kids?.k === 'array') {
        treeNodes.add(num);
        const next = new Map(inherited);
        for (const key of PAGE_INHERITED) {
          const v = node.entries.get(key);
          if (v) next.set(key, { s: s.slice(v.start, v.end) });
        }
        for (const kid of kids.items) {
          if (kid.k !== 'ref') throw new NeedsFallback('page kid is not a reference');
          walk(kid.num, next, depth + 1);
        }
      } else {
        leaves.push({ num, inherited });
      }
    };
    walk(pagesRef.num, new Map(), 0);

    // Renumber every object except the old catalog and page-tree nodes, which are replaced.
    const ids = new Map<number, number>();
    const ordered = [...offsets.entries()].sort((a, b) => a[1] - b[1]);
    for (const [num] of ordered) if (!treeNodes.has(num)) ids.set(num, this.nextId++);
    const map = (num: number) => ids.get(num);
    const leafSet = new Map(leaves.map((l) => [l.num, l]));
    for (const [num, off] of ordered) {
      const id = ids.get(num);
      if (id === undefined) continue;
      const head = /\s*(\d+)\s+(\d+)\s+obj/y;
      head.lastIndex = off;
      if (!head.exec(s)) throw new NeedsFallback(`object ${num} not at its offset`);
      const value = parseValue(s, head.lastIndex);
      const leaf = leafSet.get(num);
      let text: string;
      if (leaf && value.k === 'dict') {
        let dict = '<<';
        for (const [key, v] of value.entries) {
          if (key === 'Parent') continue;
          dict += `/${key} ${rewriteRefs(s, v.start, v.end, map)}\n`;
        }
        for (const [key, v] of leaf.inherited) {
          if (!value.entries.has(key)) dict += `/${key} ${rewriteRefs(v.s, 0, v.s.length, map)}\n`;
        }
        text = `${dict}/Parent ${PdfMerger.PAGES_ID} 0 R>>`;
      } else {
        text = rewriteRefs(s, value.start, value.end, map);
      }
      const after = skipWs(s, value.end);
      const parts: Uint8Array[] = [Buffer.from(`${id} 0 obj\n${text}\n`, 'latin1')];
      if (s.startsWith('stream', after)) {
        const endObj = endOfStreamObject(s, after, value, bodyOf);
        parts.push(bytes.subarray(after, endObj));
      }
      parts.push(Buffer.from('endobj\n', 'latin1'));
      this.writeObject(id, parts);
    }
    // Pages are listed in tree order, not file order; a bookmark points at the first of them.
    const docPages = leaves.map((l) => ids.get(l.num)).filter((id): id is number => id !== undefined);
    this.pages.push(...docPages);
    if (this.pendingTitle !== null && docPages[0] !== undefined) {
      this.bookmarks.push({ title: this.pendingTitle, page: docPages[0] });
      this.pendingTitle = null;
    }
  }

  /** Writes the page tree, outline, catalog, cross-reference table and trailer. */
  async finish(): Promise<void> {
    const enc = (t: string) => Buffer.from(t, 'latin1');
    this.writeObject(PdfMerger.PAGES_ID, [
      enc(
        `${PdfMerger.PAGES_ID} 0 obj\n<</Type /Pages /Count ${this.pages.length} /Kids [${this.pages
          .map((p) => `${p} 0 R`)
          .join(' ')}]>>\nendobj\n`,
      ),
    ]);
    const itemIds = this.bookmarks.map(() => this.nextId++);
    for (const [i, mark] of this.bookmarks.entries()) {
      const id = itemIds[i]!;
      const prev = i > 0 ? `/Prev ${itemIds[i - 1]} 0 R ` : '';
      const next = i < itemIds.length - 1 ? `/Next ${itemIds[i + 1]} 0 R ` : '';
      this.writeObject(id, [
        enc(
          `${id} 0 obj\n<</Title ${pdfTextString(mark.title)} /Parent ${PdfMerger.OUTLINES_ID} 0 R ${prev}${next}/Dest [${mark.page} 0 R /Fit]>>\nendobj\n`,
        ),
      ]);
    }
    const outline =
      itemIds.length > 0 ? `/First ${itemIds[0]} 0 R /Last ${itemIds.at(-1)} 0 R /Count ${itemIds.length}` : '/Count 0';
    this.writeObject(PdfMerger.OUTLINES_ID, [
      enc(`${PdfMerger.OUTLINES_ID} 0 obj\n<</Type /Outlines ${outline}>>\nendobj\n`),
    ]);
    this.writeObject(PdfMerger.CATALOG_ID, [
      enc(
        `${PdfMerger.CATALOG_ID} 0 obj\n<</Type /Catalog /Pages ${PdfMerger.PAGES_ID} 0 R /Outlines ${PdfMerger.OUTLINES_ID} 0 R${
          itemIds.length > 0 ? ' /PageMode /UseOutlines' : ''
        }>>\nendobj\n`,
      ),
    ]);
    const xrefAt = this.offset;
    const size = this.nextId;
    let table = `xref\n0 ${size}\n0000000000 65535 f\r\n`;
    for (let id = 1; id < size; id++) {
      const off = this.xref[id];
      table += off === undefined ? '0000000000 65535 f\r\n' : `${String(off).padStart(10, '0')} 00000 n\r\n`;
    }
    table += `trailer\n<</Size ${size} /Root ${PdfMerger.CATALOG_ID} 0 R>>\nstartxref\n${xrefAt}\n%%EOF\n`;
    this.write(enc(table));
    await this.drain();
  }
}
