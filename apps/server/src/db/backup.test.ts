import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { systemClock } from '../lib/clock.js';
import { createInstitution } from '../modules/institutions/institution.service.js';
import { ingestBody } from '../test/contract-world.js';
import { createPgDatabase } from '../test/pg-database.js';
import { TEST_DIALECT, startTestPortal, type TestPortal } from '../test/helpers.js';
import { kill, killStartedServers, startServer } from '../test/server-process.js';

/**
 * docs/operations.md, "Backups and restores": a backup taken while the portal ingests, restored
 * into a new place, on which the portal starts and serves what was acknowledged before the backup.
 * SQLite through `portal backup` (SQLite's online backup API); PostgreSQL through pg_dump and
 * pg_restore, as the operations guide tells.
 */

const SERVER_DIR = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  // Servers still starting when a test timed out go first, before the databases they use.
  await killStartedServers();
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** Ingests protocols PRE-1, PRE-2… until stopped; remembers which ones were acknowledged, and when. */
function ingestLoad(portal: TestPortal, apiKey: string) {
  const acknowledged: Array<{ number: string; at: number }> = [];
  let stop = false;
  let next = 0;
  const worker = async () => {
    while (!stop) {
      const number = `BK-${++next}`;
      const res = await portal.app.inject({
        method: 'PUT',
        url: `/api/v2/delivery/ingest/protocols/${number}`,
        headers: { 'x-api-key': apiKey },
        payload: ingestBody({ password: `pw-${number}` }),
      });
      if (res.statusCode !== 201) throw new Error(`ingest ${number}: ${res.statusCode} ${res.body}`);
      acknowledged.push({ number, at: Date.now() });
    }
  };
  const workers = Array.from({ length: 3 }, worker);
  return {
    acknowledged,
    stop: async () => {
      stop = true;
      await Promise.all(workers);
    },
  };
}

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 20));
}

async function guestSignIn(url: string, number: string): Promise<{ status: number; countProtocols?: number }> {
  const res = await fetch(`${url}/api/v2/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ userName: number, password: `pw-${number}` }),
  });
  const body = (await res.json()) as { data?: { user?: { countProtocols?: number } } };
  return { status: res.status, countProtocols: body.data?.user?.countProtocols };
}

/** SQLite: `portal backup` while ingests go on, the copy restored into a new data folder. */
async function sqliteBackupAndRestore(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-backup-'));
  cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const portal = await startTestPortal({ env: { DATA_DIR: dataDir } });
  cleanups.push(() => portal.close());
  const { apiKey } = await createInstitution(
    { db: portal.ctx.db, clock: systemClock },
    { code: 'BKP', name: 'Backup Lab', viewType: 1 },
  );
  const load = ingestLoad(portal, apiKey);
  await waitFor(() => load.acknowledged.length >= 10);

  const target = path.join(dataDir, 'backups', 'portal-copy.db');
  const startedAt = Date.now();
  const before = load.acknowledged.filter((a) => a.at <= startedAt).map((a) => a.number);
  const { DATABASE_URL: _pg, ...inherited } = process.env;
  const backup = await new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'backup', '--out', target], {
      cwd: SERVER_DIR,
      env: { ...inherited, DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => resolve({ code, out }));
  });
  const endedAt = Date.now();
  await load.stop();
  expect(backup.code, backup.out).toBe(0);
  expect(backup.out).toContain('integrity ok');
  // The copy was taken under load: ingests were acknowledged while the command ran.
  expect(load.acknowledged.filter((a) => a.at > startedAt && a.at < endedAt).length).toBeGreaterThan(0);
  expect(fs.statSync(target).mode & 0o777).toBe(0o600);

  // A second backup to the same name is refused: an earlier good copy is never overwritten.
  const again = await run(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'backup', '--out', target], {
    cwd: SERVER_DIR,
    env: { ...inherited, DATA_DIR: dataDir },
  }).catch((error: { code: number; stderr: string }) => error);
  expect('code' in again && again.code).toBe(1);

  // Restore: the copy becomes the database of a new data folder; the real server starts on it.
  const restored = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-restored-'));
  cleanups.push(() => fs.rmSync(restored, { recursive: true, force: true }));
  fs.copyFileSync(target, path.join(restored, 'portal.db'));
  const copy = new Database(path.join(restored, 'portal.db'), { readonly: true });
  const numbers = new Set(
    (copy.prepare('select number from protocols').all() as Array<{ number: string }>).map((r) => r.number),
  );
  copy.close();
  expect(before.filter((n) => !numbers.has(n))).toEqual([]);

  const server = await startServer({ DATA_DIR: restored });
  cleanups.push(() => kill(server.child));
  for (const number of [before[0]!, before.at(-1)!]) {
    expect(await guestSignIn(server.url, number)).toEqual({ status: 200, countProtocols: 1 });
  }
}

/** PostgreSQL: pg_dump while ingests go on, pg_restore into a new database. */
async function postgresDumpAndRestore(): Promise<void> {
  const portal = await startTestPortal();
  cleanups.push(() => portal.destroy());
  const url = portal.env.DATABASE_URL!;
  const { apiKey } = await createInstitution(
    { db: portal.ctx.db, clock: systemClock },
    { code: 'BKP', name: 'Backup Lab', viewType: 1 },
  );
  const load = ingestLoad(portal, apiKey);
  await waitFor(() => load.acknowledged.length >= 10);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-pgdump-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const dump = path.join(dir, 'portal.dump');
  const startedAt = Date.now();
  const before = load.acknowledged.filter((a) => a.at <= startedAt).map((a) => a.number);
  await run('pg_dump', ['--format=custom', '--no-owner', '--file', dump, url]);
  await load.stop();

  const restored = await createPgDatabase('portal_restored');
  cleanups.push(() => restored.drop());
  const restoredUrl = new URL(restored.url);
  await run('pg_restore', ['--no-owner', '--exit-on-error', '--dbname', restoredUrl.toString(), dump]);

  const server = await startServer({
    DATA_DIR: fs.mkdtempSync(path.join(dir, 'data-')),
    DATABASE_URL: restoredUrl.toString(),
  });
  cleanups.push(() => kill(server.child));
  const rows = await new pg.Client({ connectionString: restoredUrl.toString() });
  await rows.connect();
  const numbers = new Set(
    (await rows.query<{ number: string }>('select number from protocols')).rows.map((r) => r.number),
  );
  await rows.end();
  expect(before.filter((n) => !numbers.has(n))).toEqual([]);
  for (const number of [before[0]!, before.at(-1)!]) {
    expect(await guestSignIn(server.url, number)).toEqual({ status: 200, countProtocols: 1 });
  }
}

// The suite runs once per database (npm test): each run backs up and restores its own.
describe('backup and restore (docs/operations.md)', () => {
  it(
    TEST_DIALECT === 'sqlite'
      ? 'SQLite: portal backup while ingests go on; the portal starts on the copy and serves every protocol acknowledged before'
      : 'PostgreSQL: pg_dump while ingests go on, pg_restore; the portal starts on it and serves every protocol acknowledged before',
    () => (TEST_DIALECT === 'sqlite' ? sqliteBackupAndRestore() : postgresDumpAndRestore()),
    // Servers and the CLI start as processes compiled by tsx: minutes on a busy machine.
    300_000,
  );
});
