import type { Db } from '../../db/database.js';
import type { OutboxTable } from '../../db/schema.js';

export type OutboxChannel = 'EMAIL' | 'SMS';
export type OutboxStatus = 'PENDING' | 'SENT' | 'DEAD';

export interface OutboxMessage {
  id: string;
  channel: OutboxChannel;
  recipient: string;
  subject: string | null;
  payload: string;
  attempts: number;
  createdAt: string;
  /** When the secret the message carries dies; null when it carries none. */
  expiresAt: string | null;
}

/** Inserts a message; with a dedupe key already present nothing is inserted and false comes back. */
export async function insertMessage(db: Db, row: OutboxTable): Promise<boolean> {
  const result = await db
    .insertInto('outbox')
    .values(row)
    .onConflict((oc) => oc.column('dedupeKey').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Messages due now on the given channels, oldest due first (index outbox_due). */
export async function findDueMessages(
  db: Db,
  now: string,
  channels: OutboxChannel[],
  limit: number,
): Promise<OutboxMessage[]> {
  if (channels.length === 0) return [];
  const rows = await db
    .selectFrom('outbox')
    .select(['id', 'channel', 'recipient', 'subject', 'payload', 'attempts', 'createdAt', 'expiresAt'])
    .where('status', '=', 'PENDING')
    .where('nextAttemptAt', '<=', now)
    .where('channel', 'in', channels)
    .where((eb) => eb.or([eb('lockedUntil', 'is', null), eb('lockedUntil', '<=', now)]))
    .orderBy('nextAttemptAt')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ ...r, channel: r.channel as OutboxChannel }));
}

/**
 * Takes a message for one sender until `leaseUntil`. The condition is checked by the database in
 * the same statement as the write, so of two processes racing for a row exactly one wins.
 */
export async function claimMessage(db: Db, id: string, now: string, leaseUntil: string): Promise<boolean> {
  const result = await db
    .updateTable('outbox')
    .set({ lockedUntil: leaseUntil })
    .where('id', '=', id)
    .where('status', '=', 'PENDING')
    .where('nextAttemptAt', '<=', now)
    .where((eb) => eb.or([eb('lockedUntil', 'is', null), eb('lockedUntil', '<=', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Marks a message sent and releases it in one statement; `payload` replaces the stored one. */
export async function markSent(db: Db, id: string, now: string, payload: string): Promise<void> {
  await db
    .updateTable('outbox')
    .set({ status: 'SENT', sentAt: now, lockedUntil: null, lastError: null, payload })
    .where('id', '=', id)
    .execute();
}

/** Records a failed attempt: back to PENDING with its next time, or DEAD (with its text wiped when given). */
export async function markFailed(
  db: Db,
  id: string,
  update: { attempts: number; nextAttemptAt: string; lastError: string; status: OutboxStatus; payload?: string },
): Promise<void> {
  await db
    .updateTable('outbox')
    .set({ ...update, lockedUntil: null })
    .where('id', '=', id)
    .execute();
}

/** Puts given-up messages back in line, as new; answers how many. */
export async function requeueDeadMessages(db: Db, now: string): Promise<number> {
  const result = await db
    .updateTable('outbox')
    .set({ status: 'PENDING', attempts: 0, nextAttemptAt: now, lockedUntil: null })
    .where('status', '=', 'DEAD')
    // A message whose secret was wiped has nothing left to send.
    .where('expiresAt', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Waiting messages whose one-time link or code has died (index outbox_expires), a batch at a time. */
export async function findExpiredMessages(db: Db, now: string, limit: number) {
  return db
    .selectFrom('outbox')
    .select(['id', 'channel', 'payload'])
    .where('expiresAt', '<=', now)
    .where('status', '=', 'PENDING')
    .orderBy('expiresAt')
    .limit(limit)
    .execute();
}

/** Gives up a waiting message whose secret died, keeping `payload` (its kind) instead of its text. */
export async function markExpired(db: Db, id: string, payload: string): Promise<void> {
  await db
    .updateTable('outbox')
    .set({ status: 'DEAD', payload, lockedUntil: null, lastError: 'expired before it could be sent' })
    .where('id', '=', id)
    .where('status', '=', 'PENDING')
    .execute();
}
