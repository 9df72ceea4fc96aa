import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { DatabaseHandle, Db, Dialect } from './db/database.js';
import type { GroupedWrites } from './db/grouped-writes.js';
import type { Clock } from './lib/clock.js';
import type { Storage } from './plugins/storage.js';

/** What every service needs, built once at start and handed down explicitly. */
export interface AppContext {
  config: Config;
  db: Db;
  dialect: Dialect;
  database: DatabaseHandle;
  /** Appends committed together per event-loop turn (audit records, read marks). */
  writes: GroupedWrites;
  storage: Storage;
  clock: Clock;
  log: FastifyBaseLogger;
  /** Secret that signs session tokens (JWT_SECRET or the one kept in DATA_DIR). */
  jwtSecret: Uint8Array;
}
