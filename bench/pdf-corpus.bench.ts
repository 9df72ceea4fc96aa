/**
 * The portal's merge (`mergePdfs`: qpdf processes, notices, bookmarks) against the qpdf program
 * alone (`qpdf --empty --pages`) on the report corpus the tests use (Chromium, Ghostscript,
 * pdf-lib, ImageMagick, linearized, incremental, cross-reference stream, encrypted), each copy a
 * file of its own: time (median, in turns) and peak memory. Figures only.
 *
 *   node --import tsx bench/pdf-corpus.bench.ts        (BENCH_CORPUS_COPIES, default 10)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { execFileSync } from 'node:child_process';
import { mergePdfs } from '../apps/server/src/modules/delivery/pdf-merge.js';
import { type CorpusFile, pdfCorpus } from '../apps/server/src/test/pdf-corpus.js';
import { peakOfChildren, peakOfProgram } from './process-memory.js';

const COPIES = Number(process.env.BENCH_CORPUS_COPIES ?? 10);
const RUNS = Number(process.env.BENCH_PRINT_RUNS ?? 7);
const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;

async function measure(label: string, corpus: CorpusFile[]) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'corpus-bench-'));
  try {
    const files: string[] = [];
    for (let c = 0; c < COPIES; c++) {
      for (const f of corpus) {
        const file = path.join(work, `${c}-${f.name}.pdf`);
        fs.writeFileSync(file, f.bytes);
        files.push(file);
      }
    }
    const bytes = files.reduce((n, f) => n + fs.statSync(f).size, 0);
    // A protocol per copy of the corpus, as a batch print has them.
    const groups = Array.from({ length: COPIES }, (_, c) => ({
      title: `P-${c} - João Conceição`,
      sources: corpus.map((f, i) => ({
        protocolNumber: `P-${c}`,
        report: f.name,
        resourceId: `${c}-${i}`,
        size: f.bytes.length,
        open: async () => fs.promises.readFile(path.join(work, `${c}-${f.name}.pdf`)),
      })),
    }));
    const portal = async () => {
      const merged = await mergePdfs(groups, 'pt-br');
      await pipeline(merged.body, fs.createWriteStream(path.join(work, 'portal.pdf')));
    };
    const program = () => execFileSync('qpdf', ['--empty', '--pages', ...files, '--', path.join(work, 'qpdf.pdf')]);
    const times: [number[], number[]] = [[], []];
    for (let i = 0; i < RUNS; i++) {
      let t = performance.now();
      await portal();
      times[0].push(performance.now() - t);
      t = performance.now();
      program();
      times[1].push(performance.now() - t);
    }
    const rssBefore = process.memoryUsage().rss / 2 ** 20;
    const childPeak = await peakOfChildren(process.pid, portal);
    const rssAfter = process.memoryUsage().rss / 2 ** 20;
    const programPeak = peakOfProgram('qpdf', ['--empty', '--pages', ...files, '--', path.join(work, 'qpdf.pdf')]);
    const [p, q] = [median(times[0]), median(times[1])];
    console.log(
      `report corpus, ${label}: ${corpus.length} kinds x ${COPIES} copies = ${files.length} files, ${(bytes / 2 ** 20).toFixed(1)} MiB (median of ${RUNS}, in turns)`,
    );
    console.log('| task | portal | qpdf --empty --pages | ratio |');
    console.log('|---|---|---|---|');
    console.log(`| merge time, ms | ${p.toFixed(0)} | ${q.toFixed(0)} | ${(p / q).toFixed(2)} |`);
    console.log(
      `| peak memory, MiB | qpdf processes ${childPeak.toFixed(0)}; this process ${rssBefore.toFixed(0)} -> ${rssAfter.toFixed(0)} | ${programPeak.toFixed(0)} | |`,
    );
    console.log(
      `each run, ms (portal / qpdf): ${times[0].map((x) => x.toFixed(0)).join(' ')} / ${times[1].map((x) => x.toFixed(0)).join(' ')}`,
    );
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

const readable = (await pdfCorpus()).filter((f) => f.readable);
// Reports rarely have layers; a print that has one pays for reading the others' catalogs (docs/decisions.md).
await measure(
  'without the layered report',
  readable.filter((f) => f.name !== 'form-and-hidden-layer'),
);
await measure('with the layered report in every protocol', readable);
