import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { makeInstitution, makeUser } from './test-factories.js';

describe('patient record, e-mail frequency and institution pages', () => {
  let portal: TestPortal;
  beforeAll(async () => {
    portal = await startTestPortal();
  });
  afterAll(async () => portal?.destroy());

  const signIn = async (user: { id: string; email: string }, role: 'PATIENT' | 'ADMIN' = 'PATIENT') =>
    portal.sessionFor({ role, userId: user.id, username: user.email });

  it('edits the patient record and flags it complete once name, CPF, birth, phone and gender are there', async () => {
    const user = await makeUser(portal.ctx, { email: 'record@mail.test' });
    const token = await signIn(user);
    const first = await portal.app.inject({ method: 'GET', url: '/api/v2/auth/user/me', headers: bearer(token) });
    expect(first.json().data).toMatchObject({ complete: false, documents: [], phones: [] });

    const edit = await portal.app.inject({
      method: 'POST',
      url: '/api/v2/auth/user/edit',
      headers: bearer(token),
      payload: {
        name: 'Joana Souza Lima',
        documents: [{ type: { code: 'CPF' }, number: '52998224725' }],
        birth: '09/03/1991',
        gender: 'FEMALE',
        phones: [{ number: '(21) 99876-5432', type: 'CELULAR' }],
        frequencyReceiveEmail: 'WEEK',
      },
    });
    expect(edit.statusCode).toBe(200);
    expect(edit.json().data).toMatchObject({
      name: 'Joana Souza Lima',
      documents: [{ type: { code: 'CPF' }, number: '529.982.247-25' }],
      birth: '1991-03-09',
      gender: 'FEMALE',
      phones: [{ number: '21998765432', type: 'CELULAR' }],
      frequencyReceiveEmail: 'WEEK',
      complete: true,
      missing: [],
    });

    const partial = await portal.app.inject({
      method: 'POST',
      url: '/api/v2/auth/user/edit',
      headers: bearer(token),
      payload: { frequencyReceiveEmail: 'DISABLED' },
    });
    expect(partial.json().data).toMatchObject({ complete: true, frequencyReceiveEmail: 'DISABLED', gender: 'FEMALE' });
  });

  it('refuses a CPF of another account, a bad CPF, a bad phone and a bad gender', async () => {
    await makeUser(portal.ctx, { cpf: '11144477735' });
    const user = await makeUser(portal.ctx);
    const token = await signIn(user);
    const edit = (payload: Record<string, unknown>) =>
      portal.app.inject({ method: 'POST', url: '/api/v2/auth/user/edit', headers: bearer(token), payload });
    const taken = await edit({ documents: [{ type: { code: 'CPF' }, number: '111.444.777-35' }] });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().message).toBe('This Document is already associated with another user.');
    const bad = await edit({ documents: [{ type: { code: 'CPF' }, number: '111.111.111-11' }] });
    expect(bad.json().message).toBe('CPF invalid. Must be have 11 numbers.');
    expect((await edit({ phones: [{ number: '123', type: 'CELULAR' }] })).statusCode).toBe(400);
    expect((await edit({ gender: 'X' })).statusCode).toBe(400);
    expect((await edit({ birth: '2001-13-01' })).statusCode).toBe(400);
  });

  it('answers the e-mail frequency of the caller only (admins may ask about anyone)', async () => {
    const user = await makeUser(portal.ctx, { email: 'freq@mail.test' });
    const someone = await makeUser(portal.ctx);
    const token = await signIn(user);
    const ask = (payload: Record<string, unknown>, auth = token) =>
      portal.app.inject({
        method: 'POST',
        url: '/api/v2/auth/user/getEmailFrequencyOfUser',
        headers: bearer(auth),
        payload,
      });
    expect((await ask({ userId: user.id, email: user.email, userType: 'PATIENT' })).json()).toEqual({
      data: 'DEFAULT',
    });
    expect((await ask({ userId: someone.id })).statusCode).toBe(404);
    const adminUser = await makeUser(portal.ctx, { type: 'ADMIN' });
    expect((await ask({ userId: someone.id }, await signIn(adminUser, 'ADMIN'))).json()).toEqual({ data: 'DEFAULT' });
  });

  it('serves the branded login page by code in any case, the public institution and its public settings', async () => {
    const institution = await makeInstitution(portal.ctx, {
      code: 'LABSUL',
      name: 'Laboratório Sul',
      settings: { shareEnabled: false, smart: { url: 'https://smart.test', secret: 'do-not-show-this-secret' } },
    });
    const page = await portal.app.inject({
      method: 'GET',
      url: '/api/v2/auth/institution/customLoginPage?code=labsul',
    });
    expect(page.statusCode).toBe(200);
    expect(page.json().data).toEqual({
      name: 'Laboratório Sul',
      logoPath: '/logos/clinic.png',
      viewType: 1,
      supportEmail: 'support@clinic.test',
      supportPhoneNumber: '1133334444',
      supportWhatsAppNumber: '11987654321',
    });
    const unknown = await portal.app.inject({
      method: 'GET',
      url: '/api/v2/auth/institution/customLoginPage?code=NOPE',
    });
    expect(unknown.statusCode).toBe(404);

    const byId = await portal.app.inject({
      method: 'GET',
      url: `/api/v2/auth/institution/getById?id=${institution.id}`,
    });
    expect(byId.json().data).toMatchObject({ id: institution.id, code: 'LABSUL' });
    expect(byId.body).not.toContain('apiKey');

    const setting = (name: string) =>
      portal.app.inject({ method: 'GET', url: `/api/v2/auth/institution/${institution.id}/setting/${name}` });
    expect((await setting('shareEnabled')).json()).toEqual({ data: false });
    expect((await setting('createAccountDefaultDisabled')).json()).toEqual({ data: false });
    const secret = await setting('smart');
    expect(secret.statusCode).toBe(404);
    expect(secret.body).not.toContain('do-not-show-this-secret');
  });
});
