import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { lastLinkTo, makeInstitution, makeUser } from './test-factories.js';

/** The administration API of the physicians an institution vouches for (docs/security.md). */
describe('physicians vouched for per institution (administration API)', () => {
  let portal: TestPortal;
  let clinic: Awaited<ReturnType<typeof makeInstitution>>;
  let partner: Awaited<ReturnType<typeof makeInstitution>>;
  let admin: string;
  let staff: string;
  let doctorId: string;

  beforeAll(async () => {
    portal = await startTestPortal();
    clinic = await makeInstitution(portal.ctx, { code: 'VOUCH' });
    partner = await makeInstitution(portal.ctx, { code: 'PARTNER' });
    const adminUser = await makeUser(portal.ctx, { type: 'ADMIN' });
    const staffUser = await makeUser(portal.ctx, { type: 'COMPANY', institutionId: clinic.id });
    admin = await portal.sessionFor({ role: 'ADMIN', userId: adminUser.id, username: adminUser.email });
    staff = await portal.sessionFor({ role: 'COMPANY', userId: staffUser.id, username: staffUser.email });
    // A physician invited by the clinic's staff: the clinic vouches for him once he signs up.
    const invite = await send('POST', '/api/administrationbe/physician/invite', staff, {
      email: 'dra.luz@mail.test',
      name: 'Dra Luz',
      crm: '4321',
      uf: 'MG',
      institutionId: clinic.id,
    });
    expect(invite.statusCode, invite.body).toBe(201);
    const link = await lastLinkTo(portal.ctx, 'dra.luz@mail.test');
    const created = await send('POST', '/api/v2/auth/physician/create', null, {
      token: link.searchParams.get('token'),
      fullName: 'Dra Luz',
      password: 'Estetoscopio#9',
    });
    expect(created.statusCode, created.body).toBe(201);
    doctorId = created.json().data.id;
  });
  afterAll(async () => portal?.destroy());

  function send(method: 'GET' | 'POST' | 'DELETE', url: string, token: string | null, payload?: object) {
    return portal.app.inject({ method, url, headers: token ? bearer(token) : {}, ...(payload ? { payload } : {}) });
  }
  const physicians = (institutionId: string) => `/api/administrationbe/institution/${institutionId}/physicians`;
  const audits = async (event: string) =>
    (
      await portal.ctx.db
        .selectFrom('auditEvents')
        .select(['tenant', 'macro'])
        .where('event', '=', event)
        .orderBy('id')
        .execute()
    ).map((a) => ({ tenant: a.tenant, macro: JSON.parse(String(a.macro)) }));

  it('lists the physicians the inviting institution vouches for', async () => {
    const list = await send('GET', physicians(clinic.id), staff);
    expect(list.statusCode).toBe(200);
    expect(list.json().data).toEqual([
      {
        id: doctorId,
        name: 'Dra Luz',
        email: 'dra.luz@mail.test',
        crm: '4321',
        uf: 'MG',
        active: true,
        vouchedAt: expect.any(String),
      },
    ]);
    expect((await send('GET', physicians(partner.id), admin)).json().data).toEqual([]);
  });

  it('adds a physician by e-mail or id (201 new, 200 again), audited, for admins anywhere', async () => {
    const first = await send('POST', physicians(partner.id), admin, { email: 'DRA.LUZ@mail.test' });
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().data).toMatchObject({ id: doctorId, crm: '4321', uf: 'MG' });
    const again = await send('POST', physicians(partner.id), admin, { userId: doctorId });
    expect(again.statusCode).toBe(200);
    expect(await audits('PHYSICIAN_VOUCHED')).toEqual([{ tenant: 'PARTNER', macro: { userId: doctorId } }]);
  });

  it('refuses what is not a physician account, and bodies naming none or both', async () => {
    const patient = await makeUser(portal.ctx, { type: 'PATIENT', email: 'paciente@mail.test' });
    for (const body of [{ email: 'paciente@mail.test' }, { userId: patient.id }, { email: 'nobody@mail.test' }]) {
      const res = await send('POST', physicians(clinic.id), staff, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(404);
      expect(res.json()).toEqual({ message: 'User not found.' });
    }
    for (const body of [{}, { email: 'dra.luz@mail.test', userId: doctorId }]) {
      expect((await send('POST', physicians(clinic.id), staff, body)).statusCode).toBe(400);
    }
  });

  it("keeps company users to their own institution's list (404 elsewhere); other roles 403, anonymous 401", async () => {
    expect((await send('GET', physicians(partner.id), staff)).statusCode).toBe(404);
    expect((await send('POST', physicians(partner.id), staff, { userId: doctorId })).statusCode).toBe(404);
    expect((await send('DELETE', `${physicians(partner.id)}/${doctorId}`, staff)).statusCode).toBe(404);
    const doctor = await portal.sessionFor({ role: 'PHYSICIAN', userId: doctorId, username: 'dra.luz@mail.test' });
    expect((await send('GET', physicians(clinic.id), doctor)).statusCode).toBe(403);
    expect((await send('POST', physicians(clinic.id), doctor, { userId: doctorId })).statusCode).toBe(403);
    expect((await send('GET', physicians(clinic.id), null)).statusCode).toBe(401);
    expect((await send('GET', physicians('no-such-institution'), admin)).statusCode).toBe(404);
  });

  it('removes a vouch once (404 after), audited', async () => {
    const url = `${physicians(partner.id)}/${doctorId}`;
    const removed = await send('DELETE', url, admin);
    expect(removed.statusCode).toBe(200);
    expect(removed.json()).toEqual({ data: true });
    expect((await send('DELETE', url, admin)).statusCode).toBe(404);
    expect((await send('GET', physicians(partner.id), admin)).json().data).toEqual([]);
    expect((await send('GET', physicians(clinic.id), staff)).json().data).toHaveLength(1);
    expect(await audits('PHYSICIAN_UNVOUCHED')).toEqual([{ tenant: 'PARTNER', macro: { userId: doctorId } }]);
  });

  it('documents the three operations in the OpenAPI document', async () => {
    const doc = (await send('GET', '/api/docs/openapi.json', null)).json();
    const path = doc.paths['/api/administrationbe/institution/{id}/physicians'];
    expect(Object.keys(path).sort()).toEqual(['get', 'post']);
    expect(path.post.summary).toBeTruthy();
    expect(doc.paths['/api/administrationbe/institution/{id}/physicians/{userId}'].delete.tags).toEqual([
      'Administration',
    ]);
  });
});
