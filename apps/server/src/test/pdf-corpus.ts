import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRef, PDFString, StandardFonts, rgb } from 'pdf-lib';
import { chromium } from 'playwright-core';

/**
 * Report PDFs made on this machine by the tools real report systems use, at test time: Chromium's
 * `page.pdf()`, Ghostscript's `ps2pdf`, pdf-lib (object streams, a filled form, a hidden layer),
 * qpdf (linearized, cross-reference stream, encrypted), an incremental update, an ImageMagick
 * scan, and broken ones. Each readable file says in `text` a phrase its pages carry.
 */
export interface CorpusFile {
  name: string;
  bytes: Buffer;
  /** false: no engine can include it (password, truncated past repair, not a PDF). */
  readable: boolean;
}

const run = (cmd: string, args: string[], input?: Buffer) =>
  execFileSync(cmd, args, { input, maxBuffer: 64 << 20, stdio: ['pipe', 'pipe', 'pipe'] });

/** Exit 3 is qpdf's "done, with warnings". */
function qpdf(args: string[]): void {
  try {
    run('qpdf', args);
  } catch (error) {
    if ((error as { status?: number }).status !== 3) throw error;
  }
}

const REPORT_CSS = `
  body { margin: 0; color: #111; }
  h1 { font-family: 'DejaVu Serif'; font-size: 20pt; }
  .sans { font-family: 'Liberation Sans'; }
  .mono { font-family: 'DejaVu Sans Mono'; font-size: 10pt; }
  table { border-collapse: collapse; width: 100%; font-family: 'DejaVu Sans'; font-size: 11pt; }
  td, th { border: 1px solid #888; padding: 4px 6px; text-align: left; }
  .page { page-break-after: always; }
`;

function reportHtml(title: string, patient: string, pages: number): string {
  const rows = [
    ['Hemoglobina', '13,8 g/dL', '12,0 a 16,0'],
    ['Glicose em jejum', '92 mg/dL', '70 a 99'],
    ['Cortisol sérico', '14,2 µg/dL', '6,2 a 19,4'],
    ['Volume prostático', '24 cm³ (± 2)', 'até 30 cm³'],
    ['Nódulo hepático', '8 × 6 mm; 0,2 mm³', '—'],
    ['Temperatura axilar', '36,7 °C', '35,5 a 37,5 °C'],
  ];
  const table = `<table><tr><th>Exame</th><th>Resultado</th><th>Referência</th></tr>${rows
    .map((r) => `<tr><td>${r[0]}</td><td><b>${r[1]}</b></td><td>${r[2]}</td></tr>`)
    .join('')}</table>`;
  return `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><style>${REPORT_CSS}</style></head><body>${Array.from(
    { length: pages },
    (_, i) => `<div class="page"><h1>${title} — página ${i + 1}</h1>
      <p class="sans">Paciente: <b>${patient}</b> · São Paulo · Ação: coleta às 07h30</p>
      ${table}
      <p class="mono">Método: espectrofotometria; coeficiente de variação ≤ 3 %</p>
      <p class="sans"><b><i>Médico responsável técnico:</i></b> Dra. Conceição Araújo — CRM 12345/SP</p></div>`,
  ).join('')}</body></html>`;
}

async function chromiumReports(): Promise<CorpusFile[]> {
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!fs.existsSync(executablePath)) {
    throw new Error(`Chromium was not found at ${executablePath}: apt-get install chromium, or set CHROMIUM_PATH.`);
  }
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage();
    const out: CorpusFile[] = [];
    for (const [name, title, patient, pages] of [
      ['chromium-hemograma', 'Hemograma completo', 'João Conceição', 2],
      ['chromium-ultrassom', 'Ultrassonografia de próstata', 'José Antônio Gonçalves', 1],
    ] as const) {
      await page.setContent(reportHtml(title, patient, pages));
      const bytes = Buffer.from(await page.pdf({ format: 'A4', printBackground: true }));
      out.push({ name, bytes, readable: true });
    }
    return out;
  } finally {
    await browser.close();
  }
}

