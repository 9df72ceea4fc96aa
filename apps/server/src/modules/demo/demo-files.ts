import jpeg from 'jpeg-js';
import { PDFDocument, type PDFFont, type PDFPage, rgb, StandardFonts } from 'pdf-lib';
import { PNG } from 'pngjs';
import { wrap } from '../../lib/pdf-text.js';

/** A small deterministic generator: the same demo gives the same bytes on every start. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
}

export interface ReportAnalyte {
  name: string;
  value: string;
  unit?: string | null;
  reference: string;
}

export interface ReportContent {
  institution: string;
  title: string;
  patientName: string;
  birthDate: string;
  protocolNumber: string;
  performedAt: Date;
  requester?: string;
  findings: string[];
  analytes?: ReportAnalyte[];
  conclusion: string[];
  signer: string;
  signerLicense: string;
  /** Marks the copy meant as the signed version of the report. */
  signedNote?: string;
  /** Marks the copy meant for the requesting physician. */
  physicianCopy?: boolean;
}

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 56;
const brDate = (d: Date) =>
  `${String(d.getUTCDate()).padStart(2, '0')}/${String(d.getUTCMonth() + 1).padStart(2, '0')}/${d.getUTCFullYear()}`;

/**
 * A report PDF of two or more A4 pages: the institution's header, the patient and exam data,
 * the findings (or the lab table) on the first page, the conclusion and the signature on the next.
 */
export async function reportPdf(content: ReportContent): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  doc.setTitle(`${content.title} - ${content.patientName}`);
  doc.setAuthor(content.institution);
  doc.setProducer('Portal de Resultados (demonstração)');
  doc.setCreator(content.institution);
  // Fixed dates keep the bytes identical from one start to the next.
  doc.setCreationDate(content.performedAt);
  doc.setModificationDate(content.performedAt);
  if (content.signedNote) doc.setKeywords(['assinado', 'signed']);

  const width = A4[0] - 2 * MARGIN;
  let pageNumber = 0;
  let page!: PDFPage;
  let y = 0;

  const newPage = () => {
    page = doc.addPage(A4);
    pageNumber++;
    page.drawRectangle({ x: 0, y: A4[1] - 70, width: A4[0], height: 70, color: rgb(0.04, 0.36, 0.68) });
    page.drawText(content.institution, { x: MARGIN, y: A4[1] - 44, size: 18, font: bold, color: rgb(1, 1, 1) });
    page.drawText(`Página ${pageNumber}`, { x: A4[0] - MARGIN - 50, y: 30, size: 9, font: regular });
    page.drawText(`Protocolo ${content.protocolNumber} - ${content.patientName}`, {
      x: MARGIN,
      y: 30,
      size: 9,
      font: regular,
      color: rgb(0.35, 0.35, 0.35),
    });
    if (content.signedNote) {
      page.drawText(content.signedNote, { x: MARGIN, y: 44, size: 8, font: regular, color: rgb(0.1, 0.45, 0.2) });
    }
    y = A4[1] - 100;
  };
  const write = (text: string, options: { size?: number; font?: PDFFont; gap?: number } = {}) => {
    const size = options.size ?? 11;
    const font = options.font ?? regular;
    for (const line of wrap(text, font, size, width)) {
      if (y < 80) newPage();
      page.drawText(line, { x: MARGIN, y, size, font, color: rgb(0.1, 0.1, 0.12) });
      y -= size + 5;
    }
    y -= options.gap ?? 6;
  };

  newPage();
  write(content.physicianCopy ? `${content.title} (via do médico)` : content.title, { size: 16, font: bold, gap: 10 });
  write(`Paciente: ${content.patientName}`, { font: bold, gap: 0 });
  write(`Data de nascimento: ${content.birthDate}`, { gap: 0 });
  write(`Protocolo: ${content.protocolNumber}    Data do exame: ${brDate(content.performedAt)}`, { gap: 0 });
  if (content.requester) write(`Médico solicitante: ${content.requester}`, { gap: 0 });
  y -= 14;

  if (content.analytes?.length) {
    write('Resultados', { size: 13, font: bold });
    const columns = [MARGIN, MARGIN + 200, MARGIN + 320];
    const row = (cells: string[], font: PDFFont) => {
      cells.forEach((cell, i) => page.drawText(cell, { x: columns[i]!, y, size: 10.5, font }));
      y -= 18;
    };
    row(['Exame', 'Resultado', 'Valores de referência'], bold);
    for (const a of content.analytes) row([a.name, `${a.value} ${a.unit ?? ''}`.trim(), a.reference], regular);
    y -= 10;
  }
  write(content.analytes?.length ? 'Observações' : 'Relatório', { size: 13, font: bold });
  for (const paragraph of content.findings) write(paragraph);

  // Conclusion and signature always start a page of their own, so every report has two pages.
  newPage();
  write('Impressão diagnóstica', { size: 13, font: bold });
  for (const paragraph of content.conclusion) write(paragraph);
  y -= 60;
  page.drawLine({ start: { x: MARGIN, y }, end: { x: MARGIN + 240, y }, thickness: 0.8 });
  y -= 16;
  write(content.signer, { font: bold, gap: 0 });
  write(content.signerLicense, { gap: 0 });
  write(`Liberado em ${brDate(content.performedAt)}`);
  if (content.signedNote) {
    y -= 10;
    write(
      'Cópia de demonstração marcada como a versão assinada do laudo. Não traz assinatura ICP-Brasil verificável.',
      { size: 9 },
    );
  }
  return doc.save({ useObjectStreams: false });
}

export type ScanKind = 'xray-chest' | 'xray-hand' | 'ultrasound' | 'mri-brain' | 'mri-knee' | 'ct-head' | 'ct-chest';

