/**
 * Delivery benchmarks: each role's protocol list against a minimal Fastify route, and batch
 * printing against qpdf and `zip -0`. Prints figures; asserts nothing.
 *
 *   npm run bench            (BENCH_PROTOCOLS=10000,100000 for several sizes; BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_EXAMS, BENCH_PRINT_RUNS)
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import Fastify from 'fastify';
import { authenticate } from '../apps/server/src/plugins/auth.js';
import type { createPortal } from '../apps/server/src/server.js';
import { readAhead } from '../apps/server/src/lib/read-ahead.js';
import { mergePdfs } from '../apps/server/src/modules/delivery/pdf-merge.js';
import { peakOfChildren, peakOfProgram } from './process-memory.js';
import { writeZip } from '../apps/server/src/modules/delivery/zip-writer.js';
import {
  BROWSER_ENCODINGS,
  CONNECTIONS,
  DIALECT,
  load,
  median,
  openClinic,
  REFERENCE_SQL,
  SECONDS,
  startReference,
} from './clinic.js';
import { reportPdf } from './generate.js';

const execFileAsync = promisify(execFile);
const SIZES = (process.env.BENCH_PROTOCOLS ?? '20000').split(',').map(Number);
const PRINT_RUNS = Number(process.env.BENCH_PRINT_RUNS ?? 9);

type Task = () => Promise<number | void> | number | void;

/**
 * Runs tasks in turns (a, b, a, b…), so each sees the machine in the state the others do. A task
 * that measures itself returns its own time in ms; otherwise its wall time is taken. Per task: the
 * median, the median wall time, and every run.
 */
async function timedInTurns(tasks: Task[], runs = PRINT_RUNS) {
  const own = tasks.map(() => [] as number[]);
  const wall = tasks.map(() => [] as number[]);
  for (let i = 0; i < runs; i++) {
    for (const [j, task] of tasks.entries()) {
      const t0 = performance.now();
      const measured = await task();
      wall[j]!.push(performance.now() - t0);
      own[j]!.push(typeof measured === 'number' ? measured : wall[j]!.at(-1)!);
    }
  }
  return tasks.map((_, j) => ({
    ms: median(own[j]!),
    wallMs: median(wall[j]!),
    runs: own[j]!.map((x) => x.toFixed(0)).join(' '),
  }));
}

async function timed(task: Task, runs = 3): Promise<number> {
  return (await timedInTurns([task], runs))[0]!.ms;
}

