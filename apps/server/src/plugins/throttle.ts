import { THROTTLE } from '@portal/shared/limits';
import type { AppContext } from '../context.js';
import { tooManyAttempts } from '../lib/errors.js';

/*
 * Throttling of guesses (contract 8), kept in the database so every server process shares it.
 * Keys: `<scope>:<subject>` for an account, protocol, phone, etc., and `ip:<address>` for a client.
 * - subject: from the 5th consecutive failure, a lock of 60 s x (failures - 4), at most 15 min;
 *   forgotten after 12 h without failures; a success clears it.
 * - address: at most 100 failures in 15 minutes.
 * An attempt answered 429 is not counted as a failure.
 */

export interface ThrottleKeys {
  subject: string;
  address: string;
}

function lockMsFor(failures: number): number {
  if (failures <= THROTTLE.freeFailures) return 0;
  return Math.min(THROTTLE.lockStepMs * (failures - THROTTLE.freeFailures), THROTTLE.lockMaxMs);
}

/** Throws 429 with Retry-After when the subject or the client address is locked. */
export async function assertNotThrottled(ctx: AppContext, keys: ThrottleKeys): Promise<void> {
  const now = ctx.clock.now();
  const rows = await ctx.db
    .selectFrom('throttles')
    .selectAll()
    .where('key', 'in', [keys.subject, `ip:${keys.address}`])
    .execute();
  let retryAfterMs = 0;
  for (const row of rows) {
    if (row.key.startsWith('ip:')) {
      const windowEnd = new Date(row.firstFailureAt).getTime() + THROTTLE.addressWindowMs;
      if (row.failures >= THROTTLE.addressMaxFailures && windowEnd > now.getTime()) {
        retryAfterMs = Math.max(retryAfterMs, windowEnd - now.getTime());
      }
    } else if (row.lockedUntil && new Date(row.lockedUntil) > now) {
      retryAfterMs = Math.max(retryAfterMs, new Date(row.lockedUntil).getTime() - now.getTime());
    }
  }
  if (retryAfterMs > 0) throw tooManyAttempts(retryAfterMs / 1000);
}

/** Counts a failure for the subject and the address, atomically (one upsert each). */
export async function recordFailure(ctx: AppContext, keys: ThrottleKeys): Promise<void> {
  const now = ctx.clock.now();
  const nowIso = now.toISOString();
  const staleBefore = new Date(now.getTime() - THROTTLE.resetAfterMs).toISOString();
  const addressWindowStart = new Date(now.getTime() - THROTTLE.addressWindowMs).toISOString();

  await ctx.db.transaction().execute(async (trx) => {
    // Subject: restart the count when the last failure is older than 12 h.
    const subject = await trx
      .insertInto('throttles')
      .values({ key: keys.subject, failures: 1, firstFailureAt: nowIso, lastFailureAt: nowIso, lockedUntil: null })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet((eb) => ({
          failures: eb
            .case()
            .when('throttles.lastFailureAt', '<', staleBefore)
            .then(1)
            .else(eb('throttles.failures', '+', 1))
            .end(),
          firstFailureAt: eb
            .case()
            .when('throttles.lastFailureAt', '<', staleBefore)
            .then(nowIso)
            .else(eb.ref('throttles.firstFailureAt'))
            .end(),
          lastFailureAt: nowIso,
        })),
      )
      .returning(['failures'])
      .executeTakeFirstOrThrow();
    const lockMs = lockMsFor(subject.failures);
    if (lockMs > 0) {
      await trx
        .updateTable('throttles')
        .set({ lockedUntil: new Date(now.getTime() + lockMs).toISOString() })
        .where('key', '=', keys.subject)
        .execute();
    }
    // Address: a 15-minute window that restarts once it has passed.
    await trx
      .insertInto('throttles')
      .values({
        key: `ip:${keys.address}`,
        failures: 1,
        firstFailureAt: nowIso,
        lastFailureAt: nowIso,
        lockedUntil: null,
      })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet((eb) => ({
          failures: eb
            .case()
            .when('throttles.firstFailureAt', '<', addressWindowStart)
            .then(1)
            .else(eb('throttles.failures', '+', 1))
            .end(),
          firstFailureAt: eb
            .case()
            .when('throttles.firstFailureAt', '<', addressWindowStart)
            .then(nowIso)
            .else(eb.ref('throttles.firstFailureAt'))
            .end(),
          lastFailureAt: nowIso,
        })),
      )
      .execute();
  });
}

/** A success clears the subject's consecutive failures (the address window stays). */
export async function recordSuccess(ctx: AppContext, subjectKey: string): Promise<void> {
  await ctx.db.deleteFrom('throttles').where('key', '=', subjectKey).execute();
}
