import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pLimit from 'p-limit';
import { type NoticeLanguage, noticeText, type LeftOutReason } from './pdf-notice.js';
import { dict, openQpdfOutput, type PdfValue, type QpdfOutput, refId } from './qpdf-output.js';
import { pdfLib } from '../../lib/pdf-lib.js';

/** Where merged bytes go; resolves when the consumer can take more (back-pressure). */
export type ByteSink = (chunk: Uint8Array) => Promise<void>;

/**
 * A stored report to merge: `path` when its bytes are a file on this machine (read in place,
 * never written), else `open` gives them whole (read ahead) or as a stream, copied to a
 * temporary file for qpdf.
 */
export interface MergeSource {
  /** What the notice page and the audit record call it: the protocol's number and the exam. */
  protocolNumber: string;
  report: string;
  resourceId: string;
  size: number;
  path?: string;
  open(): Promise<Buffer | Readable>;
}

/** One bookmark's worth of reports (a protocol); `title: null` adds no bookmark. */
export interface MergeGroup {
  title: string | null;
  sources: MergeSource[];
}

export interface LeftOut {
  resourceId: string;
  protocolNumber: string;
  report: string;
  reason: LeftOutReason;
}

export interface MergedPdf {
  length: number;
  leftOut: LeftOut[];
  /** The merged file; its temporary files are removed once it has been read or destroyed. */
  body: Readable;
}

/** Limits on what one source may cost; a source over them is left out with a notice. */
export const MERGE_LIMITS = {
  /** A stored report above this is not merged (a scanned 150-page report is about 150 MB). */
  maxSourceBytes: 512 << 20,
  /** The whole merge may take this long, plus `perSourceMs` per source, before it is stopped. */
  baseTimeoutMs: 30_000,
  perSourceMs: 5_000,
  /** Reading one source alone, when a merge failed and the culprit is being looked for. */
  checkTimeoutMs: 20_000,
  /** Pages in one merged answer, and in one source (a source over it is left out with a notice). */
  maxPages: 20_000,
  maxSourcePages: 2_000,
  /**
   * Address space of one qpdf process. A 50-protocol print needs under 32 MiB (stream data is
   * copied, not held); qpdf holds about 5 KiB per page, so a source of 100,000 tiny pages would
   * take 500 MiB and fails here instead.
   */
  qpdfMemoryBytes: 256 << 20,
};

/**
 * qpdf runs as a process of its own, so the merging never holds the event loop; at most two run
 * at a time in a server process (the machine's cores), whatever the number of prints open:
 * a print waits for its turn instead of slowing everyone's calls.
 */
const qpdfTurns = pLimit(2);

export class QpdfMissingError extends Error {
  constructor() {
    super('qpdf was not found: install it (Debian: apt-get install qpdf) or set QPDF_PATH');
  }
}

const QPDF = () => process.env.QPDF_PATH ?? 'qpdf';

interface QpdfRun {
  code: number | null;
  stdout: Buffer;
  stderr: string;
  timedOut: boolean;
}

/**
 * Runs qpdf with a deadline and a ceiling on its address space (`ulimit -v`, through `sh`, which
 * then becomes qpdf): a source built to exhaust memory makes qpdf fail, never the machine. stdout
 * is kept (bounded), stderr's first 64 KiB are kept.
 */
function runQpdf(
  args: string[],
  timeoutMs: number,
  maxStdout = 64 << 20,
  memoryBytes = MERGE_LIMITS.qpdfMemoryBytes,
): Promise<QpdfRun> {
  return qpdfTurns(
    () =>
      new Promise<QpdfRun>((resolve, reject) => {
        const child = spawn(
          '/bin/sh',
          ['-c', 'ulimit -v "$1" || exit 126; shift; exec "$@"', 'qpdf', String(memoryBytes >> 10), QPDF(), ...args],
          { stdio: ['ignore', 'pipe', 'pipe'] },
        );
        const out: Buffer[] = [];
        let outBytes = 0;
        let err = '';
        let timedOut = false;
        const timer = setTimeout(() => {
          timedOut = true;
          child.kill('SIGKILL');
        }, timeoutMs);
        child.stdout.on('data', (chunk: Buffer) => {
          outBytes += chunk.length;
          if (outBytes > maxStdout) child.kill('SIGKILL');
          else out.push(chunk);
        });
        child.stderr.on('data', (chunk: Buffer) => {
          if (err.length < 65_536) err += chunk.toString('utf8');
        });
        child.on('error', (error: NodeJS.ErrnoException) => {
          clearTimeout(timer);
          reject(error);
        });
        child.on('close', (code) => {
          clearTimeout(timer);
          // The shell answers 127 when it finds no program to become.
          if (code === 127 && !out.length) reject(new QpdfMissingError());
          else resolve({ code, stdout: Buffer.concat(out), stderr: err, timedOut });
        });
      }),
  );
}

