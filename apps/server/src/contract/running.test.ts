import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { loadConfig } from '../config.js';
import { createAccount } from '../modules/auth/auth.test-support.js';
import { freePort, freshDatabaseEnv, startTestPortal } from '../test/helpers.js';
import { untilReady } from '../test/ready.js';

/* Contract section 1 (running it) and the outbox point of section 8. */

const SERVER_DIR = fileURLToPath(new URL('../..', import.meta.url));

interface Running {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
}

/** The portal in its own process, configured only by the environment, as `npm start` runs it. */
async function startProcess(env: Record<string, string>): Promise<Running> {
  const port = await freePort();
  const { DATABASE_URL: _db, JWT_SECRET: _secret, ADMIN_EMAIL: _a, ADMIN_PASSWORD: _p, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: SERVER_DIR,
    env: { ...inherited, LOG_LEVEL: 'warn', DEMO_DATA: 'false', ...env, HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr?.on('data', (d: Buffer) => (errors += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  await untilReady(child, url, () => errors, 120_000);
  return { child, url, exited };
}

const started: ChildProcess[] = [];
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const cleanup of cleanups) await cleanup();
});

describe('running it (contract 1)', () => {
  test('defaults: 127.0.0.1:8080, ./data, SQLite file and files under DATA_DIR, PUBLIC_URL from HOST and PORT', () => {
    const config = loadConfig({});
    expect(config.host).toBe('127.0.0.1');
    expect(config.port).toBe(8080);
    expect(config.dataDir).toBe(path.resolve('./data'));
    expect(config.database).toEqual({ dialect: 'sqlite', file: path.resolve('./data/portal.db') });
    expect(config.storage).toEqual({ kind: 'disk', dir: path.resolve('./data/files') });
    expect(config.publicUrl).toBe('http://127.0.0.1:8080');
    expect(config.demoData).toBe(false);
    expect(loadConfig({ HOST: '0.0.0.0', PORT: '9000' }).publicUrl).toBe('http://0.0.0.0:9000');
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h/db' }).database.dialect).toBe('postgres');
  });

  test('first admin, generated JWT secret kept in DATA_DIR, sessions across a restart, SIGTERM stops cleanly', async () => {
    const database = await freshDatabaseEnv();
    cleanups.push(database.drop);
    const env = { ...database.env, ADMIN_EMAIL: 'first@portal.test', ADMIN_PASSWORD: 'First-admin-1' };
    const first = await startProcess(env);
    started.push(first.child);
    const health = await fetch(`${first.url}/healthz`);
    expect(await health.json()).toEqual({ status: 'ok' });
    const signIn = await fetch(`${first.url}/api/v2/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userName: 'first@portal.test', password: 'First-admin-1', appKey: 'admin' }),
    });
    expect(signIn.status).toBe(200);
    const { accessToken } = ((await signIn.json()) as { data: { accessToken: string } }).data;
    expect(fs.existsSync(path.join(database.dataDir, 'jwt-secret'))).toBe(true);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    // The admin exists now: another ADMIN_PASSWORD at start changes nothing.
    const second = await startProcess({ ...env, ADMIN_PASSWORD: 'Other-admin-2' });
    started.push(second.child);
    const validate = await fetch(`${second.url}/api/v2/auth/validate`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(validate.status).toBe(200);
    const other = await fetch(`${second.url}/api/v2/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userName: 'first@portal.test', password: 'Other-admin-2', appKey: 'admin' }),
    });
    expect(other.status).toBe(401);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    // Two real start-ups of the server on a shared, busy machine.
  }, 180_000);
});

describe('outbox without SMTP (contract 1 and 8)', () => {
  test('the mail waits in the outbox; the log names recipient and subject, never the link', async () => {
    const portal = await startTestPortal();
    cleanups.push(portal.destroy);
    await createAccount(portal.ctx, { type: 'PATIENT', email: 'sem-smtp@paciente.test', password: 'Senha-forte-1' });
    const res = await portal.app.inject({
      method: 'POST',
      url: '/api/auth/password/forgotPassword?username=sem-smtp@paciente.test&language=pt-br',
    });
    expect(res.statusCode).toBe(200);
    const queued = await portal.ctx.db
      .selectFrom('outbox')
      .selectAll()
      .where('recipient', '=', 'sem-smtp@paciente.test')
      .execute();
    expect(queued).toHaveLength(1);
    const logs = portal.logs();
    expect(logs).toContain('sem-smtp@paciente.test');
    expect(logs).not.toContain('/password/reset?token=');
  });
});
