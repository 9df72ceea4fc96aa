import { sql } from 'kysely';
import type { AppContext } from '../context.js';
import type { Db, Dialect } from '../db/database.js';
import { tooManyAttempts } from '../lib/errors.js';

const HOUR_MS = 3600_000;

/**
 * Counts one call of `subject` in its current fixed window and refuses it (429 with
 * `Retry-After`, until the window ends) beyond `max` calls. The count is one upsert in the
 * database, so concurrent calls and every server process share it; refused calls count too.
 */
export async function countCall(
  ctx: AppContext,
  subject: string,
  limit: { max: number; windowMs: number },
): Promise<void> {
  const now = ctx.clock.now().getTime();
  const start = now - (now % limit.windowMs);
  const windowStart = new Date(start).toISOString();
  const { rows } = await sql<{ calls: number | string }>`
    insert into call_rates (subject, window_start, calls) values (${subject}, ${windowStart}, 1)
    on conflict (subject) do update set
      calls = case when call_rates.window_start = excluded.window_start then call_rates.calls + 1 else 1 end,
      window_start = excluded.window_start
    returning calls`.execute(ctx.db);
  const calls = Number(rows[0]?.calls ?? 1);
  if (calls === 1) {
    // A subject's first call of a window also forgets the windows ended an hour ago or more.
    await ctx.db
      .deleteFrom('callRates')
      .where('windowStart', '<', new Date(now - HOUR_MS).toISOString())
      .execute();
  }
  if (calls > limit.max) throw tooManyAttempts((start + limit.windowMs - now) / 1000);
}

/**
 * Holds `subject` until the transaction `trx` ends: a second transaction holding the same subject
 * waits for the first to commit or roll back, in this process and in every other one on the
 * database (PostgreSQL locks the row; SQLite takes its write lock at this first write). A count
 * read after it and the rows inserted on its strength cannot be overtaken by a concurrent call.
 */
export async function holdSubject(trx: Db, subject: string, now: Date): Promise<void> {
  await sql`
    insert into call_rates (subject, window_start, calls) values (${`hold:${subject}`}, ${now.toISOString()}, 0)
    on conflict (subject) do update set window_start = excluded.window_start`.execute(trx);
}

/**
 * Takes `subject` for the transaction `trx` unless another transaction holds it: false then, at
 * once, so a job that one process is running is skipped by the others instead of run again after
 * it (PostgreSQL: FOR UPDATE SKIP LOCKED on the subject's row, which is only locked, never
 * updated, so nothing that reads or inserts it waits). SQLite has no row locks: there the caller
 * waits for the database's write lock as with `holdSubject`, and always gets the subject. A
 * process that dies holding the subject releases it with its connection.
 */
export async function tryHoldSubject(trx: Db, dialect: Dialect, subject: string, now: Date): Promise<boolean> {
  if (dialect === 'sqlite') {
    await holdSubject(trx, subject, now);
    return true;
  }
  const key = `hold:${subject}`;
  const row = () => trx.selectFrom('callRates').select('subject').where('subject', '=', key);
  if (await row().forUpdate().skipLocked().executeTakeFirst()) return true;
  if (await row().executeTakeFirst()) return false;
  // Its first use: the row inserted here stays locked until `trx` ends; a concurrent first use
  // waits for that, then finds it taken.
  const inserted = await trx
    .insertInto('callRates')
    .values({ subject: key, windowStart: now.toISOString(), calls: 0 })
    .onConflict((oc) => oc.column('subject').doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
}
