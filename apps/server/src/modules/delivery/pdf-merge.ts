import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pLimit from 'p-limit';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { type NoticeLanguage, noticeText, type LeftOutReason } from './pdf-notice.js';

/** Where merged bytes go; resolves when the consumer can take more (back-pressure). */
export type ByteSink = (chunk: Uint8Array) => Promise<void>;

/** A stored report to merge; `open` gives its bytes whole (read ahead) or as a stream. */
export interface MergeSource {
  /** What the notice page and the audit record call it: the protocol's number and the exam. */
  protocolNumber: string;
  report: string;
  resourceId: string;
  size: number;
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
  /** Pages in one merged answer. */
  maxPages: 20_000,
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

/** Runs qpdf with a deadline; stdout is kept (bounded), stderr's first 64 KiB are kept. */
function runQpdf(args: string[], timeoutMs: number, maxStdout = 64 << 20): Promise<QpdfRun> {
  return qpdfTurns(
    () =>
      new Promise<QpdfRun>((resolve, reject) => {
        const child = spawn(QPDF(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
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
          reject(error.code === 'ENOENT' ? new QpdfMissingError() : error);
        });
        child.on('close', (code) => {
          clearTimeout(timer);
          resolve({ code, stdout: Buffer.concat(out), stderr: err, timedOut });
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
  // Readers accept the `%PDF-` header anywhere in the first KiB; a file without it is something else.
  const handle = await fs.promises.open(file, 'r');
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
    const doc = await PDFDocument.create({ updateMetadata: false });
    doc.addPage([7, 7]).drawRectangle({ x: 1, y: 1, width: 5, height: 5 });
    return Buffer.from(await doc.save({ useObjectStreams: false }));
  })();
  return markerBytes;
}

/** The page that stands for a report that could not be included, in the reader's language. */
async function noticePdf(left: LeftOut, language: NoticeLanguage): Promise<Buffer> {
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
  pages: Array<{ object: string; contents: string[] }>;
  qpdf: [{ maxobjectid: number }, Record<string, { value: Record<string, unknown> }>];
}

/** The key a source's layers carry through the merge: their state in their own document. */
const LAYER_STATE = '/PortalLayerState';

/**
 * Adds to qpdf's output, without rewriting it, what `--pages` does not carry: an incremental
 * update (appended after qpdf's last byte) with a page tree without the marker pages, an outline
 * with a bookmark per titled group, and the layers' default states (which of them are hidden).
 */
async function finalUpdate(
  file: string,
  fileLength: number,
  groups: Array<{ title: string | null }> | null,
  layers: boolean,
  timeoutMs: number,
) {
  const run = await runQpdf(
    [
      '--json=2',
      '--json-key=pages',
      '--json-key=qpdf',
      // Every object only when layers are to be found among them; else the catalog is enough.
      ...(layers ? [] : ['--json-object=trailer', '--json-object=1']),
      file,
    ],
    timeoutMs,
    layers ? 512 << 20 : 64 << 20,
  );
  if (run.code !== 0 && run.code !== 3)
    throw new Error(`qpdf could not read its own output: ${run.stderr.slice(0, 500)}`);
  const json = JSON.parse(run.stdout.toString('utf8')) as QpdfJson;
  const objects = json.qpdf[1];
  const trailer = objects['trailer']?.value ?? {};
  const rootRef = String(trailer['/Root']);
  const rootId = Number(rootRef.split(' ')[0]);
  const catalog = objects[`obj:${rootRef}`]?.value;
  if (!catalog) throw new Error(`merged file's catalog is ${rootRef}, not object 1`);
  const pagesId = Number(String(catalog['/Pages']).split(' ')[0]);
  // Marker pages all share the marker's content stream; every group starts with one.
  const markerContents = groups ? json.pages[0]?.contents.join(' ') : undefined;
  const kept: string[] = [];
  const firstPageOf: Array<string | undefined> = [];
  let group = -1;
  for (const page of json.pages) {
    if (markerContents !== undefined && page.contents.join(' ') === markerContents) {
      group++;
      firstPageOf[group] = undefined;
      continue;
    }
    firstPageOf[group] ??= page.object;
    kept.push(page.object);
  }
  if (groups && group !== groups.length - 1) throw new Error(`found ${group + 1} markers for ${groups.length} groups`);
  let nextId = json.qpdf[0].maxobjectid + 1;
  const outlineId = nextId++;
  const items = (groups ?? [])
    .map((g, i) => ({ title: g.title, page: firstPageOf[i] }))
    .filter((g): g is { title: string; page: string } => g.title !== null && g.page !== undefined)
    .map((g) => ({ ...g, id: nextId++ }));
  const objectsOut: Array<[number, string]> = [
    [pagesId, `<< /Type /Pages /Kids [${kept.join(' ')}] /Count ${kept.length} >>`],
    [
      outlineId,
      items.length > 0
        ? `<< /Type /Outlines /First ${items[0]!.id} 0 R /Last ${items.at(-1)!.id} 0 R /Count ${items.length} >>`
        : '<< /Type /Outlines /Count 0 >>',
    ],
    ...items.map((item, i): [number, string] => [
      item.id,
      `<< /Title ${textString(item.title)} /Parent ${outlineId} 0 R${i > 0 ? ` /Prev ${items[i - 1]!.id} 0 R` : ''}${
        i < items.length - 1 ? ` /Next ${items[i + 1]!.id} 0 R` : ''
      } /Dest [${item.page} /Fit] >>`,
    ]),
    [
      rootId,
      pdfValue({
        ...catalog,
        '/Outlines': `${outlineId} 0 R`,
        ...(items.length > 0 ? { '/PageMode': '/UseOutlines' } : {}),
        ...(layers ? layerProperties(objects) : {}),
      }),
    ],
  ];
  const startxref = await lastStartxref(file, fileLength);
  let body = '\n';
  const offsets = new Map<number, number>();
  for (const [id, text] of objectsOut) {
    offsets.set(id, fileLength + Buffer.byteLength(body, 'latin1'));
    body += `${id} 0 obj\n${text}\nendobj\n`;
  }
  const xrefAt = fileLength + Buffer.byteLength(body, 'latin1');
  body += 'xref\n';
  for (const id of [...offsets.keys()].sort((a, b) => a - b)) {
    body += `${id} 1\n${String(offsets.get(id)).padStart(10, '0')} 00000 n\r\n`;
  }
  const id = trailer['/ID'] ? ` /ID ${pdfValue(trailer['/ID'])}` : '';
  body += `trailer\n<< /Size ${nextId} /Root ${rootRef} /Prev ${startxref}${id} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  // Titles are ASCII-safe here: every non-ASCII character went into a hex string above.
  return { update: Buffer.from(body, 'latin1'), pages: kept.length };
}

/** The catalog's optional content: every layer the sources had, hidden where its source hid it. */
function layerProperties(objects: Record<string, { value?: unknown }>): Record<string, unknown> {
  const all: string[] = [];
  const off: string[] = [];
  for (const [key, object] of Object.entries(objects)) {
    const value = object.value as Record<string, unknown> | undefined;
    if (!key.startsWith('obj:') || typeof value !== 'object' || value === null || value['/Type'] !== '/OCG') continue;
    const ref = key.slice(4);
    all.push(ref);
    if (value[LAYER_STATE] === '/OFF') off.push(ref);
  }
  if (all.length === 0) return {};
  return { '/OCProperties': { '/OCGs': all, '/D': { '/Order': all, '/OFF': off } } };
}

/**
 * A source's layers (optional content groups) are marked with the state its catalog gives them,
 * since `--pages` keeps the layers but not the catalog that says which are hidden. Returns the
 * marked copy, or null when the source has no layers.
 */
async function markLayers(file: string, timeoutMs: number): Promise<string | null> {
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
  const updateFile = `${file}.layers.json`;
  const marked = `${file}.layers.pdf`;
  await fs.promises.writeFile(updateFile, JSON.stringify({ qpdf: [{ jsonversion: 2 }, update] }));
  const rewrite = await runQpdf(['--decrypt', file, `--update-from-json=${updateFile}`, marked], timeoutMs);
  return rewrite.code === 0 || rewrite.code === 3 ? marked : null;
}

/** Whether a file's bytes hold one of these words anywhere. */
async function fileContains(file: string, words: readonly string[]): Promise<boolean> {
  let tail = '';
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 })) {
    const text = tail + (chunk as Buffer).toString('latin1');
    if (words.some((w) => text.includes(w))) return true;
    tail = text.slice(-16);
  }
  return false;
}

async function lastStartxref(file: string, length: number): Promise<number> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const tail = Buffer.alloc(Math.min(length, 1024));
    await handle.read(tail, 0, tail.length, length - tail.length);
    const m = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail.toString('latin1'));
    if (!m) throw new Error('merged file has no startxref');
    return Number(m[1]);
  } finally {
    await handle.close();
  }
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
  const bookmarks = groups.some((g) => g.title !== null);
  const markerFile = path.join(dir, 'marker.pdf');
  if (bookmarks) await fs.promises.writeFile(markerFile, await marker());
  interface Slot {
    source: MergeSource;
    file: string;
    left?: LeftOutReason;
  }
  const order: Array<Slot | 'marker'> = [];
  const slots: Slot[] = [];
  for (const group of groups) {
    if (bookmarks) order.push('marker');
    for (const source of group.sources) {
      const slot: Slot = { source, file: path.join(dir, `s${slots.length}.pdf`) };
      if (source.size > MERGE_LIMITS.maxSourceBytes) slot.left = 'too-large';
      else await writeSource(slot.file, source);
      slots.push(slot);
      order.push(slot);
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
  const merge = async () => {
    for (let attempt = 0; ; attempt++) {
      const files = order.map((o) => (o === 'marker' ? markerFile : o.file));
      const run = await runQpdf(
        [
          '--empty',
          // Every stream's bytes as its source has them: nothing decoded, nothing compressed again.
          '--stream-data=preserve',
          '--object-streams=disable',
          '--warning-exit-0',
          '--no-warn',
          '--pages',
          ...files,
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
      // A merge that ran out of time (or failed without naming a file): each source is read on
      // its own, with a deadline of its own, and the ones that fail are left out.
      let found = false;
      await Promise.all(
        slots
          .filter((s) => !s.left)
          .map(async (slot) => {
            const check = await runQpdf(['--show-npages', slot.file], MERGE_LIMITS.checkTimeoutMs);
            if (check.timedOut) {
              found = true;
              await leaveOut(slot, 'timeout');
            } else if (check.code !== 0 && check.code !== 3) {
              found = true;
              await leaveOut(slot, await reasonOf(check.stderr, slot.file));
            }
          }),
      );
      if (!found) throw new Error(run.timedOut ? 'merging timed out' : `qpdf failed: ${run.stderr.slice(0, 500)}`);
    }
  };
  await merge();
  // Rare in reports, layers cost a second merge: each source with layers is marked first.
  let layers = false;
  // qpdf's output has no object streams and is not encrypted: its dictionaries are plain text.
  if (await fileContains(out, ['/OCG'])) {
    await Promise.all(
      slots
        .filter((s) => !s.left)
        .map(async (slot) => {
          const marked = await markLayers(slot.file, MERGE_LIMITS.checkTimeoutMs);
          if (marked) {
            slot.file = marked;
            layers = true;
          }
        }),
    );
    if (layers) await merge();
  }
  const length = (await fs.promises.stat(out)).size;
  let update = Buffer.alloc(0);
  if (bookmarks || layers) {
    const added = await finalUpdate(out, length, bookmarks ? groups : null, layers, timeoutMs);
    if (added.pages > MERGE_LIMITS.maxPages) throw new Error(`merged file has ${added.pages} pages`);
    update = added.update;
  }
  const body = new PassThrough({ highWaterMark: 1 << 20 });
  const done = () => void cleanup();
  // Dropped answers clean up when they close; read ones before their last bytes are handed over.
  body.once('close', done);
  pipeline(fs.createReadStream(out, { highWaterMark: 1 << 20 }), body, { end: false })
    .then(cleanup)
    .then(() => body.end(update))
    .catch((error: unknown) => body.destroy(error as Error));
  return {
    length: length + update.length,
    leftOut: slots.filter((s) => s.left).map((s) => ({ ...describe(s.source), reason: s.left! })),
    body,
  };
}

function describe(source: MergeSource): Omit<LeftOut, 'reason'> {
  return { resourceId: source.resourceId, protocolNumber: source.protocolNumber, report: source.report };
}
