import path from 'node:path';
import SQLite from 'better-sqlite3';
import {
  CamelCasePlugin,
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  PostgresDialect,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
} from 'kysely';
import pg from 'pg';
import type { Config } from '../config.js';
import { privateDir, privateFile, privateIfPresent } from '../lib/private-files.js';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';
export type Db = Kysely<Database>;

/**
 * SQLite transactions take the write lock when they begin (`BEGIN IMMEDIATE`). A deferred one that
 * reads first and writes afterwards cannot upgrade its read once the write thread (grouped writes,
 * a connection of its own) has committed in between: SQLite answers "database is locked" at once,
 * without waiting, because its snapshot is stale. Taken at the start, the lock waits its turn
 * (`busy_timeout`) instead. The main connection runs one transaction at a time anyway.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}

// pg answers int8 (count(*), bigint columns) as strings; every such value here fits a JS number.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

/**
 * Read-only statements for the calls that run on every page view (session check, protocol
 * lists): hand-written SQL kept prepared by its text, without query building. `?` marks a
 * parameter; `listParam` is a subquery over one array parameter made by `list(values)`.
 */
export interface SqlReader {
  /**
   * A statement is a call into the process on SQLite and a round trip to the server on PostgreSQL:
   * the data layer may read in one statement there what it reads in two simpler ones here.
   */
  readonly dialect: 'sqlite' | 'postgres';
  /**
   * `planWithValues`: the best plan depends on the values (how many rows a user owns), so
   * PostgreSQL plans the statement for them at each run instead of reusing a generic plan.
   */
  all<T>(text: string, params: readonly unknown[], options?: { planWithValues?: boolean }): Promise<T[]>;
  /** Like `all`, each row an array of its values in the order selected (no object per row). */
  arrays(text: string, params: readonly unknown[], options?: { planWithValues?: boolean }): Promise<unknown[][]>;
  /** `(<subquery yielding the values of one array parameter>)` in this dialect. */
  readonly listParam: string;
  list(values: readonly string[]): unknown;
  /** An aggregate joining text values of a group in `orderBy` order, separated by SEPARATOR. */
  joined(value: string, orderBy: string): string;
}

/** The separator of `SqlReader.joined` lists: a control character no stored value contains. */
export const SEPARATOR = '\u001f';

/** `column = ?` for one value (a plain index probe), else `column in <list parameter>`. */
export function inList(r: SqlReader, column: string, values: readonly string[]): { sql: string; params: unknown[] } {
  return values.length === 1
    ? { sql: `${column} = ?`, params: [values[0]] }
    : { sql: `${column} in ${r.listParam}`, params: [r.list(values)] };
}

/** A write refused by a unique index or primary key, on either database. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return (
    e?.code === '23505' ||
    e?.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    (typeof e?.message === 'string' && e.message.includes('UNIQUE constraint failed'))
  );
}

/**
 * PostgreSQL aborted the transaction to break a deadlock or a serialization conflict with another
 * one: run again, it succeeds against what the other committed.
 */
export function isTransientConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}

export interface DatabaseHandle {
  db: Db;
  dialect: Dialect;
  reader: SqlReader;
  /** SQLite only: the connection under Kysely, for bulk work that must bypass query building. */
  sqlite?: SQLite.Database;
  /** PostgreSQL only: the connection pool of writes and Kysely's reads (its counts are reported as metrics). */
  pool?: pg.Pool;
  /** PostgreSQL only: the pool of `reader`, apart from the writes' one. */
  readPool?: pg.Pool;
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
    // The database holds every patient's data: its file, and the WAL and shared-memory files SQLite
    // creates with the database file's mode, are the owner's alone.
    if (config.file !== ':memory:') {
      privateDir(path.dirname(config.file));
      privateFile(config.file);
    }
    const sqlite = new SQLite(config.file);
    sqlite.pragma('journal_mode = WAL');
    for (const suffix of ['-wal', '-shm']) privateIfPresent(`${config.file}${suffix}`);
    // An acknowledged write must survive a power cut: fsync the WAL on every commit.
    sqlite.pragma('synchronous = FULL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 10000');
    // The default 2 MiB page cache makes every list re-read its index and row pages through
    // system calls once a clinic outgrows it; a larger cache keeps them at hand. No memory map: a
    // commit by another connection (the write thread commits a group on nearly every page view)
    // makes SQLite unmap the file at the next read, whose pages then fault back in one by one, which
    // measured dearer than reading them (docs/decisions.md, "No memory map for SQLite").
    sqlite.pragma('cache_size = -32768');
    sqlite.pragma('mmap_size = 0');
    sqlite.pragma('temp_store = MEMORY');
    cacheStatements(sqlite);
    const db = new Kysely<Database>({
      dialect: new ImmediateSqliteDialect({ database: sqlite }),
      plugins: [new CamelCasePlugin()],
    });
    // Reads of the hot paths (and health checks) use a connection of their own: in WAL mode it
    // never waits for the writer and never sees a transaction the writer has not committed.
    const readConnection = config.file === ':memory:' ? sqlite : new SQLite(config.file, { readonly: true });
    if (readConnection !== sqlite) {
      readConnection.pragma('busy_timeout = 10000');
      readConnection.pragma('cache_size = -32768');
      readConnection.pragma('mmap_size = 0');
    }
    const reader = sqliteReader(readConnection);
    return {
      db,
      dialect: 'sqlite',
      sqlite,
      reader,
      close: async () => {
        await db.destroy();
        if (readConnection.open) readConnection.close();
      },
    };
  }
  const pool = new pg.Pool({ connectionString: config.url, max: 10 });
  // The reads of page views and health checks have a pool of their own, so they never wait in line
  // behind writes (a burst of sign-ins, each with its throttle claims, session and trace).
  const readPool = new pg.Pool({ connectionString: config.url, max: 10 });
  // An idle client whose connection the server ends (restart, DROP DATABASE) must not crash the process.
  pool.on('error', () => {});
  readPool.on('error', () => {});
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    plugins: [new CamelCasePlugin()],
  });
  return {
    db,
    dialect: 'postgres',
    reader: postgresReader(readPool),
    pool,
    readPool,
    close: async () => {
      await db.destroy();
      await readPool.end();
    },
  };
}

