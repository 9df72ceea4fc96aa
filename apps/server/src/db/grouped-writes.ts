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

  constructor(private readonly db: Db) {}

  /** Appends the rows; resolves once they are committed. */
  write(write: GroupedWrite): Promise<void> {
    if (write.rows.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.queued.push({ write, resolve, reject });
      this.schedule();
    });
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
    try {
      await this.db.transaction().execute((trx) =>
        insertAll(
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
          await this.db.transaction().execute((trx) => insertAll(trx, [p.write]));
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