async function main() {
  console.log(
    `${DIALECT}, load average at start: ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const last = SIZES.length - 1;
  for (const [i, size] of SIZES.entries()) await runSize(size, i === last && process.env.BENCH_ONLY !== 'lists');
}

async function runSize(protocolCount: number, withPrint: boolean) {
  const { portal, ctx, clinic, env, token } = await openClinic(protocolCount);

  if (process.env.BENCH_ONLY === 'generate') {
    await portal.close();
    return;
  }

  // The same query inside the portal's own stack (security headers, hooks, error handler), once
  // without and once with the session check: what the stack and the session cost per call.
  portal.app.get('/api/bench/reference', async () =>
    ctx.database.reader.all(REFERENCE_SQL, [clinic.heavyPatientId], { planWithValues: true }),
  );
  portal.app.get('/api/bench/reference-with-session', { preHandler: authenticate(ctx) }, async () =>
    ctx.database.reader.all(REFERENCE_SQL, [clinic.heavyPatientId], { planWithValues: true }),
  );
  const address = await portal.app.listen({ host: '127.0.0.1', port: 0 });
  const lists = [
    {
      name: 'the reference query inside the portal (its hooks and headers, no session)',
      url: `${address}/api/bench/reference`,
      token: await token('PATIENT', clinic.patientId),
    },
    {
      name: 'the reference query inside the portal, with the session check',
      url: `${address}/api/bench/reference-with-session`,
      token: await token('PATIENT', clinic.patientId),
    },
    {
      name: 'patient (24 protocols a year; default 6 months)',
      url: `${address}/api/v2/delivery/dashboard/protocols`,
      token: await token('PATIENT', clinic.patientId),
    },
    {
      name: 'patient, search, 1 year',
      url: `${address}/api/v2/delivery/dashboard/protocols?initialDate=20/11/2025&finalDate=20/11/2026&search=glicemia`,
      token: await token('PATIENT', clinic.patientId),
    },
    {
      name: 'physician (2,000 a year; default 7 days)',
      url: `${address}/api/delivery/persistence/protocols/physician`,
      token: await token('PHYSICIAN', clinic.physicianId),
    },
    {
      name: 'physician, unread, 7 days',
      url: `${address}/api/delivery/persistence/protocols/physician?read=unread`,
      token: await token('PHYSICIAN', clinic.physicianId),
    },
    {
      name: 'external (tag of 5,000 a year; default 7 days, 50 a page)',
      url: `${address}/api/v2/delivery/protocols/listedByTags`,
      token: await token('EXTERNAL', clinic.externalId),
    },
    {
      name: 'external, 1 year (5,000 protocols of his tag)',
      url: `${address}/api/v2/delivery/protocols/listedByTags?initialDate=20/11/2025&finalDate=20/11/2026`,
      token: await token('EXTERNAL', clinic.externalId),
    },
    // The same lists built anew on every call (forceRefresh: the kept answer is neither read nor kept).
    {
      name: 'patient, built anew (forceRefresh)',
      url: `${address}/api/v2/delivery/dashboard/protocols?forceRefresh=true`,
      token: await token('PATIENT', clinic.patientId),
    },
    {
      name: 'physician, built anew (forceRefresh)',
      url: `${address}/api/delivery/persistence/protocols/physician?forceRefresh=true`,
      token: await token('PHYSICIAN', clinic.physicianId),
    },
    {
      name: 'external, built anew (forceRefresh)',
      url: `${address}/api/v2/delivery/protocols/listedByTags?forceRefresh=true`,
      token: await token('EXTERNAL', clinic.externalId),
    },
    {
      name: 'guest (one protocol)',
      url: `${address}/api/v2/delivery/dashboard/protocols`,
      token: await token('GUEST', undefined, [clinic.guestProtocolId]),
    },
    {
      name: 'heavy patient (1 in 40 of the clinic; 1 year)',
      url: `${address}/api/v2/delivery/dashboard/protocols?initialDate=20/11/2025&finalDate=20/11/2026`,
      token: await token('PATIENT', clinic.heavyPatientId),
    },
    {
      name: 'heavy physician (1 in 20 of the clinic; 30 days)',
      url: `${address}/api/delivery/persistence/protocols/physician?initialDate=21/10/2026&finalDate=20/11/2026`,
      token: await token('PHYSICIAN', clinic.heavyPhysicianId),
    },
  ];

  const reference = await startReference(ctx, clinic);

  if (ctx.database.sqlite) {
    console.log('\nquery plans (SQLite):');
    const plans: Array<[string, string, unknown[]]> = [
      [
        'patient',
        `select * from protocols p where p.patient_user_id = ? and p.disabled = 0 and p.sort_at >= '2026-05-20' order by p.sort_at desc, p.id desc limit 10`,
        [clinic.patientId],
      ],
      [
        'physician',
        `select pr.listing from protocol_requesters pr where pr.crm = '10000' and pr.uf = 'SP' and pr.sort_at >= '2026-11-13' and pr.institution_id = 'x' and pr.disabled = 0 order by pr.sort_at desc, pr.protocol_id desc limit 10`,
        [],
      ],
      [
        'external',
        `select * from protocols p where p.tag_id = 'x' and p.disabled = 0 and p.sort_at >= '2026-11-13' order by p.sort_at desc limit 50`,
        [],
      ],
      [
        'exams of a page',
        `select e.id from exams e where e.protocol_id in (select value from json_each('[]')) and e.is_enabled = 1 order by e.protocol_id, e.position`,
        [],
      ],
    ];
    for (const [name, text, params] of plans) {
      const rows = ctx.database.sqlite.prepare(`explain query plan ${text}`).all(...params) as Array<{
        detail: string;
      }>;
      console.log(`  ${name}: ${rows.map((r) => r.detail).join(' | ')}`);
    }
  }

  if (process.env.BENCH_ONLY !== 'print') await benchLists(lists, reference);
  await reference.close();
  if (!withPrint) {
    await portal.close();
    return;
  }

  // Batch printing: 50 protocols x 3 reports of 1-3 pages.
  const physician = await token('PHYSICIAN', clinic.heavyPhysicianId);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-bench-print-'));
  const files: string[] = [];
  const protocolIds = clinic.sampleProtocolIds.slice(0, 50);
  // A 500 MiB zip is made of the same 150 reports stored at 3.4 MiB each (the zip writer never
  // parses them): each exam's resource is pointed at its small PDF or its large file in turn.
  const big = Buffer.alloc(Math.round((3.4 * 2 ** 20) / 4) * 4);
  for (let i = 0; i < big.length; i += 4) big.writeUInt32LE((i * 2654435761) >>> 0, i);
  const stored: Array<{ examId: string; small: StoredFile; large: StoredFile }> = [];
  let n = 0;
  for (const protocolId of protocolIds) {
    const exams = await ctx.db
      .selectFrom('exams')
      .select(['id', 'position'])
      .where('protocolId', '=', protocolId)
      .orderBy('position')
      .execute();
    // Three reports per protocol: further exams are switched off for the print.
    await ctx.db
      .updateTable('exams')
      .set({ isEnabled: 0 })
      .where('protocolId', '=', protocolId)
      .where('position', '>=', 3)
      .execute();
    for (const exam of exams.slice(0, 3)) {
      const bytes = await reportPdf(`report ${n}`, 1 + (n % 3), n + 7);
      const small = await storeFile(ctx, `bench/print/${n}`, bytes);
      const large = await storeFile(ctx, `bench/big/${n++}`, big);
      files.push(ctx.storage.localPath!(small.key));
      stored.push({ examId: exam.id, small, large });
    }
  }
  const useFiles = async (size: 'small' | 'large') => {
    for (const s of stored) {
      const f = s[size];
      await ctx.db
        .updateTable('resources')
        .set({ storageKey: f.key, size: f.size, crc32: f.crc32, sha256: f.sha256 })
        .where('examId', '=', s.examId)
        .execute();
    }
  };
  // Stored files are synced as they are written: nothing of the setup is left for the timed prints to flush.
  await useFiles('small');
  const totalBytes = files.reduce((sum, f) => sum + fs.statSync(f).size, 0);
  // Printing is measured on the portal as it runs in production: a server process of its own,
  // on the same data, whose memory can be read apart from the benchmark's.
  const server = await startServer(env);
  const serverAddress = server.address;
  // curl, a separate process, is the client: a client in this process would compete with the server.
  const ttfb: number[] = [];
  const print = async (isCompressed: boolean, output = path.join(work, isCompressed ? 'out.zip' : 'out.pdf')) => {
    const { stdout: out } = await execFileAsync('curl', [
      '-s',
      '-o',
      output,
      '-w',
      '%{http_code} %{time_starttransfer} %{time_total}',
      '-H',
      `authorization: Bearer ${physician}`,
      '-H',
      'content-type: application/json',
      '--data',
      JSON.stringify({ requestIds: protocolIds, isCompressed }),
      `${serverAddress}/api/v2/delivery/resource/batchPrinting`,
    ]);
    const [status, starttransfer, total] = out.split(' ');
    if (status !== '200') throw new Error(`batch print answered ${status}`);
    ttfb.push(Number(starttransfer) * 1000);
    // The request as curl times it, from connecting to the last byte: curl's own start (about
    // 20 ms here, against zip's 6) is the client's cost, not the portal's.
    return Number(total) * 1000;
  };
  // A 500 MiB zip streamed by the server process, with its memory as /proc shows it: the resident
  // size before and at its peak, and the anonymous part sampled every 10 ms while the zip streams.
  const bigZip = async (when: string) => {
    await useFiles('large');
    const before = memoryOf(server.pid);
    const composition = memoryComposition(server.pid);
    // Linux resets the process's peak resident size (VmHWM) when 5 is written to clear_refs.
    fs.writeFileSync(`/proc/${server.pid}/clear_refs`, '5');
    let anonPeak = before.anon;
    const sampler = setInterval(() => (anonPeak = Math.max(anonPeak, memoryOf(server.pid).anon)), 10);
    const zipStart = performance.now();
    await print(true, '/dev/null');
    const bigZipMs = performance.now() - zipStart;
    clearInterval(sampler);
    const after = memoryOf(server.pid);
    await useFiles('small');
    console.log(
      `zip of 500 MiB (150 stored reports of 3.4 MiB) ${when}: ${bigZipMs.toFixed(0)} ms; RSS ${before.rss} MiB before, peak ${after.hwm} MiB while streaming; anonymous memory ${before.anon} MiB before, peak ${anonPeak} MiB`,
    );
    console.log(`  resident memory before it, MiB: ${composition}`);
  };
  const [pdf, qpdf] = await timedInTurns([
    () => print(false),
    () => void execFileSync('qpdf', ['--empty', '--pages', ...files, '--', path.join(work, 'q.pdf')]),
  ]);
  const pdfTtfb = median(ttfb.splice(0));
  // Peak memory of one PDF print of every protocol: the server process's (VmHWM, reset first) and
  // its qpdf processes' (sampled every 5 ms), against the qpdf program alone (GNU time).
  fs.writeFileSync(`/proc/${server.pid}/clear_refs`, '5');
  const printChildren = await peakOfChildren(server.pid, () => print(false));
  const printServer = memoryOf(server.pid).hwm;
  const qpdfPeak = peakOfProgram('qpdf', ['--empty', '--pages', ...files, '--', path.join(work, 'q.pdf')]);
  ttfb.splice(0);
  const [zip, zip0] = await timedInTurns([
    () => print(true),
    () => {
      fs.rmSync(path.join(work, 'z.zip'), { force: true });
      execFileSync('zip', ['-0', '-q', '-j', path.join(work, 'z.zip'), ...files]);
    },
  ]);
  const zipTtfb = median(ttfb.splice(0));
  const [zipNull, zip0Null] = await timedInTurns([
    () => print(true, '/dev/null'),
    () => void execFileSync('zip', ['-0', '-q', '-j', '-', ...files], { stdio: ['ignore', 'ignore', 'inherit'] }),
  ]);
  ttfb.splice(0);
  const [pdfMs, qpdfMs, zipMs, zip0Ms] = [pdf!.ms, qpdf!.ms, zip!.ms, zip0!.ms];
  console.log(
    `\nbatch printing: ${protocolIds.length} protocols, ${files.length} reports, ${(totalBytes / 2 ** 20).toFixed(1)} MiB (median of ${PRINT_RUNS}, each task in turn with its reference)`,
  );
  console.log(`time to the response headers: pdf ${pdfTtfb.toFixed(0)} ms, zip ${zipTtfb.toFixed(0)} ms`);
  console.log('| task | portal ms | reference | reference ms | ratio |');
  console.log('|---|---|---|---|---|');
  console.log(
    `| merged PDF | ${pdfMs.toFixed(0)} | qpdf --empty --pages | ${qpdfMs.toFixed(0)} | ${(pdfMs / qpdfMs).toFixed(2)} |`,
  );
  console.log(
    `| merged PDF, peak memory MiB | server ${printServer} + its qpdf ${printChildren.toFixed(0)} | qpdf --empty --pages | ${qpdfPeak.toFixed(0)} | |`,
  );
  console.log(`| zip | ${zipMs.toFixed(0)} | zip -0 | ${zip0Ms.toFixed(0)} | ${(zipMs / zip0Ms).toFixed(2)} |`);
  console.log(
    `| zip, discarded | ${zipNull!.ms.toFixed(0)} | zip -0 to /dev/null | ${zip0Null!.ms.toFixed(0)} | ${(zipNull!.ms / zip0Null!.ms).toFixed(2)} |`,
  );
  console.log(
    `| zip, with curl's own start | ${zip!.wallMs.toFixed(0)} | zip -0 | ${zip0Ms.toFixed(0)} | ${(zip!.wallMs / zip0Ms).toFixed(2)} |`,
  );

  // The same work without HTTP, sessions, authorisation, audit or read marks: the merger and
  // the zip writer alone, writing to a file like the tools do.
  const sources = await Promise.all(
    files.map(async (f) => {
      const bytes = fs.readFileSync(f);
      return { f, size: bytes.length, crc32: zlib.crc32(bytes) >>> 0 };
    }),
  );
  const mergerMs = await timed(async () => {
    // Three reports a protocol, read by qpdf where they are stored, as the server does on disk storage.
    const groups = Array.from({ length: Math.ceil(sources.length / 3) }, (_, g) => ({
      title: `P-${g} - Paciente ${g}`,
      sources: sources.slice(g * 3, g * 3 + 3).map((s, i) => ({
        protocolNumber: `P-${g}`,
        report: `report ${i}`,
        resourceId: s.f,
        size: s.size,
        path: s.f,
        open: () => fsp.readFile(s.f),
      })),
    }));
    const merged = await mergePdfs(groups, 'pt-br');
    await pipeline(merged.body, fs.createWriteStream(path.join(work, 'm.pdf')));
  });
  const writerMs = await timed(async () => {
    const out = fs.openSync(path.join(work, 'm.zip'), 'w');
    // As the server does: files read whole and ahead of the writer.
    const wholeFiles = readAhead(
      sources,
      (s) => s.size,
      (s) => fsp.readFile(s.f),
    );
    await writeZip(
      sources.map((s, i) => ({
        name: `p/${i}.pdf`,
        size: s.size,
        crc32: s.crc32,
        open: () => wholeFiles.next(),
      })),
      async (chunk) => void fs.writeSync(out, chunk),
      new Date(),
    );
    fs.closeSync(out);
  });
  console.log(
    `| mergePdfs alone (qpdf, bookmarks), files in place, to a file | ${mergerMs.toFixed(0)} | qpdf --empty --pages | ${qpdfMs.toFixed(0)} | ${(mergerMs / qpdfMs).toFixed(2)} |`,
  );
  console.log(
    `| writeZip alone, to a file | ${writerMs.toFixed(0)} | zip -0 | ${zip0Ms.toFixed(0)} | ${(writerMs / zip0Ms).toFixed(2)} |`,
  );
  console.log(
    `each run, ms (portal / reference): merged PDF ${pdf!.runs} / ${qpdf!.runs}; zip ${zip!.runs} / ${zip0!.runs}; zip, discarded ${zipNull!.runs} / ${zip0Null!.runs}`,
  );

  console.log('');
  await bigZip('after the prints above, one at a time');

  // Ten batch prints at once while another user lists: the list's latency during the prints
  // (the server process alone serves both).
  const patient = lists.find((l) => l.name.startsWith('patient ('))!;
  const patientList = { ...patient, url: patient.url.replace(address, serverAddress) };
  const quiet = await load(patientList.url, { authorization: `Bearer ${patientList.token}` }, 5);
  let printing = true;
  let prints = 0;
  const printers = Array.from({ length: 10 }, async () => {
    while (printing) {
      await print(false);
      prints++;
    }
  });
  const during = await load(patientList.url, { authorization: `Bearer ${patientList.token}` }, 5);
  printing = false;
  await Promise.all(printers);
  console.log(`\npatient list alone: ${quiet.rps} req/s, p99 ${quiet.p99} ms`);
  console.log(
    `patient list during 10 concurrent PDF batch prints (${prints} prints done): ${during.rps} req/s, p99 ${during.p99} ms, non-2xx ${during.errors}`,
  );

  await bigZip('after the 10 concurrent PDF prints');
  server.stop();
  fs.rmSync(work, { recursive: true, force: true });
  await portal.close();
}

