import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { lastLinkTo, makeInstitution, makeProtocol, makeUser } from './test-factories.js';

/**
 * `createAccountDefaultDisabled`: the accounts an institution's invitations and protocols bring
 * start disabled, sign-in says they wait for the institution, and the institution enables them.
 */
describe('accounts held until their institution enables them', () => {
  let portal: TestPortal;
  let holding: Awaited<ReturnType<typeof makeInstitution>>;
  let open: Awaited<ReturnType<typeof makeInstitution>>;
  let admin: string;
  let company: string;
  let otherCompany: string;
  const apiKey = 'chave-retem-123456';

  const post = (url: string, token: string | null, payload: Record<string, unknown>) =>
    portal.app.inject({ method: 'POST', url, payload, headers: token ? bearer(token) : {} });
  const login = (userName: string, password: string) =>
    post('/api/v2/auth/login', null, { userName, password, dateOfBirth: '', appKey: 'login' });
  const patient = (email: string, extra: Record<string, unknown> = {}) => ({
    name: 'Paula Souza',
    login: email,
    confirmEmailAddress: email,
    password: 'Gaivota-Azul-7',
    confirmPassword: 'Gaivota-Azul-7',
    dateOfBirth: '17/05/1980',
    language: 'pt-br',
    serviceTerms: true,
    ...extra,
  });
  const account = (email: string) =>
    portal.ctx.db
      .selectFrom('users')
      .select(['id', 'disabled', 'active', 'awaitingInstitutionId'])
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
  const tokenStatus = (email: string, kind: string) =>
    portal.ctx.db
      .selectFrom('oneTimeTokens')
      .select('status')
      .where('email', '=', email)
      .where('kind', '=', kind as never)
      .executeTakeFirstOrThrow();
  const setDisabled = (id: string, token: string, disabled: boolean) =>
    portal.app.inject({
      method: 'PUT',
      url: `/api/administrationbe/accounts/${id}/disabled`,
      payload: { disabled },
      headers: bearer(token),
    });

  beforeAll(async () => {
    portal = await startTestPortal();
    holding = await makeInstitution(portal.ctx, {
      code: 'RETEM',
      settings: { createAccountDefaultDisabled: true },
      apiKey,
    });
    open = await makeInstitution(portal.ctx, { code: 'ABERTA' });
    const session = async (type: 'ADMIN' | 'COMPANY', email: string, institutionId?: string) => {
      const user = await makeUser(portal.ctx, { type, email, institutionId });
      return portal.sessionFor({
        role: type,
        userId: user.id,
        username: user.email,
        appKey: 'admin',
      });
    };
    admin = await session('ADMIN', 'admin@portal.test');
    company = await session('COMPANY', 'staff@retem.test', holding.id);
    otherCompany = await session('COMPANY', 'staff@aberta.test', open.id);
  });
  afterAll(async () => portal?.destroy());

  it('holds a patient who signs up with that institution’s protocol until its company user enables him', async () => {
    const protocol = await makeProtocol(portal.ctx, { institutionId: holding.id, password: 'senha-1' });
    const created = await post(
      '/api/v2/auth/user/create',
      null,
      patient('paula@mail.test', { protocol: protocol.number, protocolPassword: 'senha-1' }),
    );
    expect(created.statusCode).toBe(201);
    expect(created.json().data).toMatchObject({ active: false, awaitingInstitution: true });
    // The e-mail is still confirmed as usual; the account then waits for the institution.
    const activation = await lastLinkTo(portal.ctx, 'paula@mail.test');
    await portal.app.inject({ method: 'GET', url: `${activation.pathname}${activation.search}` });
    const held = await account('paula@mail.test');
    expect(held).toMatchObject({ disabled: 1, active: 1, awaitingInstitutionId: holding.id });
    const refused = await login('paula@mail.test', 'Gaivota-Azul-7');
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toBe("The account is awaiting the institution's approval!");
    // A wrong password never learns that the account exists and waits.
    expect((await login('paula@mail.test', 'wrong-password')).statusCode).toBe(401);

    // Another institution's company user neither sees nor enables the account.
    const foreignList = await portal.app.inject({
      method: 'GET',
      url: '/api/administrationbe/accounts?search=paula',
      headers: bearer(otherCompany),
    });
    expect(foreignList.json().data.items).toEqual([]);
    expect((await setDisabled(held.id, otherCompany, false)).statusCode).toBe(404);
    // The holding institution's company user finds it waiting and enables it.
    const list = await portal.app.inject({
      method: 'GET',
      url: '/api/administrationbe/accounts?search=paula',
      headers: bearer(company),
    });
    expect(list.json().data.items).toEqual([
      expect.objectContaining({
        id: held.id,
        type: 'PATIENT',
        state: 'DISABLED',
        awaitingInstitution: true,
        manageable: true,
      }),
    ]);
    expect((await setDisabled(held.id, company, false)).statusCode).toBe(200);
    expect(await account('paula@mail.test')).toMatchObject({ disabled: 0, awaitingInstitutionId: null });
    expect((await login('paula@mail.test', 'Gaivota-Azul-7')).statusCode).toBe(200);
    // Once enabled it is an ordinary patient: out of the company user's reach again.
    expect((await setDisabled(held.id, company, true)).statusCode).toBe(404);
  });

  it('holds an invited patient and an invited physician; the invitation is marked ON_CREATION', async () => {
    const protocol = await makeProtocol(portal.ctx, { institutionId: holding.id });
    await portal.ctx.db
      .updateTable('protocols')
      .set({ patientEmail: 'convidada@mail.test' })
      .where('id', '=', protocol.id)
      .execute();
    const invite = await portal.app.inject({
      method: 'POST',
      url: `/api/v2/delivery/ingest/protocols/${protocol.number}/invite`,
      headers: { 'x-api-key': apiKey },
    });
    expect(invite.statusCode).toBe(200);
    expect((await tokenStatus('convidada@mail.test', 'INVITE_PATIENT')).status).toBe('INVITE_SEND');
    const link = await lastLinkTo(portal.ctx, 'convidada@mail.test');
    const created = await post(
      '/api/v2/auth/user/create',
      null,
      patient('convidada@mail.test', { token: link.searchParams.get('token') }),
    );
    expect(created.statusCode).toBe(201);
    expect(created.json().data).toMatchObject({ active: true, awaitingInstitution: true });
    expect(await account('convidada@mail.test')).toMatchObject({ disabled: 1, awaitingInstitutionId: holding.id });
    expect((await tokenStatus('convidada@mail.test', 'INVITE_PATIENT')).status).toBe('ON_CREATION');

    for (const [institution, email, held] of [
      [holding, 'dra.retida@mail.test', true],
      [open, 'dr.livre@mail.test', false],
    ] as const) {
      const sent = await post('/api/administrationbe/physician/invite', admin, {
        email,
        name: 'Dra. Teste',
        crm: email.length.toString().padStart(5, '1'),
        uf: 'SP',
        institutionId: institution.id,
        language: 'pt-br',
      });
      expect(sent.statusCode).toBe(201);
      const physicianLink = await lastLinkTo(portal.ctx, email);
      const made = await post('/api/v2/auth/physician/create', null, {
        token: physicianLink.searchParams.get('token'),
        fullName: 'Dra. Teste',
        password: 'Estetoscopio#9',
        language: 'pt-br',
      });
      expect(made.statusCode).toBe(201);
      expect(made.json().data.awaitingInstitution).toBe(held);
      expect(await account(email)).toMatchObject({
        disabled: held ? 1 : 0,
        awaitingInstitutionId: held ? institution.id : null,
      });
      expect((await tokenStatus(email, 'INVITE_PHYSICIAN')).status).toBe('ON_CREATION');
      expect((await login(email, 'Estetoscopio#9')).statusCode).toBe(held ? 403 : 200);
    }
  });

  it('leaves accounts of institutions without the setting, and self-registrations without a protocol, enabled', async () => {
    const protocol = await makeProtocol(portal.ctx, { institutionId: open.id, password: 'senha-2' });
    const created = await post(
      '/api/v2/auth/user/create',
      null,
      patient('livre@mail.test', { protocol: protocol.number, protocolPassword: 'senha-2' }),
    );
    expect(created.json().data).toMatchObject({ awaitingInstitution: false });
    expect(await account('livre@mail.test')).toMatchObject({ disabled: 0, awaitingInstitutionId: null });
    const alone = await post('/api/v2/auth/user/create', null, patient('sozinha@mail.test'));
    expect(alone.json().data).toMatchObject({ awaitingInstitution: false });
    expect(await account('sozinha@mail.test')).toMatchObject({ disabled: 0, awaitingInstitutionId: null });
  });
});
