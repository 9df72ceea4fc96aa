import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp, loggerOptions } from './app.js';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { GroupedWrites } from './db/grouped-writes.js';
import { openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { type Clock, systemClock } from './lib/clock.js';
import { configureHashing } from './lib/passwords.js';
import { privateDir } from './lib/private-files.js';
import { createStorage } from './plugins/storage-factory.js';
import { createMetrics, startMetricsServer } from './plugins/metrics.js';
import { ensureAdminAccount } from './modules/accounts/admin-bootstrap.js';
import { startOutboxWorker, type OutboxWorker, type OutboxTransports } from './modules/outbox/outbox.worker.js';
import { runDigests } from './modules/delivery/notifications.service.js';
import { ACCESS_ALERT_INTERVAL_MS, runAccessAlerts } from './modules/access-log/access-alerts.service.js';
import { startMllpServer, type MllpServer } from './modules/hl7/mllp-server.js';

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
  /** Set when METRICS_PORT is: the listener serving /metrics on its own port. */
  metricsServer?: http.Server;
  /** Starts the HL7 v2 MLLP listener when HL7_MLLP_PORT is set (contract 9); close() stops it. */
  startMllp(): Promise<MllpServer | undefined>;
  /** Stops accepting requests, lets in-flight ones finish, stops workers, closes the database. */
  close(): Promise<void>;
}

/** JSON lines for log collectors; LOG_FORMAT=pretty: coloured, readable lines for a terminal. */
async function logDestination(config: Config, out: NodeJS.WritableStream): Promise<NodeJS.WritableStream> {
  if (config.logFormat !== 'pretty') return out;
  const { default: pinoPretty } = await import('pino-pretty');
  return pinoPretty({
    destination: out,
    colorize: out === process.stdout && process.stdout.isTTY,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    sync: true,
  });
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
  const log = pino(loggerOptions(config.logLevel), await logDestination(config, options.logStream ?? process.stdout));
  configureHashing(config.hashing);
  const database = openDatabase(config.database);
  let migrated = false;
  const ctx: AppContext = {
    config,
    db: database.db,
    dialect: database.dialect,
    database,
    writes: new GroupedWrites(
      database.db,
      database.sqlite && config.database.dialect === 'sqlite'
        ? { connection: database.sqlite, file: config.database.file }
        : undefined,
    ),
    storage: await createStorage(config.storage),
    clock: options.clock ?? systemClock,
    log,
    jwtSecret: loadJwtSecret(config),
  };
  let worker: OutboxWorker | undefined;
  try {
    await migrateToLatest(database);
    migrated = true;
    if (config.admin) await ensureAdminAccount(ctx, config.admin);
    // The demo's own code (its PDFs, images and signing certificates) is loaded only for a demo.
    if (config.demoData) await (await import('./modules/demo/demo-data.js')).loadDemoData(ctx);
  } catch (error) {
    await database.close();
    throw error;
  }
  const metrics = config.metrics.enabled ? createMetrics(ctx) : undefined;
  const app = await buildApp(ctx, { ready: () => migrated, metrics });
  const metricsServer =
    metrics && config.metrics.port !== undefined
      ? await startMetricsServer(metrics, { host: config.host, port: config.metrics.port, token: config.metrics.token })
      : undefined;
  let digestTimer: NodeJS.Timeout | undefined;
  let alertTimer: NodeJS.Timeout | undefined;
  if (options.outbox !== false) {
    worker = startOutboxWorker(ctx, options.outboxTransports);
    digestTimer = setInterval(() => {
      runDigests(ctx).catch((error: unknown) => ctx.log.error({ err: error }, 'result digests failed'));
    }, DIGEST_INTERVAL_MS);
    digestTimer.unref();
    alertTimer = setInterval(() => {
      runAccessAlerts(ctx).catch((error: unknown) => ctx.log.error({ err: error }, 'access alerts failed'));
    }, ACCESS_ALERT_INTERVAL_MS);
    alertTimer.unref();
  }

  let mllp: MllpServer | undefined;
  const startMllp = async () => {
    if (!config.hl7Mllp || mllp) return mllp;
    mllp = await startMllpServer(ctx, { host: config.host, port: config.hl7Mllp.port, tls: config.hl7Mllp.tls });
    return mllp;
  };
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      clearInterval(digestTimer);
      clearInterval(alertTimer);
      if (metricsServer) await new Promise((resolve) => metricsServer.close(resolve));
      await mllp?.close();
      await app.close();
      await worker?.stop();
      await ctx.writes.close();
      await database.close();
    })());
  return { app, ctx, metricsServer, startMllp, close };
}
