import { sql } from 'kysely';
import type { AppContext } from '../context.js';
import type { Db } from '../db/database.js';
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