function sqliteReader(connection: SQLite.Database): SqlReader {
  const statements = new Map<string, SQLite.Statement>();
  const arrayStatements = new Map<string, SQLite.Statement>();
  const run = <T>(cache: Map<string, SQLite.Statement>, text: string, params: readonly unknown[], raw: boolean) => {
    let stmt = cache.get(text);
    if (!stmt) {
      stmt = connection.prepare(text);
      if (raw) stmt.raw(true);
      cache.set(text, stmt);
    }
    try {
      return Promise.resolve(stmt.all(...params) as T[]);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  };
  return {
    dialect: 'sqlite',
    listParam: '(select value from json_each(?))',
    list: (values) => JSON.stringify(values),
    joined: (value, orderBy) => `group_concat(${value}, '${SEPARATOR}' order by ${orderBy})`,
    all: <T>(text: string, params: readonly unknown[]) => run<T>(statements, text, params, false),
    arrays: (text, params) => run<unknown[]>(arrayStatements, text, params, true),
  };
}

/** Named statements: PostgreSQL parses and plans each once per connection. */
function postgresReader(pool: pg.Pool): SqlReader {
  const named = new Map<string, { name: string; text: string }>();
  const query = async (
    text: string,
    params: readonly unknown[],
    options: { planWithValues?: boolean } | undefined,
    arrays: boolean,
  ): Promise<unknown[]> => {
    let config: { text: string; values: unknown[]; name?: string };
    if (options?.planWithValues) {
      // An unnamed statement is planned with its values. A named one switches to a generic plan
      // after five runs, which cannot see that one user owns thousands of rows: it sorted a
      // heavy patient's 2,500 protocols (13 ms) where the custom plan walks the index (0.1 ms).
      let n = 0;
      config = { text: text.replace(/\?/g, () => `$${++n}`), values: params as unknown[] };
    } else {
      let statement = named.get(text);
      if (!statement) {
        let n = 0;
        statement = { name: `r${named.size + 1}`, text: text.replace(/\?/g, () => `$${++n}`) };
        named.set(text, statement);
      }
      config = { ...statement, values: params as unknown[] };
    }
    const result = arrays ? await pool.query({ ...config, rowMode: 'array' }) : await pool.query(config);
    return result.rows;
  };
  return {
    dialect: 'postgres',
    listParam: '(select unnest(?::text[]))',
    list: (values) => values,
    joined: (value, orderBy) => `string_agg(${value}, '${SEPARATOR}' order by ${orderBy})`,
    all: async <T>(text: string, params: readonly unknown[], options?: { planWithValues?: boolean }) =>
      (await query(text, params, options, false)) as T[],
    arrays: async (text, params, options) => (await query(text, params, options, true)) as unknown[][],
  };
}

/** PostgreSQL's row-lock strengths, strongest first. */
export type RowLock = 'update' | 'no key update' | 'share' | 'key share';

/**
 * A row read inside a transaction and held until it ends: PostgreSQL takes the row lock of the
 * strength asked for (`FOR UPDATE` by default); SQLite has no row locks and needs none, since it
 * runs one writing transaction at a time.
 */
export function heldRow<Q extends { forUpdate(): Q; forNoKeyUpdate(): Q; forShare(): Q; forKeyShare(): Q }>(
  query: Q,
  dialect: Dialect,
  lock: RowLock = 'update',
): Q {
  if (dialect !== 'postgres') return query;
  if (lock === 'no key update') return query.forNoKeyUpdate();
  if (lock === 'share') return query.forShare();
  if (lock === 'key share') return query.forKeyShare();
  return query.forUpdate();
}
