import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { makeInstitution, makeProtocol, makeUser } from '../accounts/test-factories.js';

describe('service terms and privacy policy', () => {
  let portal: TestPortal;
  beforeAll(async () => {
    portal = await startTestPortal();
  });
  afterAll(async () => portal?.destroy());

  it('serves the current terms of a user type in the asked language', async () => {
    const res = await portal.app.inject({ method: 'GET', url: '/api/v2/delivery/term?userType=patient&language=ES' });
    expect(res.statusCode).toBe(200);
    const terms = res.json().data as Array<{ termType: string; data: string; language: string; version: number }>;
    expect(terms.map((t) => t.termType)).toEqual(['PP', 'TERMS']);
    const service = terms.find((t) => t.termType === 'TERMS');
    expect(service).toMatchObject({ language: 'es', version: 1 });
    expect(service?.data).toContain('Marco Civil da Internet');
    expect(service?.data).toContain('São Paulo');
    const pt = await portal.app.inject({ method: 'GET', url: '/api/v2/delivery/term' });
    expect(pt.json().data[1].data).toContain('pertencem ao paciente');
  });

  it('asks a user for the terms he has not accepted, records acceptance, and asks again for a new version', async () => {
    const user = await makeUser(portal.ctx);
    const token = await portal.sessionFor({ role: 'PATIENT', userId: user.id, username: user.email });
    const pending = async () =>
      (await portal.app.inject({ method: 'GET', url: '/api/v2/delivery/term/user', headers: bearer(token) })).json()
        .data as Array<{ id: string; termType: string; newTerm: boolean; data: string }>;

    const first = await pending();
    expect(first.map((t) => [t.termType, t.newTerm])).toEqual([
      ['PP', true],
      ['TERMS', true],
    ]);
    const accept = await portal.app.inject({
      method: 'POST',
      url: '/api/v2/delivery/term/user',
      headers: bearer(token),
      payload: { termIds: first.map((t) => t.id) },
    });
    expect(accept.statusCode).toBe(200);
    expect(accept.json().data.acceptedAt).toBe('2026-11-20T12:00:00.000Z');
    expect(await pending()).toEqual([]);

    await portal.ctx.db
      .insertInto('terms')
      .values({
        id: 'term-patient-pp-2',
        termType: 'PP',
        userType: 'PATIENT',
        version: 2,
        content: JSON.stringify({ 'pt-br': 'Nova política', es: 'Nueva política', en: 'New policy' }),
        createdAt: '2026-11-20T12:00:00.000Z',
      })
      .execute();
    const again = await pending();
    expect(again).toHaveLength(1);
    expect(again[0]).toMatchObject({ id: 'term-patient-pp-2', termType: 'PP', newTerm: true, data: 'Nova política' });

    const stale = await portal.app.inject({
      method: 'POST',
      url: '/api/v2/delivery/term/user',
      headers: bearer(token),
      payload: { termIds: ['term-patient-pp-1', 'term-physician-terms-1'] },
    });
    expect(stale.statusCode).toBe(400);
  });

  it('needs a session to read or accept one’s own terms; guests have none to accept', async () => {
    expect((await portal.app.inject({ method: 'GET', url: '/api/v2/delivery/term/user' })).statusCode).toBe(401);
    const protocol = await makeProtocol(portal.ctx, { institutionId: (await makeInstitution(portal.ctx)).id });
    const guest = await portal.sessionFor({ role: 'GUEST', username: protocol.number, protocolIds: [protocol.id] });
    const res = await portal.app.inject({ method: 'GET', url: '/api/v2/delivery/term/user', headers: bearer(guest) });
    expect(res.json()).toEqual({ data: [] });
  });
});
