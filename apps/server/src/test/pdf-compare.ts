import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** What a reader sees on each page of a PDF: poppler's text and a grey rendering. */
export interface SeenPage {
  text: string;
  width: number;
  height: number;
  pixels: Buffer;
}

function parsePgm(bytes: Buffer): { width: number; height: number; pixels: Buffer } {
  // P5 <width> <height> <maxval>\n<bytes>
  const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(bytes.subarray(0, 64).toString('latin1'));
  if (!header) throw new Error('not a binary PGM');
  const width = Number(header[1]);
  const height = Number(header[2]);
  return { width, height, pixels: bytes.subarray(header[0].length, header[0].length + width * height) };
}

/** Text (pdftotext, per page) and rendering (pdftoppm, 40 dpi, grey) of every page. */
export function seePages(pdf: Buffer, options: { password?: string } = {}): SeenPage[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'seen-'));
  try {
    const file = path.join(dir, 'in.pdf');
    fs.writeFileSync(file, pdf);
    const pw = options.password ? ['-upw', options.password] : [];
    const text = execFileSync('pdftotext', [...pw, '-layout', file, '-'], { maxBuffer: 64 << 20 }).toString('utf8');
    // pdftotext ends every page with a form feed.
    const texts = text.split('\f').slice(0, -1);
    execFileSync('pdftoppm', [...pw, '-r', '40', '-gray', file, path.join(dir, 'p')]);
    const images = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.pgm'))
      .sort((a, b) => Number(/(\d+)\.pgm$/.exec(a)![1]) - Number(/(\d+)\.pgm$/.exec(b)![1]));
    if (images.length !== texts.length) throw new Error(`${images.length} renderings for ${texts.length} pages`);
    return images.map((f, i) => ({ text: texts[i]!, ...parsePgm(fs.readFileSync(path.join(dir, f))) }));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The share of pixels whose grey differs by more than a sixteenth (1 when the sizes differ). */
export function pixelDifference(a: SeenPage, b: SeenPage): number {
  if (a.width !== b.width || a.height !== b.height) return 1;
  let differ = 0;
  for (let i = 0; i < a.pixels.length; i++) if (Math.abs(a.pixels[i]! - b.pixels[i]!) > 16) differ++;
  return differ / a.pixels.length;
}
