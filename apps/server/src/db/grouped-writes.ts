import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';
import type { Insertable } from 'kysely';
import type { Db } from './database.js';
import type { Database } from './schema.js';

/** Rows to append to one table; `ignoreConflicts` names the unique columns whose repeats are skipped. */
export type GroupedWrite = {
  [T in keyof Database]: {
    table: T;
    rows: Array<Insertable<Database[T]>>;
    ignoreConflicts?: ReadonlyArray<keyof Database[T] & string>;
  };
}[keyof Database];

interface Pending {
  write: GroupedWrite;
  resolve(): void;
  reject(error: unknown): void;
}

/** Rows per insert statement: far below SQLite's and PostgreSQL's parameter limits for these tables. */
const ROWS_PER_STATEMENT = 200;

/**
 * Group commit for the appends every page view makes (audit records, read marks): the writes
 * asked for during one event-loop turn are committed together, in one transaction with one insert
 * per table, and each caller's promise settles only once that transaction has committed. A caller
 * that answers after awaiting its write never answers for a write that a crash could lose, while
 * 50 views in flight cost one commit (one fsync on SQLite, one WAL flush on PostgreSQL) instead
 * of 50. While a commit runs (PostgreSQL), the next writes gather for the following one.
 *
 * When a group's transaction fails, each of its writes is tried again in a transaction of its
 * own, so a bad write fails its own caller only.
 */
export class GroupedWrites {
  private queued: Pending[] = [];
  private scheduled = false;
  private running: Promise<void> | undefined;

  private readonly insert: (trx: Db, writes: readonly GroupedWrite[]) => Promise<void>;
  private readonly thread: WriteThread | undefined;

  /**
   * `sqlite`: the connection under `db` on SQLite, and its file. A database file's groups are
   * committed by a thread of its own on a connection of its own (`WriteThread`), so the commit's
   * fsync never holds up the event loop, and the writes asked for meanwhile gather for the next
   * group. An in-memory database (tests) has only the one connection: its rows are inserted through
   * statements prepared once per table and columns, inside the transaction Kysely holds.
   */
  constructor(
    private readonly db: Db,
    sqlite?: { connection: SQLite.Database; file: string },
  ) {
    this.insert = sqlite ? preparedInserts(sqlite.connection) : insertAll;
    this.thread = sqlite && sqlite.file !== ':memory:' ? new WriteThread(sqlite.file) : undefined;
  }

