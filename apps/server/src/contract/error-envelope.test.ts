import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { startTestPortal, type TestPortal } from '../test/helpers.js';

/** Contract 2: every failure is `{"message": <text>, "data"?: <detail>}`, whoever refuses it. */
function expectEnvelope(res: LightMyRequestResponse, what: string): void {
  expect(res.statusCode, what).toBeGreaterThanOrEqual(400);
  expect(res.headers['content-type'], what).toMatch(/^application\/json/);
  const body = res.json<Record<string, unknown>>();
  expect(typeof body.message, `${what}: ${res.body}`).toBe('string');
  expect(
    Object.keys(body).filter((k) => k !== 'message' && k !== 'data'),
    `${what}: ${res.body}`,
  ).toEqual([]);
  expect(res.headers['cache-control'], what).toBe('no-store');
}

describe('every error answers the envelope (contract 2 and 8)', () => {
  let portal: TestPortal;
  let paths: Array<{ method: string; path: string }>;

  beforeAll(async () => {
    portal = await startTestPortal();
    const doc = (await portal.app.inject({ url: '/api/docs/openapi.json' })).json<{ paths: Record<string, object> }>();
    paths = Object.entries(doc.paths)
      .filter(([path]) => path.includes('{'))
      .flatMap(([path, operations]) =>
        Object.keys(operations).map((method) => ({ method: method.toUpperCase(), path })),
      );
  });
  afterAll(async () => portal?.destroy());

  it('answers a path parameter too long for the router (414) in the envelope, on every route with one', async () => {
    expect(paths.length).toBeGreaterThan(10);
    const long = 'x'.repeat(600);
    for (const { method, path } of paths) {
      const url = path.replace(/\{[^}]+\}/g, long);
      const res = await portal.app.inject({ method: method as 'GET', url });
      expectEnvelope(res, `${method} ${path}`);
      expect(res.statusCode, `${method} ${path}`).toBe(414);
      // The refused address is not echoed back (it may hold a token).
      expect(res.body).not.toContain(long);
    }
  });

  it('answers a malformed address, a broken JSON body, an unknown call and a long parameter in the envelope', async () => {
    const cases: Array<
      [string, { method: string; url: string; payload?: string; headers?: Record<string, string> }, number]
    > = [
      ['malformed percent-escape', { method: 'GET', url: '/api/%E0%A4%A' }, 400],
      [
        'broken JSON',
        {
          method: 'POST',
          url: '/api/v2/auth/login',
          payload: '{"userName":',
          headers: { 'content-type': 'application/json' },
        },
        400,
      ],
      ['unknown call', { method: 'GET', url: '/api/v2/no/such/call' }, 404],
      ['unknown method', { method: 'PATCH', url: '/api/v2/auth/login' }, 404],
      [
        'query over its bound',
        { method: 'GET', url: `/api/v2/auth/institution/customLoginPage?code=${'c'.repeat(5000)}` },
        400,
      ],
      [
        'parameter over its bound',
        { method: 'GET', url: `/api/administrationbe/institution/${'y'.repeat(80)}/tags` },
        400,
      ],
      ['no session', { method: 'GET', url: '/api/v2/auth/validate' }, 401],
    ];
    for (const [what, request, status] of cases) {
      const res = await portal.app.inject(request as never);
      expectEnvelope(res, what);
      expect(res.statusCode, `${what}: ${res.body}`).toBe(status);
    }
  });
});
