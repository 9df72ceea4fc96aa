import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPortal, type TestPortal } from '../../test/helpers.js';

describe('health and request rules', () => {
  let portal: TestPortal;
  beforeAll(async () => {
    portal = await startTestPortal();
  });
  afterAll(async () => portal?.destroy());

  it('answers healthz and readyz outside the envelope once migrated', async () => {
    const health = await portal.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });
    const ready = await portal.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ok' });
  });

  it('answers unknown API paths with a JSON 404 that is never cached', async () => {
    const res = await portal.app.inject({ method: 'GET', url: '/api/v2/nothing-here' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json()).toEqual({ message: 'Not found.' });
  });

  it('sends the security headers', async () => {
    const res = await portal.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(String(res.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
  });

  it('refuses a missing, tampered or revoked token with 401', async () => {
    const token = await portal.sessionFor({ role: 'GUEST', username: '123' });
    const tampered = `${token.slice(0, -3)}${token.endsWith('a') ? 'bbb' : 'aaa'}`;
    const { verifyAccessToken } = await import('../../plugins/auth.js');
    await expect(verifyAccessToken(portal.ctx, tampered)).rejects.toMatchObject({ statusCode: 401 });
    const unsigned = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${token.split('.')[1]}.`;
    await expect(verifyAccessToken(portal.ctx, unsigned)).rejects.toMatchObject({ statusCode: 401 });
  });
});

describe('API reference', () => {
  let portal: TestPortal;
  beforeAll(async () => {
    portal = await startTestPortal();
  });
  afterAll(async () => portal?.destroy());

  it('serves the browsable reference at /api/docs and the OpenAPI document beside it (contract 9)', async () => {
    const page = await portal.app.inject({ method: 'GET', url: '/api/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('/api/docs/openapi.json');
    const res = await portal.app.inject({ method: 'GET', url: '/api/docs/openapi.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json().openapi).toMatch(/^3\./);
    expect(Object.keys(res.json().paths)).toEqual(
      expect.arrayContaining(['/api/v2/delivery/ingest/protocols/{number}', '/api/v2/auth/login']),
    );
    expect(Object.keys(res.json().paths).filter((p) => p.startsWith('/api/docs'))).toEqual([]);
  });
});
