import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { PDFRef } from 'pdf-lib';
import { PDFDict, PDFDocument, type PDFHexString, PDFName, PDFNumber, type PDFString } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { pixelDifference, seePages, type SeenPage } from '../../test/pdf-compare.js';
import { type CorpusFile, pdfCorpus } from '../../test/pdf-corpus.js';
import { MERGE_LIMITS, type MergeGroup, mergePdfs } from './pdf-merge.js';

async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function qpdfCheck(bytes: Buffer): { code: number; out: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'merge-check-'));
  try {
    fs.writeFileSync(path.join(dir, 'x.pdf'), bytes);
    const out = execFileSync('qpdf', ['--check', path.join(dir, 'x.pdf')], { stdio: ['ignore', 'pipe', 'pipe'] });
    return { code: 0, out: out.toString() };
  } catch (error) {
    const e = error as { status: number; stdout: Buffer; stderr: Buffer };
    return { code: e.status, out: `${e.stdout}${e.stderr}` };
  }
}

/** The resident memory of this process's qpdf children now, in bytes. */
function qpdfResidentBytes(): number {
  let bytes = 0;
  try {
    for (const pid of fs
      .readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)) {
      if (!pid) continue;
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      if (/^Name:\s+qpdf$/m.test(status)) bytes += Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    }
  } catch {
    // a child ended between the reads
  }
  return bytes;
}

/** The outline's titles and the page number each points at. */
function outline(doc: PDFDocument): Array<{ title: string; page: number }> {
  const pages = doc.getPages().map((p) => p.ref.toString());
  const root = doc.catalog.lookup(PDFName.of('Outlines'), PDFDict);
  const out: Array<{ title: string; page: number }> = [];
  let item = root.lookupMaybe(PDFName.of('First'), PDFDict);
  while (item) {
    const title = (item.lookup(PDFName.of('Title')) as PDFHexString | PDFString).decodeText();
    const dest = item.lookup(PDFName.of('Dest')) as unknown as { get(i: number): PDFRef };
    out.push({ title, page: pages.indexOf(dest.get(0).toString()) + 1 });
    item = item.lookupMaybe(PDFName.of('Next'), PDFDict);
  }
  expect(root.lookup(PDFName.of('Count'), PDFNumber).asNumber()).toBe(out.length);
  return out;
}

/**
 * A hostile PDF: `count` tiny pages sharing one empty content stream, so that it costs its reader
 * memory and time out of all proportion to its size (100,000 pages in 9 MB).
 */
function manyPages(count: number): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Count ${count} /Kids [${Array.from({ length: count }, (_, i) => `${i + 4} 0 R`).join(' ')}] >>`,
    '<< /Length 0 >>\nstream\n\nendstream',
    ...Array.from({ length: count }, () => '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] /Contents 3 0 R >>'),
  ];
  const parts = ['%PDF-1.4\n'];
  let length = parts[0]!.length;
  const offsets: number[] = [];
  for (const [i, object] of objects.entries()) {
    offsets.push(length);
    const text = `${i + 1} 0 obj\n${object}\nendobj\n`;
    parts.push(text);
    length += text.length;
  }
  parts.push(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`);
  for (const offset of offsets) parts.push(`${String(offset).padStart(10, '0')} 00000 n \n`);
  parts.push(`trailer << /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`);
  return Buffer.from(parts.join(''), 'latin1');
}

const source = (protocolNumber: string, file: CorpusFile, asStream = false) => ({
  protocolNumber,
  report: `Laudo ${file.name}`,
  resourceId: file.name,
  size: file.bytes.length,
  open: async () => (asStream ? Readable.from([file.bytes.subarray(0, 1000), file.bytes.subarray(1000)]) : file.bytes),
});

