/**
 * Delivery benchmarks: each role's protocol list against a minimal Fastify route, and batch
 * printing against qpdf and `zip -0`. Prints figures; asserts nothing.
 *
 *   npm run bench            (BENCH_PROTOCOLS=10000,100000 for several sizes; BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_EXAMS)
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { sql } from 'kysely';
import { loadConfig } from '../apps/server/src/config.js';
import { issueSession } from '../apps/server/src/plugins/auth.js';
import { createPortal } from '../apps/server/src/server.js';
import { sha256Hex } from '../apps/server/src/lib/ids.js';
import { PdfMerger } from '../apps/server/src/modules/delivery/pdf-merge.js';
import { writeZip } from '../apps/server/src/modules/delivery/zip-writer.js';
import { generateClinic, reportPdf } from './generate.js';

const execFileAsync = promisify(execFile);
const SIZES = (process.env.BENCH_PROTOCOLS ?? '20000').split(',').map(Number);
const EXAMS = Number(process.env.BENCH_EXAMS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

const clock = { now: () => new Date('2026-11-20T12:00:00.000Z') };

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function timed(fn: () => Promise<unknown> | unknown, runs = 3): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return median(times);
}

async function load(url: string, headers: Record<string, string>, duration = SECONDS) {
  // The load generator runs in its own thread, so it does not share the server's event loop.
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration, workers: 1 });
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors,
  };
}

async function main() {
  console.log(
    `load average at start: ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const last = SIZES.length - 1;
  for (const [i, size] of SIZES.entries()) await runSize(size, i === last && process.env.BENCH_ONLY !== 'lists');
}

async function runSize(protocolCount: number, withPrint: boolean) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-bench-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-00',
  });
  const portal = await createPortal(config, { clock, outbox: false, logStream: fs.createWriteStream('/dev/null') });
  const { ctx } = portal;
  const t0 = performance.now();
  const clinic = await generateClinic(ctx, {
    protocols: protocolCount,
    examsPerProtocol: EXAMS,
    patients: Math.max(10, Math.floor(protocolCount / 10)),
    physicians: 200,
    tags: 20,
  });
  console.log(
    `\n=== ${protocolCount} protocols x ${EXAMS} exams generated in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );

  const address = await portal.app.listen({ host: '127.0.0.1', port: 0 });
  const token = async (role: 'PATIENT' | 'PHYSICIAN' | 'EXTERNAL' | 'GUEST', userId?: string, protocolIds?: string[]) =>
    (await issueSession(ctx, { role, userId: userId ?? null, username: 'bench', protocolIds })).accessToken;
  const lists = [
    {
      name: 'patient (heavy, 1 year)',
      url: `${address}/api/v2/delivery/dashboard/protocols?initialDate=20/11/2025&finalDate=20/11/2026`,
      token: await token('PATIENT', clinic.heavyPatientId),
    },
    {
      name: 'patient, search',
      url: `${address}/api/v2/delivery/dashboard/protocols?initialDate=20/11/2025&finalDate=20/11/2026&search=glicemia`,
      token: await token('PATIENT', clinic.heavyPatientId),
    },
    {
      name: 'physician (heavy, 30 days)',
      url: `${address}/api/delivery/persistence/protocols/physician?initialDate=21/10/2026&finalDate=20/11/2026`,
      token: await token('PHYSICIAN', clinic.heavyPhysicianId),
    },
    {
      name: 'physician, unread',
      url: `${address}/api/delivery/persistence/protocols/physician?initialDate=21/10/2026&finalDate=20/11/2026&read=unread`,
      token: await token('PHYSICIAN', clinic.heavyPhysicianId),
    },
    {
      name: 'external (tag, 7 days, 50/page)',
      url: `${address}/api/v2/delivery/protocols/listedByTags`,
      token: await token('EXTERNAL', clinic.externalId),
    },
    {
      name: 'guest (one protocol)',
      url: `${address}/api/v2/delivery/dashboard/protocols`,
      token: await token('GUEST', undefined, [clinic.guestProtocolId]),
    },
  ];

  // The reference: a minimal Fastify route running one indexed 10-row query on the same database.
  const reference = Fastify();
  const sqlite = ctx.database.sqlite;
  const referenceSql =
    'select * from protocols where patient_user_id = ? and disabled = 0 order by sort_at desc, id desc limit 10';
  if (sqlite) {
    const stmt = sqlite.prepare(referenceSql);
    reference.get('/reference', async () => stmt.all(clinic.heavyPatientId));
  } else {
    reference.get(
      '/reference',
      async () =>
        (
          await sql`select * from protocols where patient_user_id = ${clinic.heavyPatientId} and disabled = 0 order by sort_at desc, id desc limit 10`.execute(
            ctx.db,
          )
        ).rows,
    );
  }
  const referenceAddress = await reference.listen({ host: '127.0.0.1', port: 0 });

  console.log('\nquery plans (SQLite):');
  for (const [name, q] of [
    [
      'patient',
      sql`explain query plan select * from protocols p where p.patient_user_id = ${clinic.heavyPatientId} and p.disabled = 0 and p.sort_at >= '2025-11-20' order by p.sort_at desc, p.id desc limit 10`,
    ],
    [
      'physician',
      sql`explain query plan select p.* from protocols p where p.disabled = 0 and (p.id in (select pr.protocol_id from protocol_requesters pr where pr.crm = '10000' and pr.uf = 'SP' and pr.sort_at >= '2026-10-21') or p.tag_id in ('x')) order by p.sort_at desc limit 10`,
    ],
    [
      'external',
      sql`explain query plan select * from protocols p where p.tag_id in ('x') and p.disabled = 0 and p.sort_at >= '2026-11-13' order by p.sort_at desc limit 50`,
    ],
  ] as const) {
    const rows = await q.execute(ctx.db);
    console.log(`  ${name}: ${(rows.rows as Array<{ detail: string }>).map((r) => r.detail).join(' | ')}`);
  }

  if (process.env.BENCH_ONLY !== 'print') await benchLists(lists, referenceAddress);
  await reference.close();
  if (!withPrint) {
    await portal.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    return;
  }

  // Batch printing: 50 protocols x 3 reports of 1-3 pages.
  const physician = await token('PHYSICIAN', clinic.heavyPhysicianId);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-bench-print-'));
  const files: string[] = [];
  const protocolIds = clinic.sampleProtocolIds.slice(0, 50);
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
      const key = `bench/print/${n++}`;
      const stored = await storeFile(ctx, key, bytes);
      files.push(ctx.storage.localPath!(key));
      await ctx.db
        .updateTable('resources')
        .set({ storageKey: key, size: stored.size, crc32: stored.crc32, sha256: stored.sha256 })
        .where('examId', '=', exam.id)
        .execute();
    }
  }
  const totalBytes = files.reduce((sum, f) => sum + fs.statSync(f).size, 0);
  // curl, a separate process, is the client: a client in this process would compete with the server.
  const ttfb: number[] = [];
  const print = async (isCompressed: boolean) => {
    const { stdout: out } = await execFileAsync('curl', [
      '-s',
      '-o',
      path.join(work, isCompressed ? 'out.zip' : 'out.pdf'),
      '-w',
      '%{http_code} %{time_starttransfer}',
      '-H',
      `authorization: Bearer ${physician}`,
      '-H',
      'content-type: application/json',
      '--data',
      JSON.stringify({ requestIds: protocolIds, isCompressed }),
      `${address}/api/v2/delivery/resource/batchPrinting`,
    ]);
    const [status, starttransfer] = out.split(' ');
    if (status !== '200') throw new Error(`batch print answered ${status}`);
    ttfb.push(Number(starttransfer) * 1000);
  };
  const pdfMs = await timed(() => print(false));
  const qpdfMs = await timed(() =>
    execFileSync('qpdf', ['--empty', '--pages', ...files, '--', path.join(work, 'q.pdf')]),
  );
  const pdfTtfb = median(ttfb.splice(0));
  const zipMs = await timed(() => print(true));
  const zipTtfb = median(ttfb.splice(0));
  const zip0Ms = await timed(() => {
    fs.rmSync(path.join(work, 'z.zip'), { force: true });
    execFileSync('zip', ['-0', '-q', '-j', path.join(work, 'z.zip'), ...files]);
  });
  console.log(
    `\nbatch printing: ${protocolIds.length} protocols, ${files.length} reports, ${(totalBytes / 2 ** 20).toFixed(1)} MiB (median of 3)`,
  );
  console.log(`time to the response headers: pdf ${pdfTtfb.toFixed(0)} ms, zip ${zipTtfb.toFixed(0)} ms`);
  console.log('| task | portal ms | reference | reference ms | ratio |');
  console.log('|---|---|---|---|---|');
  console.log(
    `| merged PDF | ${pdfMs.toFixed(0)} | qpdf --empty --pages | ${qpdfMs.toFixed(0)} | ${(pdfMs / qpdfMs).toFixed(2)} |`,
  );
  console.log(`| zip | ${zipMs.toFixed(0)} | zip -0 | ${zip0Ms.toFixed(0)} | ${(zipMs / zip0Ms).toFixed(2)} |`);

  // The same work without HTTP, sessions, authorisation, audit or read marks: the merger and
  // the zip writer alone, writing to a file like the tools do.
  const sources = await Promise.all(
    files.map(async (f) => {
      const bytes = fs.readFileSync(f);
      return { f, size: bytes.length, crc32: zlib.crc32(bytes) >>> 0 };
    }),
  );
  const mergerMs = await timed(async () => {
    const out = fs.openSync(path.join(work, 'm.pdf'), 'w');
    const merger = new PdfMerger(async (chunk) => void fs.writeSync(out, chunk));
    await merger.begin();
    for (const s of sources) await merger.addDocument(fs.readFileSync(s.f));
    await merger.finish();
    fs.closeSync(out);
  });
  const writerMs = await timed(async () => {
    const out = fs.openSync(path.join(work, 'm.zip'), 'w');
    await writeZip(
      sources.map((s, i) => ({
        name: `p/${i}.pdf`,
        size: s.size,
        crc32: s.crc32,
        open: async () => fs.createReadStream(s.f),
      })),
      async (chunk) => void fs.writeSync(out, chunk),
      new Date(),
    );
    fs.closeSync(out);
  });
  console.log(
    `| PdfMerger alone, to a file | ${mergerMs.toFixed(0)} | qpdf --empty --pages | ${qpdfMs.toFixed(0)} | ${(mergerMs / qpdfMs).toFixed(2)} |`,
  );
  console.log(
    `| writeZip alone, to a file | ${writerMs.toFixed(0)} | zip -0 | ${zip0Ms.toFixed(0)} | ${(writerMs / zip0Ms).toFixed(2)} |`,
  );

  // Ten batch prints at once while another user lists: the list's latency during the prints.
  const patientList = lists[0]!;
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

  // A 500 MiB zip: 150 stored reports of 3.4 MiB each (the zip writer never parses them).
  const big = Buffer.alloc(Math.round((3.4 * 2 ** 20) / 4) * 4);
  for (let i = 0; i < big.length; i += 4) big.writeUInt32LE((i * 2654435761) >>> 0, i);
  let m = 0;
  for (const protocolId of protocolIds) {
    const exams = await ctx.db
      .selectFrom('exams')
      .select('id')
      .where('protocolId', '=', protocolId)
      .where('isEnabled', '=', 1)
      .execute();
    for (const exam of exams) {
      const key = `bench/big/${m++}`;
      const stored = await storeFile(ctx, key, big);
      await ctx.db
        .updateTable('resources')
        .set({ storageKey: key, size: stored.size, crc32: stored.crc32, sha256: stored.sha256 })
        .where('examId', '=', exam.id)
        .execute();
    }
  }
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  }, 5);
  const zipStart = performance.now();
  await print(true);
  clearInterval(sampler);
  const zipSize = fs.statSync(path.join(work, 'out.zip')).size;
  fs.rmSync(path.join(work, 'out.zip'));
  console.log(
    `zip of ${(zipSize / 2 ** 20).toFixed(0)} MiB in ${(performance.now() - zipStart).toFixed(0)} ms: process RSS ${(rssBefore / 2 ** 20).toFixed(0)} MiB before, peak ${(rssPeak / 2 ** 20).toFixed(0)} MiB while streaming`,
  );

  fs.rmSync(work, { recursive: true, force: true });
  await portal.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

async function benchLists(lists: Array<{ name: string; url: string; token: string }>, referenceAddress: string) {
  console.log(
    `\nlists: autocannon ${CONNECTIONS} connections x ${SECONDS} s, load average ${os.loadavg()[0]!.toFixed(1)}`,
  );
  const table: string[] = ['| list | req/s | p50 ms | p99 ms | non-2xx |', '|---|---|---|---|---|'];
  const ref = await load(`${referenceAddress}/reference`, {});
  table.push(
    `| reference: Fastify route, one indexed 10-row query | ${ref.rps} | ${ref.p50} | ${ref.p99} | ${ref.errors} |`,
  );
  for (const list of lists) {
    const r = await load(list.url, { authorization: `Bearer ${list.token}` });
    table.push(`| ${list.name} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} |`);
  }
  console.log(table.join('\n'));
}

async function storeFile(ctx: Awaited<ReturnType<typeof createPortal>>['ctx'], key: string, bytes: Buffer) {
  const file = ctx.storage.localPath!(key);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, bytes);
  return { size: bytes.length, sha256: sha256Hex(bytes), crc32: zlib.crc32(bytes) >>> 0 };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
