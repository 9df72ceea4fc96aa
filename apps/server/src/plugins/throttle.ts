import { THROTTLE } from '@portal/shared/limits';
import type { AppContext } from '../context.js';
import type { ExpressionBuilder, OnConflictDatabase, OnConflictTables } from 'kysely';
import type { Db } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { tooManyAttempts } from '../lib/errors.js';

/*
 * The attempt gate: throttling of guesses (contract 8), kept in the database so every server
 * process shares it. Every place that checks a secret goes through `guarded` (or `beginAttempt`):
 * the attempt is claimed in one conditional upsert BEFORE the secret is checked, so guesses in
 * flight together cannot all slip through while the first one is still hashing.
 * Keys: `<scope>:<subject>` (see `attemptSubject`) and `ip:<address>` for a client.
 * - subject: from the 5th consecutive failure, a lock of 60 s x (failures - 4), at most 15 min;
 *   forgotten after 12 h without failures; a success clears it.
 * - address: at most 100 failures in 15 minutes.
 * A claim counts as a failure from the moment it is made; a right secret gives it back. An
 * attempt answered 429 is not counted at all.
 */

/**
 * The one counter of each guessable thing. An account has one counter whatever names it (e-mail,
 * CPF, current password); a protocol number has one counter whatever door checks its password.
 */
export const attemptSubject = {
  account: (userId: string) => `account:${userId}`,
  /** An e-mail no account has (unique login over the protocols of a patient e-mail). */
  email: (email: string) => `email:${email.trim().toLowerCase()}`,
  /** A CPF no account has. */
  cpf: (digits: string) => `cpf:${digits}`,
  protocol: (number: string) => `protocol:${number.trim().toLowerCase()}`,
  /** MFA codes sent to an account's phone to turn MFA on or off. */
  mfa: (userId: string) => `mfa:user:${userId}`,
  recovery: (email: string) => `recovery:${email.trim().toLowerCase()}`,
  share: (userId: string) => `share:${userId}`,
};

export interface ThrottleKeys {
  subject: string;
  address: string;
}

const addressKey = (address: string) => `ip:${address}`;

function lockMsFor(failures: number): number {
  if (failures <= THROTTLE.freeFailures) return 0;
  return Math.min(THROTTLE.lockStepMs * (failures - THROTTLE.freeFailures), THROTTLE.lockMaxMs);
}

/** Seconds until the subject or address may try again; 0 when it may try now. */
async function retryAfterMs(db: Db, keys: ThrottleKeys, now: Date): Promise<number> {
  const rows = await db
    .selectFrom('throttles')
    .selectAll()
    .where('key', 'in', [keys.subject, addressKey(keys.address)])
    .execute();
  let wait = 0;
  for (const row of rows) {
    if (row.key.startsWith('ip:') && row.key === addressKey(keys.address)) {
      const windowEnd = new Date(row.firstFailureAt).getTime() + THROTTLE.addressWindowMs;
      if (row.failures >= THROTTLE.addressMaxFailures && windowEnd > now.getTime()) {
        wait = Math.max(wait, windowEnd - now.getTime());
      }
    } else if (row.lockedUntil && new Date(row.lockedUntil) > now) {
      wait = Math.max(wait, new Date(row.lockedUntil).getTime() - now.getTime());
    }
  }
  return wait;
}

/**
 * The upsert's update: one more event, or a fresh count of 1 when `column` is older than
 * `restartBefore` (the counter's window or rest period has passed).
 */
function countOneMore(
  eb: ExpressionBuilder<OnConflictDatabase<Database, 'throttles'>, OnConflictTables<'throttles'>>,
  column: 'throttles.lastFailureAt' | 'throttles.firstFailureAt',
  restartBefore: string,
  nowIso: string,
) {
  const restarts = eb(column, '<', restartBefore);
  return {
    failures: eb
      .case()
      .when(restarts)
      .then(1)
      .else(eb('throttles.failures', '+', 1))
      .end(),
    firstFailureAt: eb.case().when(restarts).then(nowIso).else(eb.ref('throttles.firstFailureAt')).end(),
    lastFailureAt: nowIso,
  };
}

/**
 * Adds one failure to the subject unless it is locked, and sets its next lock. Returns false
 * (and changes nothing) when the subject is locked.
 */