/** The installed qpdf's version, or null when there is none (the server says so at start). */
export async function qpdfVersion(): Promise<string | null> {
  try {
    const run = await runQpdf(['--version'], 10_000);
    return /qpdf version (\S+)/.exec(run.stdout.toString())?.[1] ?? null;
  } catch {
    return null;
  }
}

/** What a failed read of one source tells about it, from qpdf's message. */
async function reasonOf(message: string, file: string): Promise<LeftOutReason> {
  if (/password/i.test(message)) return 'password';
  // qpdf ran out of the address space it is given (MERGE_LIMITS.qpdfMemoryBytes).
  if (/bad_alloc/.test(message)) return 'too-large';
  // Readers accept the `%PDF-` header anywhere in the first KiB; a file without it is something else.
  // A stored file removed while it was being merged (replaced by a newer report) reads as damaged.
  const handle = await fs.promises.open(file, 'r').catch(() => null);
  if (!handle) return 'damaged';
  try {
    const head = Buffer.alloc(1024);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return head.subarray(0, bytesRead).includes('%PDF-') ? 'damaged' : 'not-pdf';
  } finally {
    await handle.close();
  }
}

let markerBytes: Promise<Buffer> | null = null;
/** A one-page file put before each bookmarked group so its first page can be found, then dropped. */
function marker(): Promise<Buffer> {
  markerBytes ??= (async () => {
    const { PDFDocument } = await pdfLib();
    const doc = await PDFDocument.create({ updateMetadata: false });
    doc.addPage([7, 7]).drawRectangle({ x: 1, y: 1, width: 5, height: 5 });
    return Buffer.from(await doc.save({ useObjectStreams: false }));
  })();
  return markerBytes;
}