const clamp = (v: number) => (v < 0 ? 0 : v > 255 ? 255 : v);
const inEllipse = (x: number, y: number, cx: number, cy: number, rx: number, ry: number) =>
  ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2;

/** A synthetic grey-scale scan (no patient's image): shapes and noise that read as the modality. */
export function syntheticScan(kind: ScanKind, size: number, seed: number): Uint8Array {
  const random = seededRandom(seed);
  const pixels = new Uint8Array(size * size);
  const c = size / 2;
  for (let j = 0; j < size; j++) {
    for (let i = 0; i < size; i++) {
      const x = i - c;
      const y = j - c;
      const noise = (random() - 0.5) * 18;
      let v = 10;
      if (kind === 'xray-chest') {
        const body = inEllipse(i, j, c, c * 1.05, c * 0.85, c * 0.95);
        if (body < 1) {
          v = 150 - body * 40;
          const lung = Math.min(
            inEllipse(i, j, c - size * 0.2, c, size * 0.16, size * 0.3),
            inEllipse(i, j, c + size * 0.2, c, size * 0.16, size * 0.3),
          );
          if (lung < 1) v = 60 + lung * 50 + 25 * Math.max(0, Math.sin(j / 11 + Math.abs(x) / 40));
          if (Math.abs(x) < size * 0.035) v = 210;
        }
      } else if (kind === 'xray-hand') {
        const palm = inEllipse(i, j, c, c * 1.3, size * 0.22, size * 0.25);
        const finger = [-0.16, -0.06, 0.04, 0.14].some(
          (f) => Math.abs(x - f * size - (c - j) * f * 0.3) < size * 0.035 && j > size * 0.12 && j < c * 1.2,
        );
        if (palm < 1 || finger) v = 120;
        if (finger && (j / 9) % 6 > 5) v = 90;
        if (palm < 0.6 && Math.abs(Math.sin(x / 14)) > 0.85) v = 200;
      } else if (kind === 'ultrasound') {
        const angle = Math.atan2(x, j + 10);
        const radius = Math.hypot(x, j + 10);
        if (Math.abs(angle) < 0.6 && radius < size * 0.95) {
          v = 70 + random() * 110 - radius * 0.06;
          if (inEllipse(i, j, c + size * 0.05, c * 1.1, size * 0.12, size * 0.08) < 1) v = 15 + random() * 20;
        }
      } else if (kind === 'mri-brain' || kind === 'ct-head') {
        const head = inEllipse(i, j, c, c, c * 0.75, c * 0.88);
        if (head < 1) {
          v = kind === 'ct-head' ? 70 : 110 + 35 * Math.sin(x / 9) * Math.cos(y / 11);
          if (head > 0.85) v = kind === 'ct-head' ? 240 : 60;
          if (inEllipse(i, j, c, c, c * 0.1, c * 0.25) < 1) v = kind === 'ct-head' ? 20 : 200;
        }
      } else if (kind === 'mri-knee') {
        const femur = inEllipse(i, j, c, c * 0.55, size * 0.16, size * 0.3);
        const tibia = inEllipse(i, j, c, c * 1.5, size * 0.14, size * 0.3);
        v = Math.abs(x) < size * 0.3 ? 70 : 10;
        if (femur < 1 || tibia < 1) v = 170;
        if (Math.abs(j - c) < 6 && Math.abs(x) < size * 0.16) v = 40;
      } else {
        const chest = inEllipse(i, j, c, c, c * 0.9, c * 0.65);
        if (chest < 1) {
          v = chest > 0.9 ? 200 : 95;
          const lung = Math.min(
            inEllipse(i, j, c - size * 0.2, c, size * 0.17, size * 0.22),
            inEllipse(i, j, c + size * 0.2, c, size * 0.17, size * 0.22),
          );
          if (lung < 1) v = 25;
          if (Math.hypot(x, y - size * 0.2) < size * 0.05) v = 230;
        }
      }
      pixels[j * size + i] = clamp(v + noise);
    }
  }
  return pixels;
}

function rgba(gray: Uint8Array): Buffer {
  const out = Buffer.alloc(gray.length * 4);
  for (let k = 0; k < gray.length; k++) {
    out[k * 4] = out[k * 4 + 1] = out[k * 4 + 2] = gray[k]!;
    out[k * 4 + 3] = 255;
  }
  return out;
}

export function scanJpeg(kind: ScanKind, seed: number, size = 512): Buffer {
  const data = rgba(syntheticScan(kind, size, seed));
  return Buffer.from(jpeg.encode({ data, width: size, height: size }, 85).data);
}

export function scanPng(kind: ScanKind, seed: number, size = 384): Buffer {
  const png = new PNG({ width: size, height: size });
  png.data = rgba(syntheticScan(kind, size, seed));
  return PNG.sync.write(png, { colorType: 0 });
}

/**
 * The demo clinic's logo as a data URI (contract: a logo path the login page shows); an inline
 * SVG needs no file server and stays within the CSP's `img-src data:`.
 */
export const DEMO_LOGO_DATA_URI =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='260' height='56' viewBox='0 0 260 56'%3E" +
  "%3Crect width='56' height='56' rx='10' fill='%230b5cad'/%3E" +
  "%3Cpath d='M22 10h12v12h12v12H34v12H22V34H10V22h12z' fill='%23fff'/%3E" +
  "%3Ctext x='66' y='35' font-family='Arial,sans-serif' font-size='18' fill='%231f2933'%3E" +
  'Cl%C3%ADnica Demonstra%C3%A7%C3%A3o%3C/text%3E%3C/svg%3E';
