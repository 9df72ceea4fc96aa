/*
 * Throughput of one, two and three portal processes behind nginx (deploy/nginx/portal.conf) on
 * one PostgreSQL database, side by side: the patient list of many distinct patients in rotation
 * (each call with another patient's session), and beside it, in the same run and through the same
 * nginx, `/healthz` (no database, no session): what the processes answer when they do nothing.
 * The CPU each part used during each measure (portal processes, nginx, PostgreSQL's backends of
 * this database, the load generator) is printed with it: on two cores, the sum says who took them.
 *
 *   npx tsc -b packages/shared apps/server    # the processes run the built server
 *   node --import tsx bench/several-servers.bench.ts
 *   BENCH_SECONDS=10 BENCH_CONNECTIONS=50 BENCH_PROTOCOLS=20000 node --import tsx bench/several-servers.bench.ts
 */
import fs from 'node:fs';
import os from 'node:os';
import autocannon from 'autocannon';

process.env.TEST_DATABASE = 'postgres';
const { freshDatabaseEnv, startTestPortal } = await import('../apps/server/src/test/helpers.js');
const { issueSession } = await import('../apps/server/src/plugins/auth.js');
const { generateClinic } = await import('./generate.js');
const { Ports, startNginx, startPortalProcess } = await import('../e2e/support/several-servers.js');

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const PROTOCOLS = Number(process.env.BENCH_PROTOCOLS ?? 20_000);
/** Distinct patients, each with a session of its own: most calls are a patient's first of the run. */
const USERS = Number(process.env.BENCH_USERS ?? 5_000);
const JWT_SECRET = 'several-servers-bench-secret-0123456789abcdef';
/** Clock ticks per second of the times in /proc (USER_HZ, 100 on Linux). */
const TICK = 100;

/** CPU seconds used so far by `pid` (user + system), from /proc. */
function cpuOf(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICK;
  } catch {
    return 0;
  }
}

/** Children of `pid` (nginx's workers). */
function childrenOf(pid: number): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((p) => {
      try {
        return fs.readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ')[1] === String(pid);
      } catch {
        return false;
      }
    });
}

/** PostgreSQL backends serving `database` (their command line names it). */
function backendsOf(database: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((p) => {
      try {
        return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(` ${database} `);
      } catch {
        return false;
      }
    });
}

interface Measure {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  cpu: { portals: number; nginx: number; postgres: number; client: number; machine: number };
}

function machineBusy(): number {
  const [, ...fields] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const n = fields.map(Number);
  // user nice system (idle iowait excluded) irq softirq steal
  return (n[0]! + n[1]! + n[2]! + n[5]! + n[6]! + n[7]!) / TICK;
}

async function measure(
  url: string,
  tokens: string[] | undefined,
  pids: { portals: number[]; nginx: number[]; database: string },
): Promise<Measure> {
  let next = 0;
  const sample = () => ({
    portals: pids.portals.reduce((s, p) => s + cpuOf(p), 0),
    nginx: pids.nginx.reduce((s, p) => s + cpuOf(p), 0),
    postgres: backendsOf(pids.database).reduce((s, p) => s + cpuOf(p), 0),
    client: cpuOf(process.pid),
    machine: machineBusy(),
  });
  const before = sample();
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: [
      {
        setupRequest: (request) =>
          tokens
            ? { ...request, headers: { ...request.headers, authorization: `Bearer ${tokens[next++ % tokens.length]}` } }
            : request,
      },
    ],
  });
  const after = sample();
  const per = (k: keyof typeof before) => (after[k] - before[k]) / SECONDS;
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors,
    cpu: {
      portals: per('portals'),
      nginx: per('nginx'),
      postgres: per('postgres'),
      client: per('client'),
      machine: per('machine'),
    },
  };
}

