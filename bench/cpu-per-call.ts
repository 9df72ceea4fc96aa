/**
 * CPU time the server spends per call: a measure that holds on a loaded machine, where
 * throughput does not. The portal and the reference route run in this process; the load comes
 * from autocannon in a process of its own (`load-process.mjs`), so this process's CPU time
 * (`process.cpuUsage`: its main thread, libuv's pool and V8's helpers) is all spent serving. Per
 * call it prints the whole process's CPU and the main thread's alone (from /proc), for the
 * reference and for details, reports and lists of many patients and physicians in rotation, and the ratio of the
 * reference's CPU per call to each row's: the throughput ratio to expect where the server's CPU
 * is the limit.
 *
 *   node --import tsx bench/cpu-per-call.ts                   (100,000 protocols, 4,000 calls a row)
 *   BENCH_PROTOCOLS=10000 BENCH_CALLS=2000 BENCH_ROUNDS=3 BENCH_DB=postgres node --import tsx bench/cpu-per-call.ts
 *   BENCH_ONLY_ROWS=detail ...
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  type Call,
  CONNECTIONS,
  DIALECT,
  median,
  openClinic,
  PATHS,
  patientsOfClinic,
  physiciansOfClinic,
  startReference,
} from './clinic.js';

const PROTOCOLS = Number(process.env.BENCH_PROTOCOLS ?? 100_000);
const CALLS = Number(process.env.BENCH_CALLS ?? 4000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const USERS = Number(process.env.BENCH_USERS ?? 2000);
const ONLY = process.env.BENCH_ONLY_ROWS?.split(',');
const here = path.dirname(new URL(import.meta.url).pathname);
const run = promisify(execFile);

/** The main thread's CPU time in µs, from /proc (its task has the process's id). */
function mainThreadMicros(): number {
  const fields = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of the line, in clock ticks (100 a second here).
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / 100;
}

interface Measure {
  calls: number;
  failed: number;
  cpuUs: number;
  mainUs: number;
  p99: number;
}

async function measure(url: string, calls: number, rotation?: readonly Call[]): Promise<Measure> {
  let rotationFile: string | undefined;
  if (rotation) {
    rotationFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'portal-rotation-')), 'calls.json');
    fs.writeFileSync(rotationFile, JSON.stringify(rotation));
  }
  try {
    const cpu = process.cpuUsage();
    const main = mainThreadMicros();
    const { stdout } = await run(
      process.execPath,
      [
        path.join(here, 'load-process.mjs'),
        JSON.stringify({ url, connections: CONNECTIONS, amount: calls, rotationFile }),
      ],
      { maxBuffer: 1 << 20 },
    );
    const used = process.cpuUsage(cpu);
    const mainUs = mainThreadMicros() - main;
    const result = JSON.parse(stdout) as { requests: number; non2xx: number; errors: number; p99: number };
    return {
      calls: result.requests,
      failed: result.non2xx + result.errors,
      cpuUs: (used.user + used.system) / result.requests,
      mainUs: mainUs / result.requests,
      p99: result.p99,
    };
  } finally {
    if (rotationFile) fs.rmSync(path.dirname(rotationFile), { recursive: true, force: true });
  }
}

async function main() {
  const { portal, ctx, clinic, token } = await openClinic(PROTOCOLS);
  const address = await portal.app.listen({ host: '127.0.0.1', port: 0 });
  const reference = await startReference(ctx, clinic);
  const patients = await patientsOfClinic(ctx, clinic, PROTOCOLS, USERS);
  const tokens = await Promise.all(patients.map((p) => token('PATIENT', p.userId)));
  const physicians = await physiciansOfClinic(ctx, clinic, USERS);
  const physicianTokens = await Promise.all(physicians.map((p) => token('PHYSICIAN', p.id)));
  const rows = [
    { name: 'reference', url: reference.url },
    {
      name: `detail, ${patients.length} patients in rotation`,
      url: address,
      rotation: patients.map((p, i) => ({ path: `${PATHS.detail}${p.protocolId}`, token: tokens[i]! })),
    },
    {
      name: `report, ${patients.length} patients in rotation`,
      url: address,
      rotation: patients.map((p, i) => ({ path: `${PATHS.report}${p.resourceId}`, token: tokens[i]! })),
    },
    {
      name: `patient list, ${patients.length} patients in rotation, kept answers`,
      url: address,
      rotation: tokens.map((t) => ({ path: PATHS.patientList, token: t })),
    },
    {
      // Each physician's list built anew, as his first call of the day.
      name: `physician list, ${physicians.length} physicians in rotation, each built anew`,
      url: address,
      rotation: physicianTokens.map((t) => ({ path: `${PATHS.physicianList}?forceRefresh=true`, token: t })),
    },
  ].filter((r) => r.name === 'reference' || !ONLY || ONLY.some((w) => r.name.startsWith(w)));
  // Warm up every row once (first sessions verified, statements prepared, JIT).
  for (const row of rows) await measure(row.url, Math.min(CALLS, 1000), row.rotation);
  const figures = new Map<string, Measure[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const row of rows) {
      const m = await measure(row.url, CALLS, row.rotation);
      figures.set(row.name, [...(figures.get(row.name) ?? []), m]);
    }
  }
  const load = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  console.log(
    `\n${DIALECT}, ${PROTOCOLS} protocols, ${CALLS} calls a row x ${ROUNDS} rounds, ${CONNECTIONS} connections, load average ${load}: medians`,
  );
  console.log(
    '| call | CPU µs per call (process) | main thread µs per call | reference / this (process CPU) | p99 ms | failed |',
  );
  console.log('|---|---|---|---|---|---|');
  const ref = median(figures.get('reference')!.map((m) => m.cpuUs));
  for (const row of rows) {
    const list = figures.get(row.name)!;
    const cpu = median(list.map((m) => m.cpuUs));
    console.log(
      `| ${row.name} | ${cpu.toFixed(0)} | ${median(list.map((m) => m.mainUs)).toFixed(0)} | ${(ref / cpu).toFixed(2)} | ${median(list.map((m) => m.p99))} | ${list.reduce((a, m) => a + m.failed, 0)} |`,
    );
  }
  await reference.close();
  await portal.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
