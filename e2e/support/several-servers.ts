/*
 * What the several-servers journey runs around the portal processes: a fresh PostgreSQL database,
 * an S3-compatible store (s3rver), Debian's nginx with the shipped deploy/nginx configuration,
 * and the portal processes themselves (`node apps/server/dist/main.js`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import S3rver from 's3rver';
import { createPgDatabase } from '../../apps/server/src/test/pg-database.js';
import { ROOT, SERVER_ENTRY } from './build.js';
import { untilReady } from '../../apps/server/src/test/ready.js';
import { exited, START_TIMEOUT_MS, terminate } from './portal.js';

/**
 * Ports for the servers the journey starts: from E2E_PORT_BASE on when it is set (a range kept
 * for this machine's user), otherwise free ports the system gives.
 */
export class Ports {
  private next: number | undefined;
  constructor(base = process.env.E2E_PORT_BASE) {
    this.next = base ? Number(base) : undefined;
  }
  async take(): Promise<number> {
    if (this.next !== undefined) return this.next++;
    return new Promise((resolve, reject) => {
      const server = net.createServer();
      server.unref();
      server.on('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
      });
    });
  }
}

export interface Database {
  url: string;
  query<T extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<T[]>;
  drop(): Promise<void>;
}

/** A database of its own on the PostgreSQL server of TEST_PG_ADMIN_URL, dropped at the end. */
export async function freshDatabase(): Promise<Database> {
  const database = await createPgDatabase('portal_scale');
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  return {
    url: database.url,
    query: async <T extends pg.QueryResultRow>(text: string, values: unknown[] = []) =>
      (await pool.query<T>(text, values)).rows,
    drop: async () => {
      await pool.end();
      await database.drop();
    },
  };
}

/** s3rver, a third-party S3-compatible server, with the bucket `results`. */
export async function startObjectStore(port: number): Promise<{ endpoint: string; stop(): Promise<void> }> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port,
    silent: true,
    directory,
    configureBuckets: [{ name: 'results', configs: [] }],
  });
  const address = await server.run();
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    stop: async () => {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

export interface PortalProcess {
  port: number;
  child: ChildProcess;
  output(): string;
  /** SIGKILL: no goodbye, as a crash or the OOM killer would. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts a portal process; `ready` resolves once its /readyz answers. */
export function startPortalProcess(
  port: number,
  env: Record<string, string>,
): { process: PortalProcess; ready: Promise<void> } {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-scale-'));
  let log = '';
  const child = spawn(process.execPath, [SERVER_ENTRY], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const portal: PortalProcess = {
    port,
    child,
    output: () => log,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited(child);
    },
    stop: async () => {
      await terminate(child);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  const ready = untilReady(child, `http://127.0.0.1:${port}`, () => log, START_TIMEOUT_MS);
  return { process: portal, ready };
}

/** The shipped configuration, with the journey's upstream processes and listening address. */
export function portalConfForTest(shipped: string, upstreamPorts: number[], listenPort: number): string {
  const upstream = /upstream portal \{[\s\S]*?\n\}/.exec(shipped);
  if (!upstream) throw new Error('deploy/nginx/portal.conf has no `upstream portal { ... }` block');
  const serverLines = upstream[0].match(/^\s*server 127\.0\.0\.1:\d+ (.*);$/gm) ?? [];
  if (serverLines.length === 0) throw new Error('the upstream block lists no `server 127.0.0.1:PORT ...;` line');
  const options = /^\s*server 127\.0\.0\.1:\d+ (.*);$/m.exec(serverLines[0]!)![1]!;
  let block = upstream[0];
  for (const line of serverLines) block = block.replace(`${line}\n`, '');
  block = block.replace(
    /upstream portal \{\n/,
    `upstream portal {\n${upstreamPorts.map((p) => `    server 127.0.0.1:${p} ${options};\n`).join('')}`,
  );
  const listens = shipped.match(/^\s*listen \d+;$/gm) ?? [];
  if (listens.length !== 1) throw new Error('deploy/nginx/portal.conf must have one `listen PORT;` line');
  return shipped.replace(upstream[0], block).replace(listens[0]!, `    listen 127.0.0.1:${listenPort};`);
}

export interface Nginx {
  url: string;
  /** The master process (nginx runs in the foreground, as this process's child). */
  pid: number;
  /** The access log lines: request id, status, upstream addresses tried. */
  accessLog(): Array<{ id: string; status: number; upstreams: string }>;
  stop(): Promise<void>;
}

/** Debian's nginx in the foreground, as a child, with everything under a temporary prefix. */
export async function startNginx(upstreamPorts: number[], listenPort: number): Promise<Nginx> {
  const prefix = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-nginx-'));
  // Workers run as nobody when the master is root: they must reach the prefix and its temp folders.
  fs.chmodSync(prefix, 0o755);
  for (const dir of ['tmp', 'logs']) fs.mkdirSync(path.join(prefix, dir), { mode: 0o777 });
  const shipped = fs.readFileSync(path.join(ROOT, 'deploy/nginx/portal.conf'), 'utf8');
  fs.writeFileSync(path.join(prefix, 'portal.conf'), portalConfForTest(shipped, upstreamPorts, listenPort));
  const tmp = (name: string) => `${name}_temp_path ${path.join(prefix, 'tmp', name)};`;
  fs.writeFileSync(
    path.join(prefix, 'nginx.conf'),
    [
      'daemon off;',
      'worker_processes 1;',
      `pid ${path.join(prefix, 'nginx.pid')};`,
      `error_log ${path.join(prefix, 'logs/error.log')} warn;`,
      'events { worker_connections 1024; }',
      'http {',
      '  log_format load \'$http_x_load_id $status "$upstream_addr"\';',
      `  access_log ${path.join(prefix, 'logs/access.log')} load;`,
      `  ${tmp('client_body')} ${tmp('proxy')} ${tmp('fastcgi')} ${tmp('uwsgi')} ${tmp('scgi')}`,
      `  include ${path.join(prefix, 'portal.conf')};`,
      '}',
    ].join('\n'),
  );
  const nginx = fs.existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx';
  const test = spawn(nginx, ['-t', '-q', '-p', prefix, '-c', path.join(prefix, 'nginx.conf'), '-e', 'stderr']);
  let testOutput = '';
  test.stderr.on('data', (d: Buffer) => (testOutput += d.toString()));
  await exited(test);
  if (test.exitCode !== 0) throw new Error(`nginx -t refused the configuration:\n${testOutput}`);

  let log = '';
  const child = spawn(nginx, ['-p', prefix, '-c', path.join(prefix, 'nginx.conf'), '-e', 'stderr'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  const url = `http://127.0.0.1:${listenPort}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}:\n${log}`);
    try {
      await fetch(`${url}/readyz`);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`nginx did not listen within 15 s:\n${log}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    url,
    pid: child.pid!,
    accessLog: () =>
      fs
        .readFileSync(path.join(prefix, 'logs/access.log'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const m = /^(\S+) (\d+) "(.*)"$/.exec(line);
          return { id: m?.[1] ?? '', status: Number(m?.[2] ?? 0), upstreams: m?.[3] ?? '' };
        }),
    stop: async () => {
      // QUIT: a graceful stop; the master waits for its workers.
      await terminate(child, 'SIGQUIT', 5_000);
      fs.rmSync(prefix, { recursive: true, force: true });
    },
  };
}
