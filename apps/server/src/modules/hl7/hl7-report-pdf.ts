import type { PDFFont, PDFPage } from 'pdf-lib';
import { wrap } from '../../lib/pdf-text.js';
import { pdfLib } from '../../lib/pdf-lib.js';

export interface TextReportContent {
  institution: string;
  title: string;
  patientName: string;
  protocolNumber: string;
  performedAt?: string;
  /** Analytes as table rows: name, value with unit, reference, flag. */
  analytes: Array<{ name: string; value: string; reference: string; flag: string }>;
  /** Report text and comments, one paragraph a line ('' leaves a blank line). */
  lines: string[];
  /** The document's creation date. */
  receivedAt: Date;
}

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 56;

/** The standard fonts write WinAnsi (Latin-1 and a few more): other characters become '?'. */
function winAnsi(text: string): string {
  return text.replace(/[^\u0020-\u007e\u00a0-\u00ff\u2013\u2014\u2018\u2019\u201c\u201d\u2022\u20ac]/g, '?');
}

function brDateTime(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(new Date(iso).getTime() - 3 * 3600_000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCDate())}/${p(d.getUTCMonth() + 1)}/${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}`;
}

/**
 * The report of an exam whose HL7 result came as text and values without a PDF of its own:
 * the patient reads it like any other report (docs/decisions.md).
 */
export async function textReportPdf(content: TextReportContent): Promise<Buffer> {
  const { PDFDocument, rgb, StandardFonts } = await pdfLib();
  const doc = await PDFDocument.create();
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  doc.setTitle(winAnsi(`${content.title} - ${content.patientName}`));
  doc.setAuthor(winAnsi(content.institution));
  doc.setProducer('Portal de Resultados (HL7 v2)');
  doc.setCreationDate(content.receivedAt);
  doc.setModificationDate(content.receivedAt);

  const width = A4[0] - 2 * MARGIN;
  let page!: PDFPage;
  let pageNumber = 0;
  let y = 0;
  const newPage = () => {
    page = doc.addPage(A4);
    pageNumber++;
    page.drawText(winAnsi(content.institution), { x: MARGIN, y: A4[1] - 50, size: 15, font: bold });
    page.drawText(winAnsi(`Protocolo ${content.protocolNumber} - ${content.patientName}`), {
      x: MARGIN,
      y: 30,
      size: 9,
      font: regular,
      color: rgb(0.35, 0.35, 0.35),
    });
    page.drawText(`Página ${pageNumber}`, { x: A4[0] - MARGIN - 50, y: 30, size: 9, font: regular });
    y = A4[1] - 85;
  };
  const write = (text: string, font: PDFFont = regular, size = 11) => {
    if (text.trim() === '') {
      y -= size;
      return;
    }
    for (const line of wrap(winAnsi(text), font, size, width)) {
      if (y < 60) newPage();
      page.drawText(line, { x: MARGIN, y, size, font, color: rgb(0.1, 0.1, 0.12) });
      y -= size + 5;
    }
  };

  newPage();
  write(content.title, bold, 16);
  y -= 4;
  write(`Paciente: ${content.patientName}`, bold);
  write(`Protocolo: ${content.protocolNumber}`);
  if (content.performedAt) write(`Data do exame: ${brDateTime(content.performedAt)}`);
  y -= 10;
  if (content.analytes.length > 0) {
    write('Resultados', bold, 13);
    const columns = [MARGIN, MARGIN + 190, MARGIN + 300, MARGIN + 440];
    const row = (cells: string[], font: PDFFont) => {
      if (y < 60) newPage();
      cells.forEach((cell, i) =>
        page.drawText(winAnsi(cell).slice(0, i === 0 ? 34 : 24), { x: columns[i]!, y, size: 10, font }),
      );
      y -= 16;
    };
    row(['Exame', 'Resultado', 'Referência', 'Indicador'], bold);
    for (const a of content.analytes) row([a.name, a.value, a.reference, a.flag], regular);
    y -= 10;
  }
  if (content.lines.some((l) => l.trim() !== '')) {
    write(content.analytes.length > 0 ? 'Observações' : 'Laudo', bold, 13);
    for (const paragraph of content.lines) for (const line of paragraph.split('\n')) write(line);
  }
  return Buffer.from(await doc.save());
}
