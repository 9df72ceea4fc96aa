import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { CamelCasePlugin, Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.js';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';
export type Db = Kysely<Database>;

// pg answers int8 (count(*), bigint columns) as strings; every such value here fits a JS number.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

export interface DatabaseHandle {
  db: Db;
  dialect: Dialect;
  /** SQLite only: the connection under Kysely, for bulk work that must bypass query building. */
  sqlite?: SQLite.Database;
  close(): Promise<void>;
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely prepares every query afresh; preparing costs as much as running a small indexed query,
 * so statements are kept by their SQL text (most recently used kept, the rest finalised by GC).
 * One connection serves queries one at a time, so a cached statement is never busy when reused.
 */
function cacheStatements(sqlite: SQLite.Database): void {
  const prepare = sqlite.prepare.bind(sqlite);
  const cache = new Map<string, SQLite.Statement>();
  sqlite.prepare = ((source: string) => {
    let stmt = cache.get(source);
    if (stmt) {
      cache.delete(source);
    } else {
      stmt = prepare(source);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    }
    cache.set(source, stmt);
    return stmt;
  }) as typeof sqlite.prepare;
}

export function openDatabase(config: Config['database']): DatabaseHandle {
  if (config.dialect === 'sqlite') {
    fs.mkdirSync(path.dirname(config.file), { recursive: true });
    const sqlite = new SQLite(config.file);
    sqlite.pragma('journal_mode = WAL');
    // An acknowledged write must survive a power cut: fsync the WAL on every commit.
    sqlite.pragma('synchronous = FULL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 10000');
    // The default 2 MiB page cache makes every list re-read its index and row pages through
    // system calls once a clinic outgrows it; a larger cache plus a memory map keep them at hand.
    sqlite.pragma('cache_size = -32768');
    sqlite.pragma('mmap_size = 268435456');
    sqlite.pragma('temp_store = MEMORY');
    cacheStatements(sqlite);
    const db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: sqlite }),
      plugins: [new CamelCasePlugin()],
    });
    return { db, dialect: 'sqlite', sqlite, close: () => db.destroy() };
  }
  const pool = new pg.Pool({ connectionString: config.url, max: 10 });
  // An idle client whose connection the server ends (restart, DROP DATABASE) must not crash the process.
  pool.on('error', () => {});
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    plugins: [new CamelCasePlugin()],
  });
  return { db, dialect: 'postgres', close: () => db.destroy() };
}