function ghostscriptReport(dir: string): Buffer {
  const ps = path.join(dir, 'gs.ps');
  // Latin-1 text through a re-encoded standard font, as PostScript report writers print it.
  const text = (s: string) =>
    `(${[...Buffer.from(s, 'latin1')].map((b) => (b > 126 ? `\\${b.toString(8)}` : String.fromCharCode(b))).join('')})`;
  fs.writeFileSync(
    ps,
    `%!PS
/Helvetica findfont dup length dict begin { 1 index /FID ne { def } { pop pop } ifelse } forall
/Encoding ISOLatin1Encoding def currentdict end /Helv-Latin1 exch definefont pop
/Helv-Latin1 findfont 16 scalefont setfont
72 760 moveto ${text('Laudo de eletrocardiograma - Ghostscript')} show
/Helv-Latin1 findfont 12 scalefont setfont
72 730 moveto ${text('Ritmo sinusal, frequência 72 bpm, eixo elétrico normal.')} show
72 712 moveto ${text('Temperatura 36,5 °C; potássio 4,1 mEq/L ± 0,2.')} show
0.2 setgray 72 600 moveto 200 0 rlineto 0 80 rlineto -200 0 rlineto closepath fill
showpage
/Helv-Latin1 findfont 14 scalefont setfont
72 760 moveto ${text('Conclusão: exame dentro da normalidade.')} show
showpage
`,
    'latin1',
  );
  const pdf = path.join(dir, 'gs.pdf');
  run('ps2pdf', [ps, pdf]);
  return fs.readFileSync(pdf);
}

async function pdfLibReport(options: { objectStreams: boolean }): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.TimesRomanBold);
  for (let i = 0; i < 2; i++) {
    const page = doc.addPage([595, 842]);
    page.drawText(`Laudo de ressonância magnética — página ${i + 1}`, { x: 50, y: 780, size: 16, font: bold });
    page.drawText('Lesão de 4 mm³ no lobo temporal; glicemia 98 mg/dL ± 3; 37 °C; 5 µg/dL.', {
      x: 50,
      y: 750,
      size: 11,
      font,
    });
    page.drawRectangle({ x: 50, y: 600, width: 200, height: 100, color: rgb(0.2, 0.4, 0.8) });
  }
  return Buffer.from(await doc.save({ useObjectStreams: options.objectStreams }));
}

/** A filled form field (with its appearance) and a layer the document hides by default. */
async function formAndLayer(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([595, 842]);
  page.drawText('Formulário de solicitação de exame', { x: 50, y: 780, size: 16, font });
  const field = doc.getForm().createTextField('paciente');
  field.setText('Maria das Graças');
  field.addToPage(page, { x: 50, y: 700, width: 300, height: 24, font });
  // A hidden layer: an optional content group the catalog turns off, over text that must not show.
  const ctx = doc.context;
  const ocg = ctx.register(ctx.obj({ Type: 'OCG', Name: PDFString.of('Rascunho') }));
  doc.catalog.set(PDFName.of('OCProperties'), ctx.obj({ OCGs: [ocg], D: { Order: [ocg], OFF: [ocg] } }));
  const resources = page.node.Resources()!;
  resources.set(PDFName.of('Properties'), ctx.obj({ Draft: ocg }));
  const fontKey = (resources.lookup(PDFName.of('Font'), PDFDict).keys()[0] as PDFName).asString();
  const hidden = ctx.flateStream(
    `/OC /Draft BDC BT ${fontKey} 28 Tf 50 500 Td (RASCUNHO OCULTO) Tj ET 0 0 1 rg 50 400 300 60 re f EMC`,
  );
  const contents = page.node.lookup(PDFName.of('Contents'));
  const list = contents instanceof PDFArray ? contents : ctx.obj([page.node.get(PDFName.of('Contents'))!]);
  list.push(ctx.register(hidden));
  page.node.set(PDFName.of('Contents'), list);
  return Buffer.from(await doc.save({ useObjectStreams: false, updateFieldAppearances: false }));
}

