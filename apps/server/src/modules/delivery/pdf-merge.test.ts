import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, PDFName, PDFString } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { PdfMerger } from './pdf-merge.js';
import { pdfBytes } from './test-factories.js';

/** Writes a PDF by hand from numbered object bodies, computing the cross-reference table. */
function handmadePdf(objects: Record<number, string>, rootId: number, extra = ''): Buffer {
  let out = '%PDF-1.4\n';
  const offsets: Record<number, number> = {};
  const ids = Object.keys(objects).map(Number);
  for (const id of ids) {
    offsets[id] = Buffer.byteLength(out, 'latin1');
    out += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const size = Math.max(...ids) + 1;
  const xrefAt = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${size}\n0000000000 65535 f \n`;
  for (let id = 1; id < size; id++) {
    out += offsets[id] === undefined ? '0000000000 65535 f \n' : `${String(offsets[id]).padStart(10, '0')} 00000 n \n`;
  }
  out += `trailer\n<< /Size ${size} /Root ${rootId} 0 R ${extra}>>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** Appends an incremental update that replaces some objects. */
function update(base: Buffer, objects: Record<number, string>, rootId: number): Buffer {
  const prev = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(base.toString('latin1'))![1]);
  let out = base.toString('latin1');
  const offsets: Record<number, number> = {};
  for (const [id, body] of Object.entries(objects)) {
    offsets[Number(id)] = Buffer.byteLength(out, 'latin1');
    out += `${id} 0 obj\n${body}\nendobj\n`;
  }
  const xrefAt = Buffer.byteLength(out, 'latin1');
  out += 'xref\n';
  for (const [id, off] of Object.entries(offsets)) out += `${id} 1\n${String(off).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size 20 /Root ${rootId} 0 R /Prev ${prev} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

async function merge(...docs: Array<{ bytes: Buffer; title?: string }>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  const merger = new PdfMerger(async (c) => void chunks.push(c));
  await merger.begin();
  for (const d of docs) {
    if (d.title) merger.bookmark(d.title);
    await merger.addDocument(d.bytes);
  }
  await merger.finish();
  return Buffer.concat(chunks);
}

function qpdfCheck(bytes: Buffer): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'merge-'));
  try {
    fs.writeFileSync(path.join(dir, 'x.pdf'), bytes);
    return execFileSync('qpdf', ['--check', path.join(dir, 'x.pdf')]).toString();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const content = (text: string) => {
  const ops = `BT /F1 12 Tf 50 700 Td (${text}) Tj ET`;
  return `<< /Length ${ops.length} >>\nstream\n${ops}\nendstream`;
};

describe('PDF merger', () => {
  it('keeps attributes inherited from the page tree, strings that look like references, and updates', async () => {
    const base = handmadePdf(
      {
        1: '<< /Type /Catalog /Pages 2 0 R >>',
        2: '<< /Type /Pages /Kids [3 0 R] /Count 2 /MediaBox [0 0 200 300] /Resources << /Font << /F1 6 0 R >> >> >>',
        3: '<< /Type /Pages /Parent 2 0 R /Kids [4 0 R 5 0 R] /Count 2 /Rotate 90 >>',
        4: '<< /Type /Page /Parent 3 0 R /Contents 7 0 R /Note (see 1 0 R \\) and 2 0 R) >>',
        5: '<< /Type /Page /Parent 3 0 R /Contents 8 0 R /MediaBox [0 0 400 500] >>',
        6: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
        7: content('first'),
        8: content('second'),
        9: '<< /Title (Old) >>',
      },
      1,
      '/Info 9 0 R ',
    );
    // The update replaces the second page's content: the merged file must carry the new one.
    const updated = update(base, { 8: content('second, corrected') }, 1);
    const merged = await merge(
      { bytes: updated, title: 'Protocolo 1' },
      { bytes: await pdfBytes('x', 2), title: 'Dois' },
    );
    expect(qpdfCheck(merged)).toContain('No syntax or stream encoding errors found');
    const doc = await PDFDocument.load(merged);
    const pages = doc.getPages();
    expect(pages.map((p) => [p.getWidth(), p.getHeight(), p.getRotation().angle])).toEqual([
      [200, 300, 90],
      [400, 500, 90],
      [595, 842, 0],
      [595, 842, 0],
    ]);
    expect(pages[0]!.node.lookup(PDFName.of('Note'), PDFString).asString()).toBe('see 1 0 R \\) and 2 0 R');
    expect(merged.toString('latin1')).toContain('(second, corrected)');
    expect(merged.toString('latin1')).not.toContain('(second) Tj');
  });

  it('re-saves sources with object streams and still bookmarks each document', async () => {
    const merged = await merge(
      { bytes: await pdfBytes('a', 1, { objectStreams: true }), title: 'Ação 1' },
      { bytes: await pdfBytes('b', 3), title: 'B' },
    );
    expect(qpdfCheck(merged)).toContain('No syntax or stream encoding errors found');
    expect((await PDFDocument.load(merged)).getPageCount()).toBe(4);
    const text = merged.toString('latin1');
    // UTF-16BE titles: "Ação 1" keeps its accents.
    expect(text).toContain('<FEFF004100E700E3006F00200031>');
    expect(text).toMatch(/\/Type \/Outlines \/First \d+ 0 R \/Last \d+ 0 R \/Count 2/);
  });

  it('leaves out a document nobody can read and keeps the others', async () => {
    const chunks: Uint8Array[] = [];
    const merger = new PdfMerger(async (c) => void chunks.push(c));
    await merger.begin();
    expect(await merger.addDocument(Buffer.from('%PDF-1.4 this is not a pdf'))).toBe(false);
    expect(await merger.addDocument(await pdfBytes('ok', 2))).toBe(true);
    await merger.finish();
    expect((await PDFDocument.load(Buffer.concat(chunks))).getPageCount()).toBe(2);
  });

  it('keeps nothing of a fast copy that gave up halfway: the page is in the file once', async () => {
    const good = handmadePdf(
      {
        1: '<< /Type /Catalog /Pages 2 0 R >>',
        2: '<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 200 300] >>',
        3: '<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
        4: content('only once'),
        5: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
        6: '<< /Producer (last object) >>',
      },
      1,
      '/Info 6 0 R ',
    );
    // The table sends the last object three bytes off: the fast copy finds out after copying the
    // page's content, and the document is read again by the fallback.
    const text = good.toString('latin1');
    const real = text.indexOf('6 0 obj');
    const damaged = Buffer.from(
      text.replace(`${String(real).padStart(10, '0')} 00000 n`, `${String(real + 3).padStart(10, '0')} 00000 n`),
      'latin1',
    );
    const merged = await merge({ bytes: damaged, title: 'Um' }, { bytes: await pdfBytes('dois', 1), title: 'Dois' });
    expect(qpdfCheck(merged)).toContain('No syntax or stream encoding errors found');
    expect((await PDFDocument.load(merged)).getPageCount()).toBe(2);
    expect(merged.toString('latin1').split('(only once) Tj')).toHaveLength(2);
  });

  it('writes a valid empty document when there is nothing to merge', async () => {
    const merged = await merge();
    expect(qpdfCheck(merged)).toContain('No syntax or stream encoding errors found');
  });
});
