import { HISTORY_PDF } from '@portal/shared/limits';
import type { jsPDF as JsPdf } from 'jspdf';
import { truncateCell } from './history-format';

/** One point of the chart: its instant (ms), value, and whether it lies outside the reference. */
export interface PdfPoint {
  time: number;
  value: number;
  outside: boolean;
}

/** A cell of the printed table; `mark` (e.g. "acima") is printed after the value, bold and red. */
export interface PdfCell {
  text: string;
  mark?: string;
}

export interface HistoryPdfInput {
  title: string;
  /** Heading lines: patient, birth date, institution, period, exam. */
  heading: Array<{ label: string; value: string }>;
  chart: {
    points: PdfPoint[];
    referenceMin: number | null;
    referenceMax: number | null;
    labels: { series: string; outside: string; reference: string };
    formatNumber: (value: number) => string;
    formatDate: (time: number) => string;
  } | null;
  columns: string[];
  rows: PdfCell[][];
  footer: string;
}

const BLUE: [number, number, number] = [24, 100, 171];
const RED: [number, number, number] = [176, 42, 55];
const BAND: [number, number, number] = [226, 244, 230];
const GREY: [number, number, number] = [110, 110, 110];
const INK: [number, number, number] = [20, 20, 20];

/** Round tick steps (1, 2, 5 × 10^n) so the value axis reads 12, 14, 16 rather than 12.37. */
function ticks(min: number, max: number, count = 5): number[] {
  const span = max - min || Math.abs(max) || 1;
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let v = Math.floor(min / step) * step; v <= max + step / 2; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

/**
 * The chart drawn with the PDF's own lines and text (a few KB, sharp at any zoom, its numbers
 * readable by a screen reader or a search): the time axis is proportional to time, the reference
 * range a green band, values outside it red.
 */
function drawChart(doc: JsPdf, chart: NonNullable<HistoryPdfInput['chart']>, x: number, y: number): number {
  const width = HISTORY_PDF.imageWidth;
  const height = 190;
  const axisLeft = x + 46;
  const plotWidth = width - 46 - 16;
  const plotTop = y + 8;
  const plotHeight = height - 40;
  const values = chart.points.map((p) => p.value);
  const bounds = [...values, chart.referenceMin, chart.referenceMax].filter((v): v is number => v !== null);
  const low = Math.min(...bounds);
  const high = Math.max(...bounds);
  const yTicks = ticks(low - (high - low) * 0.1, high + (high - low) * 0.1);
  const yMin = yTicks[0] ?? low;
  const yMax = yTicks[yTicks.length - 1] ?? high;
  const yOf = (v: number) => plotTop + plotHeight - ((v - yMin) / (yMax - yMin || 1)) * plotHeight;
  const times = chart.points.map((p) => p.time);
  const tMin = Math.min(...times);
  const tMax = Math.max(...times);
  const pad = 14;
  const xOf = (t: number) =>
    tMax === tMin ? axisLeft + plotWidth / 2 : axisLeft + pad + ((t - tMin) / (tMax - tMin)) * (plotWidth - 2 * pad);

  if (chart.referenceMin !== null && chart.referenceMax !== null) {
    doc.setFillColor(...BAND);
    const top = yOf(chart.referenceMax);
    doc.rect(axisLeft, top, plotWidth, yOf(chart.referenceMin) - top, 'F');
  }
  doc.setFontSize(8);
  doc.setFont('helvetica', 'normal');
  doc.setDrawColor(220, 220, 220);
  doc.setLineWidth(0.5);
  doc.setTextColor(...GREY);
  for (const v of yTicks) {
    doc.line(axisLeft, yOf(v), axisLeft + plotWidth, yOf(v));
    doc.text(chart.formatNumber(v), axisLeft - 4, yOf(v) + 3, { align: 'right' });
  }
  doc.setDrawColor(...GREY);
  doc.line(axisLeft, plotTop + plotHeight, axisLeft + plotWidth, plotTop + plotHeight);
  // Date labels at their instants; one that would overlap the previous is left out.
  let lastRight = -Infinity;
  for (const t of times) {
    const label = chart.formatDate(t);
    const w = doc.getTextWidth(label);
    const cx = xOf(t);
    doc.line(cx, plotTop + plotHeight, cx, plotTop + plotHeight + 3);
    if (cx - w / 2 < lastRight + 4) continue;
    doc.text(label, cx, plotTop + plotHeight + 12, { align: 'center' });
    lastRight = cx + w / 2;
  }
  doc.setDrawColor(...BLUE);
  doc.setLineWidth(1.5);
  chart.points.forEach((p, i) => {
    const next = chart.points[i + 1];
    if (next) doc.line(xOf(p.time), yOf(p.value), xOf(next.time), yOf(next.value));
  });
  for (const p of chart.points) {
    doc.setFillColor(...(p.outside ? RED : BLUE));
    doc.circle(xOf(p.time), yOf(p.value), p.outside ? 3.5 : 2.5, 'F');
  }
  // Legend under the axis.
  let lx = axisLeft;
  const ly = plotTop + plotHeight + 28;
  doc.setTextColor(...INK);
  for (const [color, label, square] of [
    [BLUE, chart.labels.series, false],
    [RED, chart.labels.outside, false],
    ...(chart.referenceMin !== null && chart.referenceMax !== null
      ? [[[150, 200, 160] as [number, number, number], chart.labels.reference, true] as const]
      : []),
  ] as const) {
    doc.setFillColor(...color);
    if (square) doc.rect(lx, ly - 6, 8, 8, 'F');
    else doc.circle(lx + 4, ly - 2, 3, 'F');
    doc.text(label, lx + 12, ly);
    lx += 12 + doc.getTextWidth(label) + 18;
  }
  doc.setTextColor(0, 0, 0);
  return height;
}

/**
 * Spec 9: the history as an A4 PDF with margins 35, 35, 10, 10 (top, left, bottom, right, in
 * points) and the chart 500 points wide, followed by the table. The page is landscape so a row
 * holds as many dates as a screen would; more dates than fit continue in further blocks below,
 * each repeating the result's name, so no date column is cut off the page.
 */
export async function historyPdf(input: HistoryPdfInput): Promise<Blob> {
  const { jsPDF } = await import('jspdf');
  const [top, left, bottom, right] = HISTORY_PDF.margins;
  const doc = new jsPDF({ unit: 'pt', format: HISTORY_PDF.format, orientation: 'landscape', compress: true });
  const pageWidth = doc.internal.pageSize.getWidth();
  const pageHeight = doc.internal.pageSize.getHeight();
  const usable = pageWidth - left - right;
  let y = top;
  const room = (needed: number) => {
    if (y + needed > pageHeight - bottom - 14) {
      doc.addPage();
      y = top;
    }
  };
  doc.setFont('helvetica', 'bold');
  doc.setFontSize(15);
  doc.text(input.title, left, y + 11);
  y += 26;
  doc.setFontSize(10);
  const indent = Math.max(...input.heading.map((line) => doc.getTextWidth(`${line.label}:`))) + 8;
  for (const line of input.heading) {
    doc.setFont('helvetica', 'bold');
    doc.text(`${line.label}:`, left, y);
    doc.setFont('helvetica', 'normal');
    doc.text(line.value, left + indent, y, { maxWidth: usable - indent });
    y += 14;
  }
  y += 6;
  if (input.chart && input.chart.points.length > 0) {
    y += drawChart(doc, input.chart, left, y) + 12;
  }

  const labelWidth = 200;
  const dateWidth = 84;
  const perBlock = Math.max(1, Math.floor((usable - labelWidth) / dateWidth));
  const dates = input.columns.slice(1);
  const lines: PdfCell[][] = [input.columns.map((text) => ({ text })), ...input.rows];
  doc.setFontSize(9);
  for (let start = 0; start < Math.max(1, dates.length); start += perBlock) {
    const cols = [0, ...dates.slice(start, start + perBlock).map((_, i) => start + i + 1)];
    room(14 * 2 + 8);
    for (const [index, line] of lines.entries()) {
      room(14);
      let x = left;
      if (index === 0) {
        doc.setFillColor(238, 240, 243);
        doc.rect(left, y - 1, labelWidth + (cols.length - 1) * dateWidth, 14, 'F');
      }
      cols.forEach((c, i) => {
        const cell = line[c] ?? { text: '' };
        const w = i === 0 ? labelWidth : dateWidth;
        doc.setFont('helvetica', index === 0 || i === 0 || cell.mark ? 'bold' : 'normal');
        doc.setTextColor(...(cell.mark ? RED : INK));
        const text = truncateCell(cell.text, input.columns.length);
        doc.text(cell.mark ? `${text} (${cell.mark})` : text, x + 3, y + 9.5, { maxWidth: w - 6 });
        x += w;
      });
      doc.setTextColor(...INK);
      doc.setDrawColor(210, 210, 210);
      doc.setLineWidth(0.5);
      doc.line(left, y + 13, x, y + 13);
      y += 14;
    }
    y += 10;
  }
  const pages = doc.getNumberOfPages();
  doc.setFont('helvetica', 'normal');
  doc.setFontSize(8);
  doc.setTextColor(...GREY);
  for (let page = 1; page <= pages; page++) {
    doc.setPage(page);
    doc.text(`${input.footer} · ${page}/${pages}`, pageWidth - right - 4, pageHeight - bottom - 2, { align: 'right' });
  }
  return doc.output('blob');
}
