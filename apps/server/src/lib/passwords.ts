import os from 'node:os';
import { hash, verify } from '@node-rs/argon2';
import { ServerMessage } from '@portal/shared/errors';
import { AppError } from './errors.js';

// Algorithm.Argon2id (a const enum, which isolated modules cannot import).
const ARGON2ID = 2;

/** argon2id, m=19 MiB, t=2, p=1 (OWASP's recommended minimum). */
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

/*
 * Every argon2 run of the process goes through one bounded queue. argon2 runs on libuv's thread
 * pool (four threads by default): a burst of sign-ins would otherwise keep every core busy and
 * make every other request, `/healthz` included, wait behind it. At most `concurrency` hashes run
 * at once (by default one core is left to the event loop) and at most `maxQueued` wait; beyond
 * that the call is refused at once with 503 and a Retry-After estimated from the queue.
 */
export interface HashingLimits {
  concurrency: number;
  maxQueued: number;
}

export const defaultHashingLimits = (): HashingLimits => {
  const concurrency = Math.max(1, os.availableParallelism() - 1);
  return { concurrency, maxQueued: 32 * concurrency };
};

/** 503: the hashing queue is full. The secret was not checked, so the attempt gate releases it. */
export class HashingBusy extends AppError {
  readonly unchecked = true as const;
  constructor(retryAfterSeconds: number) {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    super(503, ServerMessage.serverBusy, { retryAfter: seconds }, { 'retry-after': String(seconds) });
    this.name = 'HashingBusy';
  }
}

class HashingQueue {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  /** A moving average of one run, for the Retry-After estimate. */
  private averageMs = 50;
  /** argon2 runs started since the process began. */
  private runs = 0;

  constructor(private limits: HashingLimits) {}

  configure(limits: HashingLimits): void {
    this.limits = limits;
    this.next();
  }

  stats() {
    return { running: this.running, queued: this.waiting.length, runs: this.runs, ...this.limits };
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limits.concurrency) {
      if (this.waiting.length >= this.limits.maxQueued) {
        const drainMs = ((this.waiting.length + 1) * this.averageMs) / this.limits.concurrency;
        throw new HashingBusy(drainMs / 1000);
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    this.runs++;
    const started = performance.now();
    try {
      return await task();
    } finally {
      this.averageMs = this.averageMs * 0.8 + (performance.now() - started) * 0.2;
      this.running--;
      this.next();
    }
  }

  /** Hands free slots to the oldest waiting calls (a slot passes on without going idle). */
  private next(): void {
    while (this.running < this.limits.concurrency && this.waiting.length > 0) {
      this.running++;
      this.waiting.shift()!();
    }
  }
}

const queue = new HashingQueue(defaultHashingLimits());

/** Sets the process's hashing limits (HASH_CONCURRENCY, HASH_QUEUE_MAX). */
export function configureHashing(limits: HashingLimits): void {
  queue.configure(limits);
}

/**
 * Runs a task in one of the queue's slots (what every hash does). Tests use it to hold the slot
 * until a burst of guesses has reached the server.
 */
export function inHashingSlot<T>(task: () => Promise<T>): Promise<T> {
  return queue.run(task);
}

/** Running and waiting hashes, and the limits (for tests and the benchmark). */
export const hashingStats = () => queue.stats();

/** Throws HashingBusy (503) when the queue is full. */
export function hashPassword(password: string): Promise<string> {
  return queue.run(() => hash(password, OPTIONS));
}

/**
 * What a secret that nothing may open is stored as (a protocol that came without a password): it
 * is no argon2 hash, so no password matches it, and writing it costs no hashing.
 */
export const LOCKED_PASSWORD_HASH = '!locked';

let dummyHash: Promise<string> | undefined;

/** A malformed stored hash is a mismatch, never an error. */
const checkAgainst = (storedHash: string, password: string): Promise<boolean> =>
  Promise.resolve()
    .then(() => verify(storedHash, password))
    .catch(() => false);

/**
 * Verifies a password against a stored hash. With no hash (unknown account or protocol) or a
 * locked one it still spends the same time on a dummy hash, so timing does not tell which accounts
 * exist or have a password. Throws HashingBusy (503) when the queue is full.
 */
export async function verifyPassword(storedHash: string | null | undefined, password: string): Promise<boolean> {
  if (!storedHash || storedHash === LOCKED_PASSWORD_HASH) {
    dummyHash ??= hash('not-a-real-password', OPTIONS);
    const dummy = await dummyHash;
    await queue.run(() => checkAgainst(dummy, password));
    return false;
  }
  return queue.run(() => checkAgainst(storedHash, password));
}
