import { HISTORY_PDF } from '@portal/shared/limits';
import { truncateCell } from './history-format';

const STYLE_PROPS = [
  'fill',
  'stroke',
  'stroke-width',
  'stroke-dasharray',
  'opacity',
  'fill-opacity',
  'font-size',
  'font-family',
];

/**
 * The chart as a PNG data URL. The chart's colours come from CSS variables that an SVG drawn on
 * its own cannot resolve, so the computed styles are written into the copy first.
 */
export async function chartImage(svg: SVGSVGElement): Promise<{ dataUrl: string; width: number; height: number }> {
  const box = svg.getBoundingClientRect();
  const width = Math.max(1, Math.round(box.width));
  const height = Math.max(1, Math.round(box.height));
  const copy = svg.cloneNode(true) as SVGSVGElement;
  const originals = [svg, ...Array.from(svg.querySelectorAll('*'))];
  const copies = [copy, ...Array.from(copy.querySelectorAll('*'))];
  originals.forEach((element, i) => {
    const style = getComputedStyle(element);
    const target = copies[i];
    if (!target) return;
    for (const prop of STYLE_PROPS) {
      const value = style.getPropertyValue(prop);
      if (value) target.setAttribute(prop, value);
    }
  });
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  copy.setAttribute('width', String(width));
  copy.setAttribute('height', String(height));
  const source = new XMLSerializer().serializeToString(copy);
  const image = new Image();
  await new Promise<void>((resolve, reject) => {
    image.onload = () => resolve();
    image.onerror = () => reject(new Error('chart image'));
    image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(source)}`;
  });
  const scale = 2;
  const canvas = document.createElement('canvas');
  canvas.width = width * scale;
  canvas.height = height * scale;
  const context = canvas.getContext('2d');
  if (!context) throw new Error('canvas');
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.drawImage(image, 0, 0, canvas.width, canvas.height);
  return { dataUrl: canvas.toDataURL('image/png'), width, height };
}

/**
 * Spec 9: the history as an A4 PDF with margins 35, 35, 10, 10 (top, left, bottom, right, in
 * points) and the chart 500 points wide, followed by the table.
 */
export async function historyPdf(input: {
  title: string;
  subtitle: string;
  chart: { dataUrl: string; width: number; height: number } | null;
  columns: string[];
  rows: string[][];
}): Promise<Blob> {
  const { jsPDF } = await import('jspdf');
  const [top, left, bottom] = HISTORY_PDF.margins;
  const doc = new jsPDF({ unit: 'pt', format: HISTORY_PDF.format, orientation: 'portrait' });
  const pageHeight = doc.internal.pageSize.getHeight();
  let y = top;
  doc.setFontSize(14);
  doc.text(input.title, left, y + 10);
  y += 26;
  doc.setFontSize(10);
  doc.text(input.subtitle, left, y);
  y += 14;
  if (input.chart) {
    const height = (HISTORY_PDF.imageWidth * input.chart.height) / input.chart.width;
    doc.addImage(input.chart.dataUrl, 'PNG', left, y, HISTORY_PDF.imageWidth, height);
    y += height + 16;
  }
  // The table goes in slices of dates so each printed row fits the 500-point width.
  const perSlice = 5;
  const dates = input.columns.slice(1);
  for (let start = 0; start < Math.max(1, dates.length); start += perSlice) {
    const cols = [0, ...dates.slice(start, start + perSlice).map((_, i) => start + i + 1)];
    const widths = cols.map((c) => (c === 0 ? 200 : (HISTORY_PDF.imageWidth - 200) / Math.max(1, cols.length - 1)));
    const lines = [input.columns, ...input.rows];
    for (const [index, line] of lines.entries()) {
      if (y + 14 > pageHeight - bottom) {
        doc.addPage();
        y = top;
      }
      let x = left;
      doc.setFont('helvetica', index === 0 ? 'bold' : 'normal');
      cols.forEach((c, i) => {
        doc.text(truncateCell(line[c] ?? '', input.columns.length), x, y + 10, { maxWidth: (widths[i] ?? 60) - 4 });
        x += widths[i] ?? 60;
      });
      y += 14;
    }
    y += 8;
  }
  return doc.output('blob');
}
