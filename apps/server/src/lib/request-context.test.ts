import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { currentRequestId, trackRequests } from './request-context.js';
import { startTestPortal, type TestPortal } from '../test/helpers.js';

const ADMIN = { ADMIN_EMAIL: 'admin@clinica.test', ADMIN_PASSWORD: 'admin-pass-1' };

let portal: TestPortal | undefined;
afterEach(async () => {
  await portal?.destroy();
  portal = undefined;
});

function lines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('log lines of a request', () => {
  it('all carry its id, those written by services included, once per line', async () => {
    portal = await startTestPortal({ env: ADMIN });
    const before = portal.logs().length;
    const answer = await portal.app.inject({
      method: 'POST',
      url: `/api/auth/password/forgotPassword?username=${encodeURIComponent(ADMIN.ADMIN_EMAIL)}`,
    });
    expect(answer.statusCode).toBe(200);
    const id = answer.headers['x-request-id'];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);

    const written = lines(portal.logs().slice(before));
    const queued = written.find((l) => String(l.msg).includes('waits in the outbox'));
    expect(queued, 'the outbox service logs the queued mail').toBeDefined();
    expect(written.length).toBeGreaterThanOrEqual(3);
    for (const line of written) expect(line.reqId, JSON.stringify(line)).toBe(id);
    // pino writes a key twice when a binding and the mixin both give it: the raw text has it once.
    for (const raw of portal.logs().slice(before).split('\n').filter(Boolean)) {
      expect(raw.match(/"reqId"/g)).toHaveLength(1);
    }
  });

  it('differ between requests, also when they overlap', async () => {
    portal = await startTestPortal();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => portal!.app.inject({ method: 'GET', url: '/healthz' })),
    );
    const ids = answers.map((a) => a.headers['x-request-id']);
    expect(new Set(ids).size).toBe(20);
  });
});

describe('the request context', () => {
  it('reaches handlers of requests with a body, across awaits, for 30 requests in flight', async () => {
    const app = Fastify({ genReqId: () => randomUUID() });
    trackRequests(app);
    app.post('/echo', async (request) => {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20));
      return { seen: currentRequestId(), own: request.id };
    });
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const answers = await Promise.all(
        Array.from({ length: 30 }, async (_, i) => {
          const res = await fetch(`${base}/echo`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ n: i, text: 'x'.repeat(100_000) }),
          });
          return (await res.json()) as { seen: string; own: string };
        }),
      );
      for (const body of answers) expect(body.seen).toBe(body.own);
      expect(currentRequestId()).toBeUndefined();
    } finally {
      await app.close();
    }
  });
});

describe('LOG_FORMAT=pretty', () => {
  it('writes readable lines with the level, the message and the request id', async () => {
    portal = await startTestPortal({ env: { LOG_FORMAT: 'pretty' } });
    const answer = await portal.app.inject({ method: 'GET', url: '/healthz' });
    const id = String(answer.headers['x-request-id']);
    const text = portal.logs();
    expect(text).toContain('INFO');
    expect(text).toContain('request completed');
    expect(text).toContain(`reqId: "${id}"`);
    expect(() => JSON.parse(text.split('\n')[0] ?? '')).toThrow();
  });

  it('is refused when misspelled', () => {
    expect(() => loadConfig({ LOG_FORMAT: 'colour' })).toThrow(/LOG_FORMAT/);
  });
});
