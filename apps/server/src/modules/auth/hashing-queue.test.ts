import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashingStats, inHashingSlot } from '../../lib/passwords.js';
import { startTestPortal, type TestPortal } from '../../test/helpers.js';
import { type HttpCall, httpBurst, httpCall } from '../../test/http-client.js';
import { createInstitution, createProtocol, shutDown } from './auth.test-support.js';

/*
 * Password hashing runs through a bounded queue: here one hash at a time and two waiting. Right
 * passwords beyond that are answered 503 with Retry-After at once, without being checked, and
 * without counting as failures; other requests are not held up.
 */

const PROTOCOLS = 12;

describe('the hashing queue', () => {
  let portal: TestPortal;
  let base: string;
  let answered = 0;

  beforeAll(async () => {
    portal = await startTestPortal({ env: { HASH_CONCURRENCY: '1', HASH_QUEUE_MAX: '2' } });
    base = await portal.app.listen({ host: '127.0.0.1', port: 0 });
    portal.app.server.on('request', (_request: unknown, response: ServerResponse) =>
      response.on('finish', () => answered++),
    );
    const lab = await createInstitution(portal.ctx, 'HASHQ');
    for (let i = 0; i < PROTOCOLS; i++) {
      await createProtocol(portal.ctx, { institutionId: lab, number: `HQ-${i}`, password: `right-${i}` });
    }
  });
  afterAll(async () => {
    portal?.app.server.closeAllConnections();
    if (portal) await shutDown(portal);
  });

  const login = (i: number): HttpCall => ({
    path: '/api/v2/auth/login',
    body: { userName: `HQ-${i}`, password: `right-${i}`, appKey: 'login', dateOfBirth: '', tokenMFA: '' },
    from: `127.0.5.${i + 1}`,
  });

  it('answers 503 with Retry-After beyond the queue, counts nothing against those callers, and keeps /healthz answering', async () => {
    expect(hashingStats()).toMatchObject({ concurrency: 1, maxQueued: 2 });
    // The only slot is busy until every sign-in has arrived: two wait, the others are turned away.
    let open = () => {};
    const slot = inHashingSlot(() => new Promise<void>((resolve) => (open = resolve)));
    answered = 0;
    const sent = httpBurst(
      base,
      Array.from({ length: PROTOCOLS }, (_, i) => login(i)),
    );
    // Until every sign-in is either waiting in the queue or answered (bounded, never a hang).
    const deadline = Date.now() + 30_000;
    while (answered + hashingStats().queued < PROTOCOLS && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const health = await httpCall(base, { path: '/healthz' });
    expect(health.status).toBe(200);
    expect(hashingStats().queued).toBe(2);
    open();
    await slot;
    const answers = await sent;

    const served = answers.filter((a) => a.status === 200);
    const busy = answers.filter((a) => a.status === 503);
    expect(served).toHaveLength(2);
    expect(busy).toHaveLength(PROTOCOLS - 2);
    for (const answer of busy) {
      expect(answer.message).toBe('The server is busy. Try again in a moment.');
      expect(answer.retryAfter).toBeGreaterThanOrEqual(1);
    }

    // Nothing was counted: no subject nor the addresses hold a failure.
    const counters = await portal.ctx.db.selectFrom('throttles').select(['key', 'failures']).execute();
    expect(counters.filter((c) => c.failures > 0)).toEqual([]);
    // Each one turned away signs in when it tries again.
    for (let i = 0; i < PROTOCOLS; i++) {
      if (answers[i]!.status === 503) expect((await httpCall(base, login(i))).status).toBe(200);
    }
  });
});
