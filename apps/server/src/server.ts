import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp, loggerOptions } from './app.js';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { type Clock, systemClock } from './lib/clock.js';
import { privateDir } from './lib/private-files.js';
import { createStorage } from './plugins/storage-factory.js';
import { ensureAdminAccount } from './modules/accounts/admin-bootstrap.js';
import { startOutboxWorker, type OutboxWorker, type OutboxTransports } from './modules/outbox/outbox.worker.js';
import { loadDemoData } from './modules/demo/demo-data.js';
import { runDigests } from './modules/delivery/notifications.service.js';

/** How often the DAY/WEEK digests are looked at; sending is idempotent per recipient and period. */
const DIGEST_INTERVAL_MS = 5 * 60_000;

export interface StartOptions {
  clock?: Clock;
  /** pino destination; tests pass a stream to read the log. */
  logStream?: NodeJS.WritableStream;
  /** Run the outbox worker (default true). */
  outbox?: boolean;
  /** Replace the outbox transports (tests inject failing ones). */
  outboxTransports?: Partial<OutboxTransports>;
}

export interface RunningPortal {
  app: FastifyInstance;
  ctx: AppContext;
  /** Stops accepting requests, lets in-flight ones finish, stops workers, closes the database. */
  close(): Promise<void>;
}

/** The signing secret: JWT_SECRET, else one generated once and kept in DATA_DIR. */
function loadJwtSecret(config: Config): Uint8Array {
  if (config.jwtSecret) return new TextEncoder().encode(config.jwtSecret);
  const file = path.join(config.dataDir, 'jwt-secret');
  privateDir(config.dataDir);
  try {
    return new Uint8Array(Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64url'));
  } catch {
    const secret = randomBytes(48);
    try {
      fs.writeFileSync(file, secret.toString('base64url'), { mode: 0o600, flag: 'wx' });
      return new Uint8Array(secret);
    } catch {
      // Another process wrote it first: use theirs.
      return new Uint8Array(Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64url'));
    }
  }
}

/** Builds the context, migrates, bootstraps, and returns the app ready to listen. */
export async function createPortal(config: Config, options: StartOptions = {}): Promise<RunningPortal> {
  const log = pino(loggerOptions(config.logLevel), options.logStream ?? process.stdout);
  const database = openDatabase(config.database);
  let migrated = false;
  const ctx: AppContext = {
    config,
    db: database.db,
    dialect: database.dialect,
    database,
    storage: createStorage(config.storage),
    clock: options.clock ?? systemClock,
    log,
    jwtSecret: loadJwtSecret(config),
  };
  let worker: OutboxWorker | undefined;
  try {
    await migrateToLatest(database);
    migrated = true;
    if (config.admin) await ensureAdminAccount(ctx, config.admin);
    if (config.demoData) await loadDemoData(ctx);
  } catch (error) {
    await database.close();
    throw error;
  }
  const app = await buildApp(ctx, { ready: () => migrated });
  let digestTimer: NodeJS.Timeout | undefined;
  if (options.outbox !== false) {
    worker = startOutboxWorker(ctx, options.outboxTransports);
    digestTimer = setInterval(() => {
      runDigests(ctx).catch((error: unknown) => ctx.log.error({ err: error }, 'result digests failed'));
    }, DIGEST_INTERVAL_MS);
    digestTimer.unref();
  }

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      clearInterval(digestTimer);
      await app.close();
      await worker?.stop();
      await database.close();
    })());
  return { app, ctx, close };
}
