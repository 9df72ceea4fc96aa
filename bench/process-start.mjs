/**
 * How long a portal process takes from `node` to its first ready answer (`/readyz`), and its
 * memory then, on a fresh SQLite database (migrations included), beside the floor: a bare Fastify
 * process with one route, started the same way. A load balancer sends nothing to a restarted
 * server before it is ready, so this is the time one restart takes a server out of rotation.
 *
 *   node bench/process-start.mjs                      (the built server: npx tsc -b packages/shared apps/server)
 *   START_REFERENCE=/path/to/other/checkout node bench/process-start.mjs   (its built server too, in turns)
 *
 * START_RUNS (default 7) starts of each, in turns; the table gives medians.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Number(process.env.START_RUNS ?? 7);

const FLOOR = `
import Fastify from 'fastify';
const app = Fastify();
app.get('/readyz', async () => ({ status: 'ok' }));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
`;

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Starts one process, waits for /readyz, and gives the time it took and its resident memory. */
async function startOnce(args, cwd) {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-start-'));
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      DEMO_DATA: 'false',
      LOG_LEVEL: 'warn',
      JWT_SECRET: 'start-bench-secret-start-bench-secret-0123',
      HOST: '127.0.0.1',
      PORT: String(port),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
      try {
        if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) break;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const ms = performance.now() - started;
    const rss = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
    return { ms, rss };
  } finally {
    await new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGKILL');
    });
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const floorFile = path.join(ROOT, 'apps/server/.start-floor.mjs');
fs.writeFileSync(floorFile, FLOOR);
const variants = [
  { name: 'this build (apps/server/dist/main.js)', args: ['dist/main.js'], cwd: path.join(ROOT, 'apps/server') },
  ...(process.env.START_REFERENCE
    ? [
        {
          name: `reference (${process.env.START_REFERENCE})`,
          args: ['dist/main.js'],
          cwd: path.join(process.env.START_REFERENCE, 'apps/server'),
        },
      ]
    : []),
  { name: 'floor: bare Fastify, one route', args: [floorFile], cwd: path.join(ROOT, 'apps/server') },
];
const results = new Map(variants.map((v) => [v.name, []]));
try {
  for (let run = 0; run < RUNS; run++) {
    for (const variant of variants) results.get(variant.name).push(await startOnce(variant.args, variant.cwd));
  }
} finally {
  fs.rmSync(floorFile, { force: true });
}

console.log(
  `\nProcess start to the first ready answer, ${RUNS} starts each in turns (medians), Node ${process.version}`,
);
console.log('| process | ready after, ms | resident memory then, MiB |');
console.log('|---|---|---|');
for (const [name, runs] of results) {
  const ms = median(runs.map((r) => r.ms));
  const rss = median(runs.map((r) => r.rss));
  console.log(`| ${name} | ${ms.toFixed(0)} | ${rss.toFixed(0)} |`);
}
