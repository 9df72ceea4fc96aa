import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../config.js';
import { type DatabaseHandle, type Db, openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import type { Database } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { issueSession, type NewSession } from '../plugins/auth.js';
import { createPortal, type RunningPortal, type StartOptions } from '../server.js';
import { createPgDatabase } from './pg-database.js';

/** Which database the suite runs on: SQLite by default, PostgreSQL with TEST_DATABASE=postgres. */
export const TEST_DIALECT = process.env.TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite';

/** A controllable clock. */
export class TestClock implements Clock {
  constructor(private current = new Date('2026-11-20T12:00:00.000Z')) {}
  now(): Date {
    return new Date(this.current);
  }
  set(date: Date | string): void {
    this.current = new Date(date);
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

/** A fresh, empty database for one test file: a temp SQLite file or a new PostgreSQL database. */
export async function freshDatabaseEnv(): Promise<{
  env: Record<string, string>;
  dataDir: string;
  drop(): Promise<void>;
}> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-test-'));
  if (TEST_DIALECT === 'sqlite') {
    return {
      env: { DATA_DIR: dataDir },
      dataDir,
      drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const database = await createPgDatabase('portal_test');
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: database.url },
    dataDir,
    drop: async () => {
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A fresh database migrated up to `until`, for a migration's test to write the data of the versions
 * before it and then migrate on; `close` closes and drops it.
 */
export async function databaseMigratedTo(
  until: NonNullable<Parameters<typeof migrateToLatest>[1]>,
): Promise<{ handle: DatabaseHandle; close(): Promise<void> }> {
  const fresh = await freshDatabaseEnv();
  const handle = openDatabase(loadConfig(fresh.env).database);
  await migrateToLatest(handle, until);
  return {
    handle,
    close: async () => {
      await handle.close();
      await fresh.drop();
    },
  };
}

/** An institution's row as every schema version since the first takes it, for migrations' tests. */
export function institutionRow(id: string, at: string) {
  return {
    id,
    code: id.toUpperCase(),
    name: id,
    token: `token-${id}`,
    apiKeyHash: `hash-${id}`,
    viewType: 1,
    settings: '{}',
    createdAt: at,
    updatedAt: at,
  } as never;
}

export interface TestPortal extends RunningPortal {
  clock: TestClock;
  /** Every log line written so far, as text. */
  logs(): string;
  env: Record<string, string>;
  /** Closes the portal and drops its database. */
  destroy(): Promise<void>;
  /** Signs in without a password, for tests of other features. */
  sessionFor(input: NewSession): Promise<string>;
}

export interface TestPortalOptions extends StartOptions {
  env?: Record<string, string>;
  /** Reuse the database of an earlier portal (restarts). */
  reuse?: { env: Record<string, string> };
}

/** Starts a portal on a fresh database (not listening: use `app.inject`). */
export async function startTestPortal(options: TestPortalOptions = {}): Promise<TestPortal> {
  const database = options.reuse ? { env: options.reuse.env, drop: async () => {} } : await freshDatabaseEnv();
  const env = {
    JWT_SECRET: 'test-secret-test-secret-test-secret-0123456789',
    LOG_LEVEL: 'info',
    PUBLIC_URL: 'http://portal.test',
    ...database.env,
    ...options.env,
  };
  const config = loadConfig(env);
  const clock = options.clock instanceof TestClock ? options.clock : new TestClock();
  let logText = '';
  const logStream = new Writable({
    write(chunk: Buffer, _enc, done) {
      logText += chunk.toString();
      done();
    },
  });
  const portal = await createPortal(config, { outbox: false, ...options, clock, logStream });
  await portal.app.ready();
  return {
    ...portal,
    clock,
    env,
    logs: () => logText,
    destroy: async () => {
      await portal.close();
      await database.drop();
    },
    sessionFor: async (input) => (await issueSession(portal.ctx, input)).accessToken,
  };
}

/** A TCP port free on 127.0.0.1 right now, for a server the test starts. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** How many rows a table holds. */
export async function countRows(db: Db, table: keyof Database): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
