import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPortal, type TestPortal } from '../../test/helpers.js';
import { createAccount, createInstitution, createProtocol, postLogin, shutDown } from './auth.test-support.js';

const retryAfter = (res: LightMyRequestResponse) => Number(res.headers['retry-after']);

describe('throttling of sign-in guesses, shared by every server process', () => {
  let a: TestPortal;
  let b: TestPortal;
  let lab: string;

  beforeAll(async () => {
    a = await startTestPortal();
    // A second server on the same database and clock, as behind a load balancer.
    b = await startTestPortal({ reuse: { env: a.env }, clock: a.clock });
    lab = await createInstitution(a.ctx, 'THR');
    await createProtocol(a.ctx, { institutionId: lab, number: 'T-30', password: 'right-one' });
    await createProtocol(a.ctx, { institutionId: lab, number: 'T-12H', password: 'right-one' });
    await createProtocol(a.ctx, { institutionId: lab, number: 'T-PAR', password: 'right-one' });
    await createProtocol(a.ctx, { institutionId: lab, number: 'T-IP', password: 'right-one' });
    await createAccount(a.ctx, { type: 'PATIENT', email: 'locked@example.com', password: 'right-one' });
  });
  afterAll(async () => a && shutDown(a, ...(b ? [b] : [])));

  it('locks a protocol after repeated wrong passwords on either server, whatever the password', async () => {
    const statuses: number[] = [];
    let firstLock: LightMyRequestResponse | undefined;
    for (let i = 0; i < 30; i++) {
      const server = i % 2 === 0 ? a : b;
      const res = await postLogin(server.app, { userName: 'T-30', password: `guess-${i}` }, '10.2.0.1');
      statuses.push(res.statusCode);
      if (res.statusCode === 429 && !firstLock) firstLock = res;
    }
    // The 5th failure still answers 401; the lock applies from the next attempt.
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5)).toEqual(Array(25).fill(429));
    expect(firstLock?.json().message).toBe('Too many attempts. Try again later.');
    expect(retryAfter(firstLock!)).toBeGreaterThan(0);
    expect(retryAfter(firstLock!)).toBeLessThanOrEqual(60);

    for (const server of [a, b]) {
      const right = await postLogin(server.app, { userName: 'T-30', password: 'right-one' }, '10.2.0.1');
      expect(right.statusCode).toBe(429);
      expect(retryAfter(right)).toBeGreaterThan(0);
    }

    // The 25 answers of 429 did not count: the next failure is the 6th, locking for 2 minutes.
    a.clock.advance(61_000);
    const sixth = await postLogin(b.app, { userName: 'T-30', password: 'guess-again' }, '10.2.0.1');
    expect(sixth.statusCode).toBe(401);
    const locked = await postLogin(a.app, { userName: 'T-30', password: 'right-one' }, '10.2.0.1');
    expect(locked.statusCode).toBe(429);
    expect(retryAfter(locked)).toBeGreaterThan(60);
    expect(retryAfter(locked)).toBeLessThanOrEqual(120);

    a.clock.advance(121_000);
    const right = await postLogin(a.app, { userName: 'T-30', password: 'right-one' }, '10.2.0.1');
    expect(right.statusCode).toBe(200);
    // A success forgets the failures: four more wrong guesses are answered, not locked.
    for (let i = 0; i < 4; i++) {
      expect((await postLogin(b.app, { userName: 'T-30', password: `after-${i}` }, '10.2.0.1')).statusCode).toBe(401);
    }
  });

  it('locks accounts the same way, and forgets failures after 12 hours', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await postLogin(a.app, { userName: 'locked@example.com', password: `wrong-${i}` }, '10.2.0.2');
      expect(res.statusCode).toBe(401);
    }
    const locked = await postLogin(b.app, { userName: 'locked@example.com', password: 'right-one' }, '10.2.0.2');
    expect(locked.statusCode).toBe(429);

    for (let i = 0; i < 5; i++) {
      await postLogin(a.app, { userName: 'T-12H', password: `wrong-${i}` }, '10.2.0.2');
    }
    expect((await postLogin(a.app, { userName: 'T-12H', password: 'x' }, '10.2.0.2')).statusCode).toBe(429);
    a.clock.advance(12 * 3600_000 + 1000);
    // Counting starts again: four failures pass without a lock.
    for (let i = 0; i < 4; i++) {
      expect((await postLogin(b.app, { userName: 'T-12H', password: `later-${i}` }, '10.2.0.2')).statusCode).toBe(401);
    }
    expect((await postLogin(a.app, { userName: 'T-12H', password: 'right-one' }, '10.2.0.2')).statusCode).toBe(200);
  });

  it('lets no more than the free guesses through when they arrive all at once', async () => {
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        postLogin((i % 2 === 0 ? a : b).app, { userName: 'T-PAR', password: `burst-${i}` }, '10.2.0.3'),
      ),
    );
    const statuses = results.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(11);
  });

  it('caps failures per client address, unknown protocols included', async () => {
    const attacker = '10.2.0.66';
    for (let i = 0; i < 100; i++) {
      const res = await postLogin((i % 2 === 0 ? a : b).app, { userName: `NOPE-${i}`, password: 'x' }, attacker);
      expect(res.statusCode).toBe(404);
    }
    const blocked = await postLogin(a.app, { userName: 'T-IP', password: 'right-one' }, attacker);
    expect(blocked.statusCode).toBe(429);
    // Without TRUST_PROXY a forwarded-for header changes nothing: the socket's address counts.
    const disguised = await a.app.inject({
      method: 'POST',
      url: '/api/v2/auth/login',
      payload: { userName: 'T-IP', password: 'right-one', appKey: 'login' },
      remoteAddress: attacker,
      headers: { 'x-forwarded-for': '192.0.2.10' },
    });
    expect(disguised.statusCode).toBe(429);
    expect(retryAfter(blocked)).toBeGreaterThan(0);
    expect(retryAfter(blocked)).toBeLessThanOrEqual(15 * 60);
    // Another address is not affected.
    expect((await postLogin(b.app, { userName: 'T-IP', password: 'right-one' }, '10.2.0.67')).statusCode).toBe(200);
    a.clock.advance(15 * 60_000 + 1000);
    expect((await postLogin(a.app, { userName: 'T-IP', password: 'right-one' }, attacker)).statusCode).toBe(200);
  });
});
