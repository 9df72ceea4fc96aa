import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

/** Files larger than one line of text, for the viewers: a PDF of several pages and a real-sized PNG. */

/** A PDF with one A4 page per text, each line large, with a correct cross-reference table. */
export function pdfOfPages(texts: string[]): Buffer {
  const pageIds = texts.map((_, i) => 4 + i * 2);
  const objects: string[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${texts.length} >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  texts.forEach((text, i) => {
    const stream = `0 0 0.6 rg 40 700 515 60 re f BT /F1 28 Tf 0 0 0 rg 60 600 Td (${text}) Tj ET`;
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents ${5 + i * 2} 0 R /Resources << /Font << /F1 3 0 R >> >> >>`,
      `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    );
  });
  return pdfOfObjects(objects);
}

/** A PDF file of numbered objects (object 1 the catalog), with a correct cross-reference table. */
export function pdfOfObjects(objects: string[]): Buffer {
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/** An RGB PNG of `width` x `height`: a grey gradient with a dark cross, so zoom and fit show in a screenshot. */
export function pngOfSize(width: number, height: number): Buffer {
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3);
    for (let x = 0; x < width; x++) {
      const cross = Math.abs(x - width / 2) < width / 60 || Math.abs(y - height / 2) < height / 60;
      const grey = cross ? 20 : Math.round(90 + (150 * (x + y)) / (width + height));
      row.fill(grey, 1 + x * 3, 4 + x * 3);
    }
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per sample
  header[9] = 2; // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** One page of a PDF as poppler draws it: colour pixels at 72 dpi, so one pixel is one point. */
export interface DrawnPage {
  width: number;
  height: number;
  /** The colour of the pixel at (x, y), from the top-left corner. */
  at(x: number, y: number): [number, number, number];
}

/** Draws `page` (from 1) of the PDF file with pdftoppm and reads the picture back. */
export function drawPdfPage(file: string, page = 1): DrawnPage {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'drawn-'));
  try {
    const base = path.join(dir, 'page');
    execFileSync('pdftoppm', ['-r', '72', '-f', String(page), '-l', String(page), '-singlefile', file, base]);
    const bytes = fs.readFileSync(`${base}.ppm`);
    // P6 <width> <height> <maxval>\n<rgb bytes>
    const header = /^P6\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(bytes.subarray(0, 64).toString('latin1'));
    if (!header) throw new Error('pdftoppm did not write a binary PPM');
    const width = Number(header[1]);
    const height = Number(header[2]);
    const pixels = bytes.subarray(header[0].length);
    return {
      width,
      height,
      at: (x, y) => {
        const i = (y * width + x) * 3;
        return [pixels[i]!, pixels[i + 1]!, pixels[i + 2]!];
      },
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