async function countSubjectFailure(db: Db, key: string, now: Date): Promise<boolean> {
  const nowIso = now.toISOString();
  const staleBefore = new Date(now.getTime() - THROTTLE.resetAfterMs).toISOString();
  const row = await db
    .insertInto('throttles')
    .values({ key, failures: 1, firstFailureAt: nowIso, lastFailureAt: nowIso, lockedUntil: null })
    .onConflict((oc) =>
      oc
        .column('key')
        .doUpdateSet((eb) => countOneMore(eb, 'throttles.lastFailureAt', staleBefore, nowIso))
        // The row lock of the upsert (PostgreSQL) or the write lock (SQLite) serialises this
        // check with every other process, so a lock set by a parallel attempt is always seen.
        .where((eb) => eb.or([eb('throttles.lockedUntil', 'is', null), eb('throttles.lockedUntil', '<=', nowIso)])),
    )
    .returning(['failures'])
    .executeTakeFirst();
  if (!row) return false;
  const lockMs = lockMsFor(row.failures);
  await db
    .updateTable('throttles')
    .set({ lockedUntil: lockMs > 0 ? new Date(now.getTime() + lockMs).toISOString() : null })
    .where('key', '=', key)
    .execute();
  return true;
}

/**
 * Counts one event under `key` in a window of `windowMs` that restarts once it has passed,
 * unless the window already holds `max` events or the last one is less than `minIntervalMs` old.
 * One conditional upsert, so concurrent callers never both take the last slot. Returns false
 * when the event was refused.
 */
async function countInWindow(
  db: Db,
  key: string,
  now: Date,
  limits: { max: number; windowMs: number; minIntervalMs?: number },
): Promise<boolean> {
  const nowIso = now.toISOString();
  const windowStart = new Date(now.getTime() - limits.windowMs).toISOString();
  const lastAllowedBefore = limits.minIntervalMs
    ? new Date(now.getTime() - limits.minIntervalMs).toISOString()
    : undefined;
  const row = await db
    .insertInto('throttles')
    .values({ key, failures: 1, firstFailureAt: nowIso, lastFailureAt: nowIso, lockedUntil: null })
    .onConflict((oc) =>
      oc
        .column('key')
        .doUpdateSet((eb) => countOneMore(eb, 'throttles.firstFailureAt', windowStart, nowIso))
        .where((eb) => {
          const roomInWindow = eb.or([
            eb('throttles.firstFailureAt', '<', windowStart),
            eb('throttles.failures', '<', limits.max),
          ]);
          return lastAllowedBefore
            ? eb.and([eb('throttles.lastFailureAt', '<=', lastAllowedBefore), roomInWindow])
            : roomInWindow;
        }),
    )
    .returning(['failures'])
    .executeTakeFirst();
  return row !== undefined;
}

/** Adds one failure to the address window unless it is full. Returns false when it is full. */
function countAddressFailure(db: Db, address: string, now: Date): Promise<boolean> {
  return countInWindow(db, addressKey(address), now, {
    max: THROTTLE.addressMaxFailures,
    windowMs: THROTTLE.addressWindowMs,
  });
}

/** Forgets the subject's failures (e.g. a password reset completed for a recovery e-mail). */
export async function forgetFailures(ctx: AppContext, subjectKey: string): Promise<void> {
  await ctx.db.deleteFrom('throttles').where('key', '=', subjectKey).execute();
}

/** A claimed attempt: it stays counted as a failure unless given back. */
export interface Attempt {
  /** The guess was right: the subject's failures are forgotten and the address gets its slot back. */
  succeeded(): Promise<void>;
  /** Neither right nor wrong (e.g. an MFA code is now due): both counters get their slot back. */
  released(): Promise<void>;
}

/**
 * Claims one attempt for the subject and the client address, in one transaction, before the
 * secret is checked. Throws 429 with Retry-After, counting nothing, when either is locked.
 */