/** The page that stands for a report that could not be included, in the reader's language. */
async function noticePdf(left: LeftOut, language: NoticeLanguage): Promise<Buffer> {
  const { PDFDocument, StandardFonts } = await pdfLib();
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const page = doc.addPage([595.28, 841.89]);
  const text = noticeText(language, left);
  // Helvetica's WinAnsi covers Portuguese and Spanish; anything else is shown as "?".
  const safe = (s: string) =>
    [...s.normalize('NFC')].map((ch) => (font.getCharacterSet().includes(ch.codePointAt(0)!) ? ch : '?')).join('');
  let y = 760;
  page.drawText(safe(text.title), { x: 56, y, size: 18, font: bold });
  y -= 36;
  for (const line of text.lines) {
    for (const wrapped of wrap(safe(line), (s) => font.widthOfTextAtSize(s, 12), 483)) {
      page.drawText(wrapped, { x: 56, y, size: 12, font });
      y -= 18;
    }
    y -= 8;
  }
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

function wrap(text: string, width: (s: string) => number, max: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    const next = line ? `${line} ${word}` : word;
    if (line && width(next) > max) {
      lines.push(line);
      line = word;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

/** A JSON v2 value from qpdf written back as PDF syntax. */
function pdfValue(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v === 'string') {
    if (v.startsWith('u:'))
      return `<${Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(v.slice(2), 'utf16le').swap16()]).toString('hex')}>`;
    if (v.startsWith('b:')) return `<${v.slice(2)}>`;
    // names (/Type) and references (3 0 R) are written as they are given.
    return v;
  }
  if (Array.isArray(v)) return `[${v.map(pdfValue).join(' ')}]`;
  return `<<${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `${k} ${pdfValue(x)}`)
    .join(' ')}>>`;
}

/** A text string for a bookmark title: literal when it is printable ASCII, else UTF-16BE with its mark. */
function textString(s: string): string {
  if (/^[\x20-\x7e]*$/.test(s)) return `(${s.replace(/[\\()]/g, (c) => `\\${c}`)})`;
  return pdfValue(`u:${s}`);
}

interface QpdfJson {
  qpdf: [{ maxobjectid: number }, Record<string, { value: Record<string, unknown> }>];
}

/** The key a source's layers carry through the merge: their state in their own document. */
const LAYER_STATE = '/PortalLayerState';

/** Where each source's pages are in qpdf's output, read from the output itself. */
interface Layout {
  output: QpdfOutput;
  rootId: number;
  pagesId: number;
  catalog: PdfValue & { kind: 'dict' };
  /** Page references (`N 0 R`) of each source, in order, the marker before each left out. */
  pagesOf: string[][];
}

/**
 * Reads qpdf's output: the page tree, and each source's pages, found by the marker page put
 * before each source (every marker shows the marker file's one content stream, which no source
 * page can share).
 */
async function readLayout(file: string, sources: number): Promise<Layout> {
  const output = await openQpdfOutput(file);
  try {
    const rootId = refId(output.trailer.entries.get('/Root'), "the merged file's /Root");
    const catalog = dict((await output.objects([rootId])).get(rootId), "the merged file's catalog");
    const pagesId = refId(catalog.entries.get('/Pages'), "the catalog's /Pages");
    const tree = dict((await output.objects([pagesId])).get(pagesId), 'the page tree');
    const kids = tree.entries.get('/Kids');
    if (kids?.kind !== 'array') throw new Error('the page tree has no /Kids');
    const ids = kids.items.map((k) => refId(k, 'a page'));
    const pages = await output.objects(ids);
    const pagesOf: string[][] = [];
    let marker: string | undefined;
    for (const id of ids) {
      const page = dict(pages.get(id), `page ${id}`);
      // qpdf's --pages writes a flat page tree: every kid is a page.
      if (page.entries.get('/Type')?.raw !== '/Page') throw new Error(`object ${id} in the page tree is not a page`);
      const contents = page.entries.get('/Contents')?.raw;
      marker ??= contents;
      if (contents === marker) pagesOf.push([]);
      else pagesOf.at(-1)!.push(`${id} 0 R`);
    }
    if (pagesOf.length !== sources) throw new Error(`found ${pagesOf.length} markers for ${sources} sources`);
    return { output, rootId, pagesId, catalog, pagesOf };
  } catch (error) {
    await output.close();
    throw error;
  }
}

/**
 * What `--pages` does not carry, added to qpdf's output without rewriting it: an incremental
 * update (appended after qpdf's last byte) with a page tree without the marker pages, an outline
 * with a bookmark per titled group at its first page, and the layers' default states.
 */
function finalUpdate(
  layout: Layout,
  kept: string[],
  bookmarks: Array<{ title: string; page: string }>,
  layers: Record<string, unknown> | null,
): Buffer {
  const { output, catalog } = layout;
  const size = Number(output.trailer.entries.get('/Size')?.raw);
  if (!Number.isInteger(size) || size <= 0) throw new Error("the merged file's trailer has no /Size");
  let nextId = size;
  const outlineId = bookmarks.length > 0 ? nextId++ : null;
  const items = bookmarks.map((b) => ({ ...b, id: nextId++ }));
  const entries = [...catalog.entries]
    .filter(([key]) => !['/Outlines', '/PageMode', ...(layers ? ['/OCProperties'] : [])].includes(key))
    .map(([key, value]) => `${key} ${value.raw}`);
  if (outlineId !== null) entries.push(`/Outlines ${outlineId} 0 R`, '/PageMode /UseOutlines');
  if (layers) entries.push(`/OCProperties ${pdfValue(layers)}`);
  const objectsOut: Array<[number, string]> = [
    [layout.pagesId, `<< /Type /Pages /Kids [${kept.join(' ')}] /Count ${kept.length} >>`],
    [layout.rootId, `<< ${entries.join(' ')} >>`],
  ];
  if (outlineId !== null) {
    objectsOut.push([
      outlineId,
      `<< /Type /Outlines /First ${items[0]!.id} 0 R /Last ${items.at(-1)!.id} 0 R /Count ${items.length} >>`,
    ]);
    for (const [i, item] of items.entries()) {
      objectsOut.push([
        item.id,
        `<< /Title ${textString(item.title)} /Parent ${outlineId} 0 R${i > 0 ? ` /Prev ${items[i - 1]!.id} 0 R` : ''}${
          i < items.length - 1 ? ` /Next ${items[i + 1]!.id} 0 R` : ''
        } /Dest [${item.page} /Fit] >>`,
      ]);
    }
  }
  let body = '\n';
  const offsets = new Map<number, number>();
  for (const [id, text] of objectsOut) {
    offsets.set(id, output.length + Buffer.byteLength(body, 'latin1'));
    body += `${id} 0 obj\n${text}\nendobj\n`;
  }
  const xrefAt = output.length + Buffer.byteLength(body, 'latin1');
  body += 'xref\n';
  for (const id of [...offsets.keys()].sort((a, b) => a - b)) {
    body += `${id} 1\n${String(offsets.get(id)).padStart(10, '0')} 00000 n\r\n`;
  }
  const fileId = output.trailer.entries.get('/ID');
  const idEntry = fileId ? ` /ID ${fileId.raw}` : '';
  body += `trailer\n<< /Size ${nextId} /Root ${layout.rootId} 0 R /Prev ${output.startxref}${idEntry} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  // Titles are ASCII here: every non-ASCII character went into a hex string; qpdf's own values are bytes.
  return Buffer.from(body, 'latin1');
}

/**
 * The catalog's optional content: every layer marked in its source (`markLayers`), hidden where
 * its source hid it. The marks are found by a byte search of qpdf's plain output, each checked
 * to be in a layer's dictionary (a stream's bytes may hold the same word).
 */
async function layerProperties(file: string, output: QpdfOutput): Promise<Record<string, unknown> | null> {
  const found = await positionsOf(file, LAYER_STATE, 100_000);
  if (found.length === 0) return null;
  const starts = [...output.offsets].sort((a, b) => a[1] - b[1]);
  const owners = new Set<number>();
  for (const at of found) {
    // The object a position is in: the last one starting before it.
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]![1] <= at) lo = mid;
      else hi = mid - 1;
    }
    const owner = starts[lo];
    if (owner && owner[1] <= at) owners.add(owner[0]);
  }
  const objects = await output.objects([...owners]);
  const all: string[] = [];
  const off: string[] = [];
  for (const [id, value] of [...objects].sort((a, b) => a[0] - b[0])) {
    if (value.kind !== 'dict' || value.entries.get('/Type')?.raw !== '/OCG') continue;
    const state = value.entries.get(LAYER_STATE)?.raw;
    if (state !== '/ON' && state !== '/OFF') continue;
    all.push(`${id} 0 R`);
    if (state === '/OFF') off.push(`${id} 0 R`);
  }
  if (all.length === 0) return null;
  return { '/OCGs': all, '/D': { '/Order': all, '/OFF': off } };
}

/**
 * A source's layers (optional content groups) are marked with the state its catalog gives them,
 * since `--pages` keeps the layers but not the catalog that says which are hidden. Returns the
 * marked copy, or null when the source has no layers.
 */
async function markLayers(file: string, into: string, timeoutMs: number): Promise<string | null> {
  // Only a catalog can say a layer is hidden; it is in plain sight unless in an object stream
  // (dictionaries are not encrypted, only strings and streams).
  if (!(await fileContains(file, ['/OCProperties', '/ObjStm']))) return null;
  const run = await runQpdf(['--json=2', '--json-key=qpdf', file], timeoutMs, 512 << 20);
  if (run.code !== 0 && run.code !== 3) return null;
  const json = JSON.parse(run.stdout.toString('utf8')) as QpdfJson;
  const objects = json.qpdf[1];
  const resolve = (v: unknown): unknown =>
    typeof v === 'string' && /^\d+ \d+ R$/.test(v) ? objects[`obj:${v}`]?.value : v;
  const dict = (v: unknown) => {
    const r = resolve(v);
    return typeof r === 'object' && r !== null && !Array.isArray(r) ? (r as Record<string, unknown>) : undefined;
  };
  const refs = (v: unknown) => {
    const r = resolve(v);
    return Array.isArray(r) ? r.filter((x): x is string => typeof x === 'string') : [];
  };
  const properties = dict(dict(dict(objects['trailer']?.value)?.['/Root'])?.['/OCProperties']);
  if (!properties) return null;
  const config = dict(properties['/D']) ?? {};
  const on = refs(config['/ON']);
  const off = refs(config['/OFF']);
  const hiddenByDefault = config['/BaseState'] === '/OFF';
  const update: Record<string, { value: Record<string, unknown> }> = {};
  for (const ref of refs(properties['/OCGs'])) {
    const value = dict(ref);
    if (!value) continue;
    const hidden = hiddenByDefault ? !on.includes(ref) : off.includes(ref);
    update[`obj:${ref}`] = { value: { ...value, [LAYER_STATE]: hidden ? '/OFF' : '/ON' } };
  }
  if (Object.keys(update).length === 0) return null;
  const updateFile = `${into}.json`;
  const marked = `${into}.pdf`;
  await fs.promises.writeFile(updateFile, JSON.stringify({ qpdf: [{ jsonversion: 2 }, update] }));
  const rewrite = await runQpdf(['--decrypt', file, `--update-from-json=${updateFile}`, marked], timeoutMs);
  return rewrite.code === 0 || rewrite.code === 3 ? marked : null;
}

/** Whether a file's bytes hold one of these words anywhere. */
async function fileContains(file: string, words: readonly string[]): Promise<boolean> {
  let tail: Buffer = Buffer.alloc(0);
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 })) {
    const bytes: Buffer = tail.length > 0 ? Buffer.concat([tail, chunk as Buffer]) : (chunk as Buffer);
    if (words.some((w) => bytes.includes(w, 0, 'latin1'))) return true;
    tail = bytes.subarray(-32);
  }
  return false;
}

/** Where a word is in a file (at most `max` places). */
async function positionsOf(file: string, word: string, max: number): Promise<number[]> {
  const found: number[] = [];
  let base = 0;
  let tail: Buffer = Buffer.alloc(0);
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 })) {
    const bytes = Buffer.concat([tail, chunk as Buffer]);
    const start = base - tail.length;
    // A word spanning two chunks is found once: in the tail, only a match ending in the new chunk counts.
    // The tail is shorter than the word: every match ends in the new chunk, none is counted twice.
    for (let at = bytes.indexOf(word, 0, 'latin1'); at >= 0; at = bytes.indexOf(word, at + 1, 'latin1')) {
      found.push(start + at);
      if (found.length >= max) return found;
    }
    base += (chunk as Buffer).length;
    tail = bytes.subarray(Math.max(0, bytes.length - word.length + 1));
  }
  return found;
}

async function writeSource(file: string, source: MergeSource): Promise<void> {
  const body = await source.open();
  if (Buffer.isBuffer(body)) await fs.promises.writeFile(file, body);
  else await pipeline(body, fs.createWriteStream(file));
}

/**
 * Merges stored PDFs into one with qpdf (the program, a process per merge): every page of every
 * source in order, as its source shows it. A source qpdf cannot read (a password, damage past
 * repair, not a PDF, over the limits) is replaced by a page saying which report of which
 * protocol is missing and why, in `language`; the answer lists them. Groups with a title get a
 * bookmark at their first page.
 */
export async function mergePdfs(groups: MergeGroup[], language: NoticeLanguage): Promise<MergedPdf> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'portal-merge-'));
  const cleanup = () => fs.promises.rm(dir, { recursive: true, force: true });
  try {
    return await mergeIn(dir, groups, language, cleanup);
  } catch (error) {
    await cleanup();
    throw error;
  }
}

async function mergeIn(
  dir: string,
  groups: MergeGroup[],
  language: NoticeLanguage,
  cleanup: () => Promise<void>,
): Promise<MergedPdf> {
  const markerFile = path.join(dir, 'marker.pdf');
  await fs.promises.writeFile(markerFile, await marker());
  interface Slot {
    source: MergeSource;
    file: string;
    group: number;
    left?: LeftOutReason;
  }
  const slots: Slot[] = [];
  for (const [group, { sources }] of groups.entries()) {
    for (const source of sources) {
      const slot: Slot = { source, group, file: source.path ?? path.join(dir, `s${slots.length}.pdf`) };
      if (source.size > MERGE_LIMITS.maxSourceBytes) slot.left = 'too-large';
      else if (!source.path) await writeSource(slot.file, source);
      slots.push(slot);
    }
  }
  const leaveOut = async (slot: Slot, reason: LeftOutReason) => {
    slot.left = reason;
    slot.file = path.join(dir, `notice-${slots.indexOf(slot)}.pdf`);
    await fs.promises.writeFile(slot.file, await noticePdf({ ...describe(slot.source), reason }, language));
  };
  for (const slot of slots) if (slot.left) await leaveOut(slot, slot.left);

  const out = path.join(dir, 'merged.pdf');
  const timeoutMs = MERGE_LIMITS.baseTimeoutMs + MERGE_LIMITS.perSourceMs * slots.length;
  /** One qpdf run for the whole merge; a source it cannot read becomes a notice and it runs again. */
  const merge = async () => {
    for (let attempt = 0; ; attempt++) {
      const run = await runQpdf(
        [
          '--empty',
          // Every stream's bytes as its source has them: nothing decoded, nothing compressed again.
          '--stream-data=preserve',
          '--object-streams=disable',
          '--warning-exit-0',
          '--no-warn',
          '--pages',
          // The marker page before each source tells where its pages start in the output.
          ...(slots.length > 0 ? slots.flatMap((s) => [markerFile, s.file]) : [markerFile]),
          '--',
          out,
        ],
        timeoutMs,
      );
      if (run.code === 0 || run.code === 3) return;
      // qpdf names the file it could not read: that source becomes a notice and the merge runs again.
      const named = slots.find((s) => !s.left && run.stderr.includes(`${s.file}:`));
      if (named && !run.timedOut && attempt < slots.length) {
        const line = run.stderr
          .split('\n')
          .filter((l) => l.startsWith(`qpdf: ${named.file}:`))
          .join(' ');
        await leaveOut(named, await reasonOf(line || run.stderr, named.file));
        continue;
      }
      // A merge that ran out of time or memory (or failed without naming a file): each source is
      // read on its own, with a deadline of its own, and the ones that fail are left out.
      let found = false;
      await Promise.all(
        slots
          .filter((s) => !s.left)
          .map(async (slot) => {
            const check = await runQpdf(['--show-npages', slot.file], MERGE_LIMITS.checkTimeoutMs);
            const reason: LeftOutReason | null = check.timedOut
              ? 'timeout'
              : check.code !== 0 && check.code !== 3
                ? await reasonOf(check.stderr, slot.file)
                : Number(check.stdout.toString()) > MERGE_LIMITS.maxSourcePages
                  ? 'too-many-pages'
                  : null;
            if (reason) {
              found = true;
              await leaveOut(slot, reason);
            }
          }),
      );
      if (!found) throw new Error(run.timedOut ? 'merging timed out' : `qpdf failed: ${run.stderr.slice(0, 500)}`);
    }
  };
  // A merge without sources has one marker, and no page once it is left out.
  const markers = Math.max(slots.length, 1);
  await merge();
  let layout = await readLayout(out, markers);
  const again = async () => {
    await layout.output.close();
    await merge();
    layout = await readLayout(out, markers);
  };
  try {
    // A source with more pages than a report has is left out once its pages are counted.
    const long = slots.filter((s, i) => !s.left && layout.pagesOf[i]!.length > MERGE_LIMITS.maxSourcePages);
    for (const slot of long) await leaveOut(slot, 'too-many-pages');
    if (long.length > 0) await again();

    // Rare in reports, layers cost a second merge: each source with layers is marked first.
    // qpdf's output has no object streams and is not encrypted: its dictionaries are plain text.
    let layers: Record<string, unknown> | null = null;
    if (await fileContains(out, ['/OCG'])) {
      let marked = false;
      await Promise.all(
        slots
          .filter((s) => !s.left)
          .map(async (slot) => {
            const into = path.join(dir, `layers-${slots.indexOf(slot)}`);
            const file = await markLayers(slot.file, into, MERGE_LIMITS.checkTimeoutMs);
            if (file) {
              slot.file = file;
              marked = true;
            }
          }),
      );
      if (marked) {
        await again();
        layers = await layerProperties(out, layout.output);
      }
    }

    const kept = layout.pagesOf.flat();
    if (kept.length > MERGE_LIMITS.maxPages) throw new Error(`merged file has ${kept.length} pages`);
    const bookmarks: Array<{ title: string; page: string }> = [];
    for (const [g, group] of groups.entries()) {
      const page = slots.flatMap((s, i) => (s.group === g ? layout.pagesOf[i]! : []))[0];
      if (group.title !== null && page) bookmarks.push({ title: group.title, page });
    }
    const update = finalUpdate(layout, kept, bookmarks, layers);
    const length = layout.output.length;
    const body = new PassThrough({ highWaterMark: 1 << 20 });
    const done = () => void cleanup();
    // Dropped answers clean up when they close; read ones before their last bytes are handed over.
    body.once('close', done);
    pipeline(fs.createReadStream(out, { highWaterMark: 1 << 20, end: length - 1 }), body, { end: false })
      .then(cleanup)
      .then(() => body.end(update))
      .catch((error: unknown) => body.destroy(error as Error));
    return {
      length: length + update.length,
      leftOut: slots.filter((s) => s.left).map((s) => ({ ...describe(s.source), reason: s.left! })),
      body,
    };
  } finally {
    await layout.output.close();
  }
}

function describe(source: MergeSource): Omit<LeftOut, 'reason'> {
  return { resourceId: source.resourceId, protocolNumber: source.protocolNumber, report: source.report };
}