/** Appends a revision that adds a line of text to page 1, as a signing or stamping tool does. */
async function incrementalUpdate(base: Buffer): Promise<Buffer> {
  const doc = await PDFDocument.load(base);
  const page = doc.getPages()[0]!;
  const resources = page.node.Resources()!;
  const fontKey = (resources.lookup(PDFName.of('Font'), PDFDict).keys()[0] as PDFName).asString();
  const content = `BT ${fontKey} 12 Tf 50 560 Td (Adendo: revisado em 20/11/2026) Tj ET`;
  const next = doc.context.largestObjectNumber + 1;
  const contents = page.node.get(PDFName.of('Contents'))!;
  const list = contents instanceof PDFArray ? contents : doc.context.obj([contents]);
  list.push(PDFRef.of(next));
  page.node.set(PDFName.of('Contents'), list);
  const startxref = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(base.toString('latin1'))![1]);
  const trailer = /trailer\s*(<<[\s\S]*?>>)\s*startxref/.exec(base.toString('latin1'))![1]!;
  const root = /\/Root (\d+ \d+ R)/.exec(trailer)![1];
  const pageRef = page.ref;
  let body = '\n';
  const offsets: Array<[number, number, number]> = [];
  const at = () => base.length + Buffer.byteLength(body, 'latin1');
  offsets.push([next, at(), 0]);
  body += `${next} 0 obj\n<< /Length ${content.length} >>\nstream\n${content}\nendstream\nendobj\n`;
  offsets.push([pageRef.objectNumber, at(), pageRef.generationNumber]);
  body += `${pageRef.objectNumber} ${pageRef.generationNumber} obj\n${page.node.toString()}\nendobj\n`;
  const xrefAt = at();
  body += 'xref\n';
  for (const [num, off, gen] of offsets.sort((a, b) => a[0] - b[0])) {
    body += `${num} 1\n${String(off).padStart(10, '0')} ${String(gen).padStart(5, '0')} n\r\n`;
  }
  body += `trailer\n<< /Size ${next + 1} /Root ${root} /Prev ${startxref} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.concat([base, Buffer.from(body, 'latin1')]);
}

async function imageScan(dir: string): Promise<Buffer> {
  const jpg = path.join(dir, 'scan.jpg');
  // A grey page with noise and dark blocks, as a scanner at 100 dpi gives it.
  run('/usr/bin/convert', [
    '-size',
    '827x1169',
    'xc:gray92',
    '+noise',
    'Gaussian',
    '-fill',
    'black',
    '-draw',
    'rectangle 80,80 700,140',
    '-draw',
    'rectangle 80,200 500,230',
    '-draw',
    'circle 400,700 400,800',
    '-quality',
    '70',
    jpg,
  ]);
  const doc = await PDFDocument.create();
  const image = await doc.embedJpg(fs.readFileSync(jpg));
  const page = doc.addPage([595, 842]);
  page.drawImage(image, { x: 0, y: 0, width: 595, height: 842 });
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

let cached: Promise<CorpusFile[]> | null = null;

/** The corpus, made once per test process. */
export function pdfCorpus(): Promise<CorpusFile[]> {
  cached ??= makeCorpus();
  return cached;
}

async function makeCorpus(): Promise<CorpusFile[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdf-corpus-'));
  try {
    const [hemograma, ultrassom] = await chromiumReports();
    const file = (name: string, bytes: Buffer) => {
      fs.writeFileSync(path.join(dir, name), bytes);
      return path.join(dir, name);
    };
    const via = (name: string, source: string, args: string[]) => {
      const out = path.join(dir, name);
      qpdf([...args, source, out]);
      return fs.readFileSync(out);
    };
    const ultrassomPath = file('ultrassom.pdf', ultrassom!.bytes);
    const gs = ghostscriptReport(dir);
    const gsPath = file('gs.pdf', gs);
    const classic = await pdfLibReport({ objectStreams: false });
    const files: CorpusFile[] = [
      hemograma!,
      ultrassom!,
      { name: 'ghostscript', bytes: gs, readable: true },
      { name: 'pdf-lib-object-streams', bytes: await pdfLibReport({ objectStreams: true }), readable: true },
      { name: 'linearized', bytes: via('lin.pdf', ultrassomPath, ['--linearize']), readable: true },
      {
        name: 'xref-stream',
        bytes: via('xs.pdf', gsPath, ['--object-streams=generate']),
        readable: true,
      },
      { name: 'incremental-update', bytes: await incrementalUpdate(classic), readable: true },
      { name: 'image-scan', bytes: await imageScan(dir), readable: true },
      { name: 'form-and-hidden-layer', bytes: await formAndLayer(), readable: true },
      {
        name: 'encrypted-empty-password',
        bytes: via('enc0.pdf', ultrassomPath, ['--encrypt', '', 'dono', '256', '--']),
        readable: true,
      },
      {
        name: 'encrypted-rc4-empty-password',
        bytes: via('enc1.pdf', gsPath, ['--allow-weak-crypto', '--encrypt', '', 'dono', '128', '--use-aes=n', '--']),
        readable: true,
      },
      {
        name: 'encrypted-user-password',
        bytes: via('enc2.pdf', gsPath, ['--encrypt', 'segredo', 'dono', '256', '--']),
        readable: false,
      },
      // Cut inside its first page's content: no page tree, no cross-reference table.
      {
        name: 'truncated',
        bytes: hemograma!.bytes.subarray(0, Math.floor(hemograma!.bytes.length * 0.3)),
        readable: false,
      },
      { name: 'not-a-pdf', bytes: Buffer.from('<html><body>Erro 500</body></html>\n'), readable: false },
    ];
    return files;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