export async function beginAttempt(ctx: AppContext, keys: ThrottleKeys): Promise<Attempt> {
  const now = ctx.clock.now();
  const claimed = await ctx.db
    .transaction()
    .execute(async (trx) => {
      if (!(await countSubjectFailure(trx, keys.subject, now))) return false;
      if (!(await countAddressFailure(trx, keys.address, now))) {
        throw new ClaimRefused();
      }
      return true;
    })
    .catch((error: unknown) => {
      if (error instanceof ClaimRefused) return false;
      throw error;
    });
  if (!claimed) {
    const wait = await retryAfterMs(ctx.db, keys, ctx.clock.now());
    throw tooManyAttempts(Math.max(wait, 1000) / 1000);
  }
  if (Math.random() < 0.01) await pruneThrottles(ctx).catch(() => undefined);

  let settled = false;
  const giveBackAddress = async () => {
    await ctx.db
      .updateTable('throttles')
      .set((eb) => ({ failures: eb('failures', '-', 1) }))
      .where('key', '=', addressKey(keys.address))
      .where('failures', '>', 0)
      .execute();
  };
  return {
    async succeeded() {
      if (settled) return;
      settled = true;
      await ctx.db.deleteFrom('throttles').where('key', '=', keys.subject).execute();
      await giveBackAddress();
    },
    async released() {
      if (settled) return;
      settled = true;
      const row = await ctx.db
        .updateTable('throttles')
        .set((eb) => ({ failures: eb('failures', '-', 1) }))
        .where('key', '=', keys.subject)
        .where('failures', '>', 0)
        .returning(['failures'])
        .executeTakeFirst();
      // The claim may have set a lock this attempt does not deserve; keep only the one owed.
      if (row && lockMsFor(row.failures) === 0) {
        await ctx.db.updateTable('throttles').set({ lockedUntil: null }).where('key', '=', keys.subject).execute();
      }
      await giveBackAddress();
    },
  };
}

class ClaimRefused extends Error {}

/** An error meaning the secret was never checked (e.g. the hashing queue was full). */
export interface Unchecked {
  readonly unchecked: true;
}
const wasUnchecked = (error: unknown) =>
  typeof error === 'object' && error !== null && (error as Partial<Unchecked>).unchecked === true;

/**
 * The gate: claims an attempt, then runs `check`. When `check` returns, the guess was right and
 * the claim is given back; when it throws, the claim stays a counted failure, unless the error
 * says the secret was never checked (the claim is then released). `check` may settle the attempt
 * itself first (e.g. `released()` when an MFA code is due instead).
 */
export async function guarded<T>(
  ctx: AppContext,
  keys: ThrottleKeys,
  check: (attempt: Attempt) => Promise<T>,
): Promise<T> {
  const attempt = await beginAttempt(ctx, keys);
  let result: T;
  try {
    result = await check(attempt);
  } catch (error) {
    if (wasUnchecked(error)) await attempt.released();
    throw error;
  }
  await attempt.succeeded();
  return result;
}

/**
 * Allows at most `max` events per `windowMs` and one per `minIntervalMs` for a key (e.g. MFA
 * codes sent to one phone). Counts the event when allowed; throws 429 otherwise.
 */
export async function claimRate(
  ctx: AppContext,
  key: string,
  limits: { max: number; windowMs: number; minIntervalMs: number },
): Promise<void> {
  const now = ctx.clock.now();
  if (await countInWindow(ctx.db, key, now, limits)) return;
  const current = await ctx.db.selectFrom('throttles').selectAll().where('key', '=', key).executeTakeFirst();
  let wait = limits.minIntervalMs;
  if (current) {
    const nextByInterval = new Date(current.lastFailureAt).getTime() + limits.minIntervalMs - now.getTime();
    const nextByWindow =
      current.failures >= limits.max ? new Date(current.firstFailureAt).getTime() + limits.windowMs - now.getTime() : 0;
    wait = Math.max(nextByInterval, nextByWindow, 1000);
  }
  throw tooManyAttempts(wait / 1000);
}

/** Forgets counters that can no longer lock anything. */
export async function pruneThrottles(ctx: AppContext): Promise<void> {
  const now = ctx.clock.now();
  const staleBefore = new Date(now.getTime() - THROTTLE.resetAfterMs).toISOString();
  await ctx.db
    .deleteFrom('throttles')
    .where('lastFailureAt', '<', staleBefore)
    .where((eb) => eb.or([eb('lockedUntil', 'is', null), eb('lockedUntil', '<', now.toISOString())]))
    .execute();
}