/** Resident size now and its peak since the last reset, in MiB, from /proc. */
function memoryOf(pid: number): { rss: number; hwm: number; anon: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return {
    rss: Math.round(kib('VmRSS') / 1024),
    hwm: Math.round(kib('VmHWM') / 1024),
    anon: Math.round(kib('RssAnon') / 1024),
  };
}

type MappingKind = 'malloc heap' | 'other anonymous' | 'program files' | 'database';

function mappingKind(name: string): MappingKind | undefined {
  if (name === '[heap]') return 'malloc heap';
  if (name === '') return 'other anonymous';
  if (!name.startsWith('/')) return undefined; // the stack, vdso and the like
  return /\.db(-wal|-shm)?$/.test(name) ? 'database' : 'program files';
}

/**
 * What a process's resident memory is made of, in MiB, from /proc/<pid>/smaps: the malloc heap
 * (SQLite's page caches among it), other anonymous memory (V8's heap, buffers), program files and
 * the mapped database.
 */
function memoryComposition(pid: number): string {
  const sizes: Record<MappingKind, number> = {
    'malloc heap': 0,
    'other anonymous': 0,
    'program files': 0,
    database: 0,
  };
  let kind: MappingKind | undefined;
  for (const line of fs.readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const mapping = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (mapping) {
      kind = mappingKind(mapping[1]!);
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && kind) sizes[kind] += Number(rss[1]);
  }
  return Object.entries(sizes)
    .map(([name, kib]) => `${name} ${Math.round(kib / 1024)}`)
    .join(', ');
}