async function main() {
  console.log(
    `PostgreSQL, ${os.cpus().length} cores, load average at start: ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}; ${PROTOCOLS} protocols, ${USERS} patients in rotation, ${CONNECTIONS} connections x ${SECONDS} s`,
  );
  const database = await freshDatabaseEnv();
  const databaseName = new URL(database.env.DATABASE_URL!).pathname.slice(1);
  const setup = await startTestPortal({ reuse: { env: database.env }, env: { JWT_SECRET } });
  const tokens: string[] = [];
  try {
    await generateClinic(setup.ctx, { protocols: PROTOCOLS, examsPerProtocol: 2 });
    const patients = await setup.ctx.db
      .selectFrom('users')
      .select('id')
      .where('type', '=', 'PATIENT')
      .orderBy('id')
      .limit(USERS)
      .execute();
    for (const p of patients) {
      const session = await issueSession(setup.ctx, {
        role: 'PATIENT',
        userId: p.id,
        username: 'bench',
        expiresAt: new Date(Date.now() + 6 * 3600_000),
      });
      tokens.push(session.accessToken);
    }
  } finally {
    await setup.close();
  }

  const ports = new Ports();
  const nginxPort = await ports.take();
  const portalPorts = [await ports.take(), await ports.take(), await ports.take()];
  const rows: Array<{ processes: number; list: Measure; health: Measure }> = [];
  try {
    for (const processes of [1, 2, 3]) {
      const env = { DATABASE_URL: database.env.DATABASE_URL!, JWT_SECRET, LOG_LEVEL: 'warn', DEMO_DATA: 'false' };
      const started = portalPorts.slice(0, processes).map((port) => startPortalProcess(port, env));
      await Promise.all(started.map((s) => s.ready));
      const nginx = await startNginx(portalPorts.slice(0, processes), nginxPort);
      try {
        const pids = {
          portals: started.map((s) => s.process.child.pid!),
          nginx: [nginx.pid, ...childrenOf(nginx.pid)],
          database: databaseName,
        };
        const listUrl = `${nginx.url}/api/v2/delivery/dashboard/protocols`;
        // Warm-up: each process prepares its statements and fills its caches.
        await autocannon({
          url: listUrl,
          connections: 10,
          duration: 2,
          headers: { authorization: `Bearer ${tokens[0]}` },
        });
        const list = await measure(listUrl, tokens, pids);
        const health = await measure(`${nginx.url}/healthz`, undefined, pids);
        rows.push({ processes, list, health });
        console.log(`${processes} process(es) measured`);
      } finally {
        await nginx.stop();
        for (const s of started) await s.process.stop();
      }
    }
  } finally {
    await database.drop();
  }

  const cpu = (m: Measure) =>
    `${m.cpu.portals.toFixed(2)} / ${m.cpu.nginx.toFixed(2)} / ${m.cpu.postgres.toFixed(2)} / ${m.cpu.client.toFixed(2)} (${m.cpu.machine.toFixed(2)})`;
  // Calls per CPU-second of the portal processes: what a call costs a process, whatever else the
  // machine does meanwhile.
  const perCpu = (m: Measure) => (m.cpu.portals > 0 ? Math.round(m.rps / m.cpu.portals) : 0);
  console.log(
    '\n| processes | patient list calls/s | p50 / p99 ms | vs 1 process | calls per portal CPU-s | /healthz calls/s | p99 ms | errors |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(
      `| ${r.processes} | ${r.list.rps} | ${r.list.p50} / ${r.list.p99} | ${(r.list.rps / rows[0]!.list.rps).toFixed(2)}x | ${perCpu(r.list)} | ${r.health.rps} | ${r.health.p99} | ${r.list.errors + r.health.errors} |`,
    );
  }
  console.log(
    '\nCPU cores busy during the measure: portal processes / nginx / PostgreSQL / load generator (whole machine)',
  );
  console.log('| processes | patient list | /healthz |');
  console.log('|---|---|---|');
  for (const r of rows) console.log(`| ${r.processes} | ${cpu(r.list)} | ${cpu(r.health)} |`);
}

await main();
