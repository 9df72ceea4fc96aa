/*
 * Sign-ins under load: what the server does while 64 logins (argon2 each) run at once, and how
 * long `/healthz` waits meanwhile, beside `/healthz` alone measured in the same run. The server
 * runs as its own process (as `npm start` does), once with the default hashing limits and once
 * with hashing unpaced (four at once, libuv's whole thread pool, and no queue limit: what every
 * password check did before the queue).
 *
 *   node --import tsx bench/sign-in.bench.ts
 *   BENCH_SECONDS=10 BENCH_DB=postgres node --import tsx bench/sign-in.bench.ts
 */
import http from 'node:http';
import os from 'node:os';

if (process.env.BENCH_DB === 'postgres') process.env.TEST_DATABASE = 'postgres';
const { freshDatabaseEnv, startTestPortal, TEST_DIALECT } = await import('../apps/server/src/test/helpers.js');
const { kill: killProcess, startServer: startServerProcess } =
  await import('../apps/server/src/test/server-process.js');
const { createInstitution, createProtocol } = await import('../apps/server/src/modules/auth/auth.test-support.js');

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const LOGINS = 64;

interface Timed {
  status: number;
  ms: number;
}

function request(agent: http.Agent, url: string, body?: unknown): Promise<Timed> {
  const started = performance.now();
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        agent,
        method: payload ? 'POST' : 'GET',
        headers: payload ? { 'content-type': 'application/json' } : {},
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

/** `/healthz` one call after another, on one connection, until `stop()`; latencies in ms. */
function probeHealth(url: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  let running = true;
  const done = (async () => {
    while (running) latencies.push((await request(agent, `${url}/healthz`)).ms);
  })();
  return {
    async stop() {
      running = false;
      await done;
      agent.destroy();
      return latencies;
    },
  };
}

/** Rounds of 64 right-password logins fired at once, for `SECONDS`. */
async function loginRounds(url: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: LOGINS });
  const counts = new Map<number, number>();
  const okMs: number[] = [];
  const started = performance.now();
  let rounds = 0;
  while (performance.now() - started < SECONDS * 1000) {
    const answers = await Promise.all(
      Array.from({ length: LOGINS }, (_, i) =>
        request(agent, `${url}/api/v2/auth/login`, {
          userName: `BENCH-${i}`,
          password: `senha-${i}`,
          appKey: 'login',
          dateOfBirth: '',
          tokenMFA: '',
        }),
      ),
    );
    for (const a of answers) {
      counts.set(a.status, (counts.get(a.status) ?? 0) + 1);
      if (a.status === 200) okMs.push(a.ms);
    }
    rounds++;
  }
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return { counts, okMs, seconds, rounds };
}

const database = await freshDatabaseEnv();
const setup = await startTestPortal({ reuse: { env: database.env } });
const lab = await createInstitution(setup.ctx, 'BENCH');
for (let i = 0; i < LOGINS; i++) {
  await createProtocol(setup.ctx, { institutionId: lab, number: `BENCH-${i}`, password: `senha-${i}` });
}
await setup.close();

const configs: Array<{ name: string; env: Record<string, string> }> = [
  { name: 'hashing queue (defaults)', env: {} },
  { name: 'unpaced (4 at once, no queue limit)', env: { HASH_CONCURRENCY: '4', HASH_QUEUE_MAX: '100000' } },
];

console.log(
  `sign-in bench: ${TEST_DIALECT}, ${os.availableParallelism()} cores, ${LOGINS} logins at once, ${SECONDS} s per phase, load average ${os.loadavg()[0]!.toFixed(1)}`,
);
const rows: string[] = [];
for (const config of configs) {
  const server = await startServerProcess({ ...database.env, LOG_LEVEL: 'warn', ...config.env });
  try {
    // The reference: /healthz alone, on the same server, just before.
    const alone = probeHealth(server.url);
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    const aloneMs = await alone.stop();

    const during = probeHealth(server.url);
    const logins = await loginRounds(server.url);
    const duringMs = await during.stop();

    const ok = logins.counts.get(200) ?? 0;
    const busy = logins.counts.get(503) ?? 0;
    const other = [...logins.counts].filter(([s]) => s !== 200 && s !== 503);
    rows.push(
      [
        config.name.padEnd(38),
        `${(ok / logins.seconds).toFixed(1).padStart(7)} logins/s`,
        `503: ${String(busy).padStart(5)}`,
        other.length ? `other: ${other.map(([s, n]) => `${s}x${n}`).join(',')}` : '',
        `login p50 ${percentile(logins.okMs, 50).toFixed(0)} ms, p99 ${percentile(logins.okMs, 99).toFixed(0)} ms`,
        `/healthz alone p50 ${percentile(aloneMs, 50).toFixed(1)} ms p99 ${percentile(aloneMs, 99).toFixed(1)} ms (${aloneMs.length} calls)`,
        `/healthz during logins p50 ${percentile(duringMs, 50).toFixed(1)} ms p99 ${percentile(duringMs, 99).toFixed(1)} ms (${duringMs.length} calls)`,
      ]
        .filter(Boolean)
        .join(' | '),
    );
    console.log(rows.at(-1));
  } finally {
    await killProcess(server.child);
  }
}
await database.drop();