/** The built server (apps/server/dist) in a process of its own, on the benchmark's data. */
async function startServer(env: Record<string, string>) {
  const main = path.resolve('apps/server/dist/main.js');
  if (!fs.existsSync(main)) throw new Error('Build the server first: npx tsc -b packages/shared apps/server');
  const probe = Fastify();
  const port = Number(new URL(await probe.listen({ host: '127.0.0.1', port: 0 })).port);
  await probe.close();
  const child = spawn(process.execPath, [main], {
    env: { ...process.env, ...env, HOST: '127.0.0.1', PORT: String(port), NODE_ENV: 'production', DEMO_DATA: 'false' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const address = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the server process ended with ${child.exitCode}`);
    try {
      if ((await fetch(`${address}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (i > 300) throw new Error('the server process did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  return { address, pid: child.pid!, stop: () => child.kill('SIGTERM') };
}

async function benchLists(
  lists: Array<{ name: string; url: string; token: string }>,
  reference: { url: string; url50: string },
) {
  console.log(
    `\nlists: autocannon ${CONNECTIONS} connections x ${SECONDS} s, load average ${os.loadavg()[0]!.toFixed(1)}`,
  );
  const table: string[] = [
    '| list | req/s | p50 ms | p99 ms | non-2xx | bytes per answer |',
    '|---|---|---|---|---|---|',
  ];
  // The external user's page holds 50 protocols: the same route for 50 rows shows what the size
  // of an answer alone costs.
  for (const [name, url] of [
    ['reference: Fastify route, one indexed 10-row query', reference.url],
    ["reference for 50 rows (an external page's size)", reference.url50],
  ] as const) {
    const r = await load(url, {});
    table.push(`| ${name} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.bytes} |`);
  }
  for (const list of lists) {
    const r = await load(list.url, { authorization: `Bearer ${list.token}` });
    table.push(`| ${list.name} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.bytes} |`);
  }
  // As a browser asks: answers above 1 KiB come back brotli-compressed (the rows above ask for
  // no encoding, as integrators' clients often do).
  for (const list of lists.filter((l) => /^(patient|physician|external)(, built anew)? \(/.test(l.name))) {
    const r = await load(list.url, { authorization: `Bearer ${list.token}`, 'accept-encoding': BROWSER_ENCODINGS });
    table.push(`| ${list.name}, compressed | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.bytes} |`);
  }
  console.log(table.join('\n'));
}

/** Stores a file as ingest does (written atomically and durably, measured on the way) under `key`. */
async function storeFile(ctx: Awaited<ReturnType<typeof createPortal>>['ctx'], key: string, bytes: Buffer) {
  const stored = await ctx.storage.put(key, Readable.from([bytes]), {
    contentType: 'application/pdf',
    maxBytes: bytes.length,
  });
  return { key, ...stored };
}

type StoredFile = Awaited<ReturnType<typeof storeFile>>;

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