  /** Appends the rows; resolves once they are committed. */
  write(write: GroupedWrite): Promise<void> {
    if (write.rows.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.queued.push({ write, resolve, reject });
      this.schedule();
    });
  }

  /** Waits for every write asked for so far, then ends the write thread (when there is one). */
  async close(): Promise<void> {
    await this.flushed();
    await this.thread?.close();
  }

  /** Resolves once every write asked for so far is committed (or has failed). */
  async flushed(): Promise<void> {
    while (this.queued.length > 0 || this.running || this.scheduled) {
      if (this.running) await this.running;
      else await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private schedule(): void {
    if (this.scheduled || this.running) return;
    this.scheduled = true;
    // After the I/O of this turn: the writes of every request handled in it join one group.
    setImmediate(() => {
      this.scheduled = false;
      this.running = this.commitQueued().finally(() => {
        this.running = undefined;
        if (this.queued.length > 0) this.schedule();
      });
    });
  }

  private async commitQueued(): Promise<void> {
    const group = this.queued;
    this.queued = [];
    if (this.thread) {
      let errors: Array<Error | null>;
      try {
        errors = await this.thread.commit(group.map((p) => p.write));
      } catch (error) {
        errors = group.map(() => (error instanceof Error ? error : new Error(String(error))));
      }
      group.forEach((p, i) => (errors[i] ? p.reject(errors[i]) : p.resolve()));
      return;
    }
    try {
      await this.db.transaction().execute((trx) =>
        this.insert(
          trx,
          group.map((p) => p.write),
        ),
      );
      for (const p of group) p.resolve();
    } catch (error) {
      if (group.length === 1) {
        group[0]!.reject(error);
        return;
      }
      for (const p of group) {
        try {
          await this.db.transaction().execute((trx) => this.insert(trx, [p.write]));
          p.resolve();
        } catch (own) {
          p.reject(own);
        }
      }
    }
  }
}

/** One insert per table (and conflict rule) for all the rows of the writes, in chunks. */
async function insertAll(trx: Db, writes: readonly GroupedWrite[]): Promise<void> {
  const byTable = new Map<string, { write: GroupedWrite; rows: Array<Record<string, unknown>> }>();
  for (const write of writes) {
    const key = `${write.table}|${(write.ignoreConflicts ?? []).join(',')}`;
    const entry = byTable.get(key);
    if (entry) entry.rows.push(...(write.rows as Array<Record<string, unknown>>));
    else byTable.set(key, { write, rows: [...(write.rows as Array<Record<string, unknown>>)] });
  }
  for (const { write, rows } of byTable.values()) {
    for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
      // The table and rows are typed together by GroupedWrite; Kysely cannot follow that union.
      const insert = (trx as Db)
        .insertInto(write.table as 'auditEvents')
        .values(rows.slice(i, i + ROWS_PER_STATEMENT) as Array<Insertable<Database['auditEvents']>>);
      const conflict = write.ignoreConflicts as Array<keyof Database['auditEvents'] & string> | undefined;
      await (conflict?.length ? insert.onConflict((oc) => oc.columns(conflict).doNothing()) : insert).execute();
    }
  }
}

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The insert statement of one row of a write, and the row's columns in the statement's order. */
function insertStatement(write: GroupedWrite, row: Record<string, unknown>): { sql: string; columns: string[] } {
  const columns = Object.keys(row);
  const conflict = write.ignoreConflicts?.length
    ? ` on conflict (${write.ignoreConflicts.map(snake).join(', ')}) do nothing`
    : '';
  return {
    columns,
    sql: `insert into ${snake(write.table)} (${columns.map(snake).join(', ')}) values (${columns.map(() => '?').join(', ')})${conflict}`,
  };
}

/** Each write as [statement, values] per row, with statements kept by table, columns and conflict rule. */
function statementsOf() {
  const known = new Map<string, { sql: string; columns: string[] }>();
  return (write: GroupedWrite): Array<[string, unknown[]]> =>
    (write.rows as Array<Record<string, unknown>>).map((row) => {
      const key = `${write.table}|${Object.keys(row).join(',')}|${(write.ignoreConflicts ?? []).join(',')}`;
      let statement = known.get(key);
      if (!statement) {
        statement = insertStatement(write, row);
        known.set(key, statement);
      }
      return [statement.sql, statement.columns.map((c) => row[c])];
    });
}

/**
 * Inserts on SQLite through statements prepared once per table, columns and conflict rule, one row
 * at a time (better-sqlite3 runs them synchronously on the connection the transaction holds).
 */
function preparedInserts(sqlite: SQLite.Database) {
  const rowsOf = statementsOf();
  const prepared = new Map<string, SQLite.Statement>();
  return async (_trx: Db, writes: readonly GroupedWrite[]): Promise<void> => {
    for (const write of writes) {
      for (const [sql, values] of rowsOf(write)) {
        let statement = prepared.get(sql);
        if (!statement) {
          statement = sqlite.prepare(sql);
          prepared.set(sql, statement);
        }
        statement.run(values);
      }
    }
  };
}

/*
 * The write thread's program (CommonJS, run from this text so it needs no file of its own in the
 * build): one connection to the database file, as durable as the main one (WAL, fsync on every
 * commit). Each message is a group: its writes are committed in one transaction; when that fails,
 * each write in a transaction of its own, so a bad write fails its own caller only.
 */