describe('merging report PDFs with qpdf', () => {
  let corpus: CorpusFile[];
  const seen = new Map<string, SeenPage[]>();

  beforeAll(async () => {
    corpus = await pdfCorpus();
    for (const f of corpus) if (f.readable) seen.set(f.name, seePages(f.bytes));
  }, 120_000);

  it('keeps every page of every kind of report exactly as its source shows it, with a notice for each unreadable one', async () => {
    // Three protocols, the corpus spread over them; every other source comes as a stream.
    const groups: MergeGroup[] = [
      { title: '2026-000123 - João Conceição', sources: [] },
      { title: '2026-000124 - Ana (filha) \\ Souza', sources: [] },
      { title: '2026-000125 - Zoë 李', sources: [] },
    ];
    corpus.forEach((f, i) => groups[i % 3]!.sources.push(source(`P-${i % 3}`, f, i % 2 === 1)));
    const merged = await mergePdfs(groups, 'pt-br');
    const bytes = await readAll(merged.body);
    expect(bytes.length).toBe(merged.length);

    expect(merged.leftOut.map((l) => [l.resourceId, l.reason])).toEqual(
      groups
        .flatMap((g) => g.sources)
        .map((s) => corpus.find((f) => f.name === s.resourceId)!)
        .filter((f) => !f.readable)
        .map((f) => [
          f.name,
          { 'encrypted-user-password': 'password', truncated: 'damaged', 'not-a-pdf': 'not-pdf' }[f.name],
        ]),
    );
    const check = qpdfCheck(bytes);
    expect(check.code, check.out).toBe(0);
    expect(check.out).toContain('No syntax or stream encoding errors found');

    const out = seePages(bytes);
    let at = 0;
    const firstPages: number[] = [];
    for (const group of groups) {
      firstPages.push(at + 1);
      for (const s of group.sources) {
        const file = corpus.find((f) => f.name === s.resourceId)!;
        if (!file.readable) {
          const notice = out[at++]!;
          expect(notice.text).toContain('Laudo não incluído');
          expect(notice.text.replace(/\s+/g, ' ')).toContain(
            `O laudo "Laudo ${file.name}" do protocolo ${s.protocolNumber}`,
          );
          expect(notice.text).toMatch(
            /Motivo: o arquivo do laudo (está protegido por senha|não é um PDF|está danificado)/,
          );
          continue;
        }
        for (const [i, page] of seen.get(file.name)!.entries()) {
          const got = out[at++];
          expect(got, `${file.name} page ${i + 1}`).toBeDefined();
          expect(got!.text, `${file.name} page ${i + 1} text`).toBe(page.text);
          expect(pixelDifference(got!, page), `${file.name} page ${i + 1} rendering`).toBeLessThan(0.01);
        }
      }
    }
    expect(out).toHaveLength(at);
    // What a reader sees in the Chromium report, accents, units and bold included.
    expect(out[0]!.text).toContain('Médico responsável técnico:');
    expect(out[0]!.text).toContain('0,2 mm³');
    expect(out[0]!.text).toContain('14,2 µg/dL');
    expect(out[0]!.text).toContain('24 cm³ (± 2)');
    expect(out[0]!.text).toContain('36,7 °C');

    const doc = await PDFDocument.load(bytes);
    expect(outline(doc)).toEqual(groups.map((g, i) => ({ title: g.title, page: firstPages[i] })));
    // The form field keeps its value; the hidden layer is still listed as off.
    expect(doc.getForm().getTextField('paciente').getText()).toBe('Maria das Graças');
  }, 120_000);

  it('writes the notice in the reader’s language, and a print of only unreadable files is still a PDF', async () => {
    const bad = corpus.filter((f) => !f.readable);
    for (const [language, words] of [
      ['es', ['Informe no incluido', 'contraseña']],
      ['en', ['Report not included', 'password']],
    ] as const) {
      const merged = await mergePdfs([{ title: 'X-1 - Ana', sources: bad.map((f) => source('X-1', f)) }], language);
      const bytes = await readAll(merged.body);
      const pages = seePages(bytes);
      expect(pages).toHaveLength(bad.length);
      for (const w of words) expect(pages.map((p) => p.text).join('\n')).toContain(w);
      expect(merged.leftOut).toHaveLength(bad.length);
      expect(qpdfCheck(bytes).code).toBe(0);
    }
  }, 60_000);

  it('merges without bookmarks when no group has a title (show all), and removes its temporary files', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'merge-tmp-'));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    const files = corpus.filter((f) => f.readable).slice(0, 3);
    const merged = await mergePdfs([{ title: null, sources: files.map((f) => source('S-1', f)) }], 'pt-br').finally(
      () => {
        if (saved === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = saved;
      },
    );
    expect(fs.readdirSync(tmp)).toHaveLength(1);
    const bytes = await readAll(merged.body);
    const doc = await PDFDocument.load(bytes);
    expect(doc.getPageCount()).toBe(files.reduce((n, f) => n + seen.get(f.name)!.length, 0));
    expect(doc.catalog.get(PDFName.of('Outlines'))).toBeUndefined();
    expect(fs.readdirSync(tmp)).toEqual([]);
    fs.rmdirSync(tmp);
  }, 60_000);

  it('leaves out a report over the size limit with a notice, without reading it', async () => {
    const saved = MERGE_LIMITS.maxSourceBytes;
    MERGE_LIMITS.maxSourceBytes = 100_000;
    try {
      const scan = corpus.find((f) => f.name === 'image-scan')!;
      const small = corpus.find((f) => f.name === 'ghostscript')!;
      let opened = false;
      const big = { ...source('L-1', scan), open: async () => ((opened = true), scan.bytes) };
      const merged = await mergePdfs([{ title: 'L-1 - Ana', sources: [source('L-1', small), big] }], 'en');
      const pages = seePages(await readAll(merged.body));
      expect(opened).toBe(false);
      expect(merged.leftOut).toEqual([expect.objectContaining({ resourceId: 'image-scan', reason: 'too-large' })]);
      expect(pages).toHaveLength(seen.get('ghostscript')!.length + 1);
      expect(pages.at(-1)!.text).toContain('too large');
    } finally {
      MERGE_LIMITS.maxSourceBytes = saved;
    }
  }, 60_000);

  it('leaves out a source with more pages than a report has, once its pages are counted', async () => {
    const saved = MERGE_LIMITS.maxSourcePages;
    MERGE_LIMITS.maxSourcePages = 30;
    try {
      const gs = corpus.find((f) => f.name === 'ghostscript')!;
      const long: CorpusFile = { name: 'long', bytes: manyPages(31), readable: true };
      const short: CorpusFile = { name: 'short', bytes: manyPages(30), readable: true };
      const merged = await mergePdfs(
        [
          { title: 'M-1 - Ana', sources: [source('M-1', long), source('M-1', gs)] },
          { title: 'M-2 - Rui', sources: [source('M-2', short)] },
        ],
        'es',
      );
      const bytes = await readAll(merged.body);
      expect(merged.leftOut).toEqual([expect.objectContaining({ resourceId: 'long', reason: 'too-many-pages' })]);
      const pages = seePages(bytes);
      expect(pages).toHaveLength(1 + seen.get('ghostscript')!.length + 30);
      expect(pages[0]!.text).toContain('tiene demasiadas páginas');
      expect(pages[1]!.text).toBe(seen.get('ghostscript')![0]!.text);
      expect(outline(await PDFDocument.load(bytes))).toEqual([
        { title: 'M-1 - Ana', page: 1 },
        { title: 'M-2 - Rui', page: 2 + seen.get('ghostscript')!.length },
      ]);
      expect(qpdfCheck(bytes).code).toBe(0);
    } finally {
      MERGE_LIMITS.maxSourcePages = saved;
    }
  }, 60_000);

  it('leaves out a source of 100,000 pages, which qpdf may not read within its memory, and keeps the rest', async () => {
    const hemograma = corpus.find((f) => f.name === 'chromium-hemograma')!;
    const gs = corpus.find((f) => f.name === 'ghostscript')!;
    const hostile: CorpusFile = { name: 'hostile', bytes: manyPages(100_000), readable: true };
    // qpdf's resident memory, sampled: read whole, this file takes it past 500 MiB.
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, qpdfResidentBytes())), 5);
    // Counting the file's pages is what tells "too many pages" from a time-out: on a loaded
    // machine it gets the time the test has, not a server's 20 s.
    const savedCheck = MERGE_LIMITS.checkTimeoutMs;
    MERGE_LIMITS.checkTimeoutMs = 120_000;
    const merged = await mergePdfs(
      [{ title: 'H-1 - Ana', sources: [source('H-1', hemograma), source('H-1', hostile), source('H-1', gs)] }],
      'pt-br',
    ).finally(() => {
      clearInterval(sampler);
      MERGE_LIMITS.checkTimeoutMs = savedCheck;
    });
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(MERGE_LIMITS.qpdfMemoryBytes);
    const bytes = await readAll(merged.body);
    expect(merged.leftOut).toEqual([expect.objectContaining({ resourceId: 'hostile', reason: 'too-many-pages' })]);
    const pages = seePages(bytes);
    const before = seen.get('chromium-hemograma')!;
    expect(pages).toHaveLength(before.length + 1 + seen.get('ghostscript')!.length);
    expect(pages[0]!.text).toBe(before[0]!.text);
    expect(pages[before.length]!.text).toContain('tem páginas demais');
    expect(qpdfCheck(bytes).code).toBe(0);
  }, 180_000);

  it('runs at most two qpdf processes however many merges are open, and every merge completes', async () => {
    const children = () => {
      try {
        return fs
          .readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8')
          .trim()
          .split(/\s+/)
          .filter((pid) => pid && fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'qpdf').length;
      } catch {
        return 0;
      }
    };
    let most = 0;
    const sampler = setInterval(() => (most = Math.max(most, children())), 2);
    const files = corpus.filter((f) => f.readable);
    try {
      const merges = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          mergePdfs([{ title: `C-${i}`, sources: files.map((f) => source(`C-${i}`, f)) }], 'pt-br').then(async (m) =>
            PDFDocument.load(await readAll(m.body)),
          ),
        ),
      );
      const pages = files.reduce((n, f) => n + seen.get(f.name)!.length, 0);
      for (const doc of merges) expect(doc.getPageCount()).toBe(pages);
    } finally {
      clearInterval(sampler);
    }
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(2);
  }, 120_000);
});