const WRITE_THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, workerData.binding ? { nativeBinding: workerData.binding } : {});
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('foreign_keys = ON');
db.pragma('busy_timeout = 10000');
const statements = new Map();
const insert = db.transaction((writes) => {
  for (const rows of writes) {
    for (const [sql, values] of rows) {
      let statement = statements.get(sql);
      if (!statement) {
        statement = db.prepare(sql);
        statements.set(sql, statement);
      }
      statement.run(values);
    }
  }
});
const describe = (e) => ({ message: e && e.message ? String(e.message) : String(e), code: e && e.code });
parentPort.on('message', ({ id, writes }) => {
  if (id === 'close') {
    db.close();
    parentPort.postMessage({ id });
    return;
  }
  try {
    insert.immediate(writes);
    parentPort.postMessage({ id, errors: null });
    return;
  } catch (error) {
    if (writes.length === 1) {
      parentPort.postMessage({ id, errors: [describe(error)] });
      return;
    }
  }
  const errors = writes.map((rows) => {
    try {
      insert.immediate([rows]);
      return null;
    } catch (error) {
      return describe(error);
    }
  });
  parentPort.postMessage({ id, errors });
});
`;

interface ThreadAnswer {
  id: number | 'close';
  errors?: Array<{ message: string; code?: string } | null> | null;
}

const require = createRequire(import.meta.url);

/**
 * The file of the better-sqlite3 native addon this thread loaded (its connection is open by now).
 * The write thread opens that same build: whatever chose it here (module hooks loaded with
 * `--import`, a `nativeBinding` option) does not reach a worker thread, which would otherwise
 * load node_modules' build, possibly compiled for another Node version.
 */
function loadedAddon(): string | undefined {
  return Object.keys(require.cache).find((file) => file.endsWith(`${path.sep}better_sqlite3.node`));
}

/** A worker thread committing groups of writes on its own connection to a SQLite file. */
class WriteThread {
  private readonly worker: Worker;
  private readonly waiting = new Map<number | 'close', (answer: ThreadAnswer) => void>();
  private readonly rowsOf = statementsOf();
  private next = 0;
  private failure: Error | undefined;

  constructor(file: string) {
    this.worker = new Worker(WRITE_THREAD_SOURCE, {
      eval: true,
      workerData: { file, driver: require.resolve('better-sqlite3'), binding: loadedAddon() },
    });
    // The process may end while it idles; a commit in flight is awaited by its caller.
    this.worker.unref();
    this.worker.on('message', (answer: ThreadAnswer) => {
      const settle = this.waiting.get(answer.id);
      this.waiting.delete(answer.id);
      settle?.(answer);
    });
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`the write thread ended (exit code ${code})`)));
  }

  /** Commits the writes as one group; per write, null or the error that refused it. */
  async commit(writes: readonly GroupedWrite[]): Promise<Array<Error | null>> {
    if (this.failure) throw this.failure;
    const id = this.next++;
    const answer = await new Promise<ThreadAnswer>((resolve) => {
      this.waiting.set(id, resolve);
      this.worker.ref();
      this.worker.postMessage({ id, writes: writes.map((w) => this.rowsOf(w)) });
    }).finally(() => {
      if (this.waiting.size === 0) this.worker.unref();
    });
    if (answer.id === -1) throw this.failure ?? new Error('the write thread ended');
    return writes.map((_, i) => {
      const e = answer.errors?.[i];
      return e ? Object.assign(new Error(e.message), e.code ? { code: e.code } : {}) : null;
    });
  }

  async close(): Promise<void> {
    if (this.failure) return;
    await new Promise<ThreadAnswer>((resolve) => {
      this.waiting.set('close', resolve);
      this.worker.ref();
      this.worker.postMessage({ id: 'close' });
    });
    this.failure = new Error('the write thread is closed');
    await this.worker.terminate();
  }

  /** The thread is gone: every commit waiting and every later one fails. */
  private fail(error: Error): void {
    this.failure ??= error;
    for (const settle of this.waiting.values()) settle({ id: -1 });
    this.waiting.clear();
  }
}
