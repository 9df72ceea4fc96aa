import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { lastLinkTo, makeInstitution, makeUser } from '../accounts/test-factories.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const BASE = '/api/administrationbe';

/** Admins invite admins; invitations are listed, revoked and sent again from the console. */
describe('console invitations', () => {
  let portal: TestPortal;
  let own: Awaited<ReturnType<typeof makeInstitution>>;
  let other: Awaited<ReturnType<typeof makeInstitution>>;
  const tokens: Record<string, string> = {};
  const signIn: Record<string, () => Promise<string>> = {};
  const call = (method: Method, url: string, token: string | null, payload?: unknown) =>
    portal.app.inject({ method, url, headers: token ? bearer(token) : {}, ...(payload ? { payload } : {}) });
  /** Each mail gets its own instant, so "the last mail" is the last one on both databases. */
  const tick = () => portal.clock.advance(1000);

  const invitePhysician = async (token: string, email: string, institutionId: string) => {
    tick();
    return call('POST', `${BASE}/physician/invite`, token, {
      email,
      name: 'Dra Convidada',
      crm: '7777',
      uf: 'SP',
      institutionId,
      language: 'pt-br',
    });
  };
  const list = async (token: string, query = '') =>
    (await call('GET', `${BASE}/invitations${query}`, token)).json().data as {
      items: Array<{ id: string; kind: string; email: string; state: string; institution: { id: string } | null }>;
      total: number;
    };
  const idOf = async (email: string) => (await list(tokens.admin!)).items.find((i) => i.email === email)!.id;
  const auditOf = (event: string) =>
    portal.ctx.db.selectFrom('auditEvents').selectAll().where('event', '=', event).execute();

  beforeAll(async () => {
    portal = await startTestPortal();
    own = await makeInstitution(portal.ctx, { code: 'PROPRIA', name: 'Clinica Propria' });
    other = await makeInstitution(portal.ctx, { code: 'ALHEIA', name: 'Clinica Alheia' });
    const make = async (key: string, type: 'ADMIN' | 'COMPANY' | 'PATIENT' | 'PHYSICIAN' | 'EXTERNAL', i?: string) => {
      const user = await makeUser(portal.ctx, { type, institutionId: i ?? null, email: `${key}@portal.test` });
      signIn[key] = () => portal.sessionFor({ role: type, userId: user.id, username: user.email, appKey: 'admin' });
      tokens[key] = await signIn[key]!();
    };
    await make('admin', 'ADMIN');
    await make('company', 'COMPANY', own.id);
    await make('foreignCompany', 'COMPANY', other.id);
    await make('patient', 'PATIENT');
    await make('physician', 'PHYSICIAN', own.id);
    await make('external', 'EXTERNAL');
  });
  afterAll(async () => portal?.destroy());

  it('lets an admin invite an admin, who chooses a password and signs in to the console', async () => {
    tick();
    const sent = await call('POST', `${BASE}/admin/invite`, tokens.admin!, {
      email: 'Nova.Admin@Portal.test',
      name: 'Nova Admin',
      language: 'es',
    });
    expect(sent.statusCode).toBe(201);
    expect(sent.json().data).toMatchObject({ email: 'nova.admin@portal.test', status: 'INVITE_SEND' });

    const link = await lastLinkTo(portal.ctx, 'nova.admin@portal.test');
    expect(link.pathname).toBe('/admin/invitation');
    expect(link.searchParams.get('language')).toBe('es');
    const token = link.searchParams.get('token')!;
    const info = await call('GET', `/api/auth/admin/invite/validate?token=${token}`, null);
    expect(info.json().data).toEqual({ email: 'nova.admin@portal.test', name: 'Nova Admin' });

    const weak = await call('POST', '/api/auth/admin/create', null, {
      token,
      fullName: 'Nova Admin',
      password: 'abc',
      confirmPassword: 'abc',
    });
    expect(weak.statusCode).toBe(400);
    const created = await call('POST', '/api/auth/admin/create', null, {
      token,
      fullName: 'Nova Admin',
      password: 'Painel-Seguro-26',
      confirmPassword: 'Painel-Seguro-26',
    });
    expect(created.statusCode).toBe(201);
    const again = await call('POST', '/api/auth/admin/create', null, {
      token,
      fullName: 'Outra',
      password: 'Painel-Seguro-26',
      confirmPassword: 'Painel-Seguro-26',
    });
    expect(again.statusCode).toBe(404);

    const login = await call('POST', '/api/v2/auth/login', null, {
      userName: 'nova.admin@portal.test',
      password: 'Painel-Seguro-26',
      appKey: 'admin',
    });
    expect(login.statusCode).toBe(200);
    expect(login.json().data.user).toMatchObject({ isAdminType: true, isCompanyType: false });
    const patientApp = await call('POST', '/api/v2/auth/login', null, {
      userName: 'nova.admin@portal.test',
      password: 'Painel-Seguro-26',
      appKey: 'login',
    });
    expect(patientApp.statusCode).toBeGreaterThanOrEqual(400);

    const [invited] = await auditOf('ADMIN_INVITED');
    expect(invited).toMatchObject({ systemUserName: 'admin@portal.test', role: 'ADMIN' });
    expect(invited!.macro).toContain('nova.admin@portal.test');
    expect(await auditOf('ADMIN_CREATED')).toHaveLength(1);
  });

  it('refuses admin invitations to everyone but admins, and to an address that has an account', async () => {
    const body = { email: 'x@portal.test', name: 'X' };
    expect((await call('POST', `${BASE}/admin/invite`, null, body)).statusCode).toBe(401);
    for (const role of ['company', 'patient', 'physician', 'external']) {
      expect((await call('POST', `${BASE}/admin/invite`, tokens[role]!, body)).statusCode, role).toBe(403);
    }
    const taken = await call('POST', `${BASE}/admin/invite`, tokens.admin!, {
      email: 'company@portal.test',
      name: 'C',
    });
    expect(taken.statusCode).toBe(409);
  });

  it('lists invitations not taken up; company users only their institution’s physicians and company users', async () => {
    expect((await invitePhysician(tokens.company!, 'own.doc@mail.test', own.id)).statusCode).toBe(201);
    expect((await invitePhysician(tokens.admin!, 'foreign.doc@mail.test', other.id)).statusCode).toBe(201);
    tick();
    await call('POST', `${BASE}/company/invite`, tokens.admin!, {
      email: 'own.staff@mail.test',
      institutionId: own.id,
    });
    tick();
    await call('POST', `${BASE}/admin/invite`, tokens.admin!, { email: 'pending.admin@portal.test', name: 'P' });

    const all = await list(tokens.admin!);
    const emails = all.items.map((i) => i.email);
    expect(emails).toEqual(
      expect.arrayContaining([
        'own.doc@mail.test',
        'foreign.doc@mail.test',
        'own.staff@mail.test',
        'pending.admin@portal.test',
      ]),
    );
    // The accepted admin invitation became an account: it is not listed any more.
    expect(emails).not.toContain('nova.admin@portal.test');
    expect(all.items.every((i) => i.state === 'PENDING')).toBe(true);

    const mine = await list(tokens.company!);
    expect(mine.items.map((i) => i.email).sort()).toEqual(['own.doc@mail.test', 'own.staff@mail.test']);
    expect(mine.total).toBe(2);
    // Filters cannot widen the reach: another institution, or the admin kind, give nothing.
    expect((await list(tokens.company!, `?institutionId=${other.id}`)).total).toBe(0);
    expect((await list(tokens.company!, '?kind=ADMIN')).total).toBe(0);
    expect((await list(tokens.company!, '?search=foreign')).total).toBe(0);
    expect((await list(tokens.admin!, '?kind=ADMIN')).items.map((i) => i.email)).toEqual(['pending.admin@portal.test']);
    expect((await list(tokens.admin!, '?search=own.doc')).items).toHaveLength(1);

    for (const role of ['patient', 'physician', 'external']) {
      expect((await call('GET', `${BASE}/invitations`, tokens[role]!)).statusCode, role).toBe(403);
    }
    expect((await call('GET', `${BASE}/invitations`, null)).statusCode).toBe(401);
  });

  it('revokes an invitation: its link stops working, the list says so, the trail says who', async () => {
    const link = await lastLinkTo(portal.ctx, 'own.doc@mail.test');
    const token = link.searchParams.get('token')!;
    expect((await call('GET', `/api/v2/auth/physician/validate?token=${token}`, null)).statusCode).toBe(200);
    const id = await idOf('own.doc@mail.test');

    // Another institution's company user, and roles outside the console, cannot touch it.
    expect((await call('DELETE', `${BASE}/invitations/${id}`, tokens.foreignCompany!)).statusCode).toBe(404);
    for (const role of ['patient', 'physician', 'external']) {
      expect((await call('DELETE', `${BASE}/invitations/${id}`, tokens[role]!)).statusCode, role).toBe(403);
    }
    expect((await call('GET', `/api/v2/auth/physician/validate?token=${token}`, null)).statusCode).toBe(200);

    expect((await call('DELETE', `${BASE}/invitations/${id}`, tokens.company!)).statusCode).toBe(200);
    expect((await call('GET', `/api/v2/auth/physician/validate?token=${token}`, null)).statusCode).toBe(404);
    const create = await call('POST', '/api/v2/auth/physician/create', null, {
      token,
      fullName: 'Dra Convidada',
      password: 'Estetoscopio#9',
      language: 'pt-br',
    });
    expect(create.statusCode).toBe(404);
    expect(create.json().message).toBe('Token not found');

    expect((await list(tokens.company!, '?state=REVOKED')).items.map((i) => i.email)).toEqual(['own.doc@mail.test']);
    expect((await call('DELETE', `${BASE}/invitations/${id}`, tokens.company!)).statusCode).toBe(200);
    const revoked = await auditOf('INVITATION_REVOKED');
    expect(revoked).toHaveLength(1);
    expect(revoked[0]).toMatchObject({ tenant: 'PROPRIA', systemUserName: 'company@portal.test', role: 'COMPANY' });

    // A company user reaches no admin invitation, and an unknown id is the same 404.
    const adminInvitation = await idOf('pending.admin@portal.test');
    expect((await call('DELETE', `${BASE}/invitations/${adminInvitation}`, tokens.company!)).statusCode).toBe(404);
    expect((await call('DELETE', `${BASE}/invitations/nope`, tokens.admin!)).statusCode).toBe(404);
  });

  it('sends an invitation again with a new link, the old one dead; refused once the account exists', async () => {
    const oldToken = (await lastLinkTo(portal.ctx, 'own.staff@mail.test')).searchParams.get('token')!;
    const id = await idOf('own.staff@mail.test');
    expect((await call('POST', `${BASE}/invitations/${id}/resend`, tokens.foreignCompany!)).statusCode).toBe(404);
    expect((await call('POST', `${BASE}/invitations/${id}/resend`, tokens.patient!)).statusCode).toBe(403);

    tick();
    const resent = await call('POST', `${BASE}/invitations/${id}/resend`, tokens.company!);
    expect(resent.statusCode).toBe(201);
    const newToken = (await lastLinkTo(portal.ctx, 'own.staff@mail.test')).searchParams.get('token')!;
    expect(newToken).not.toBe(oldToken);
    expect((await call('GET', `/api/auth/company/invite/validate?token=${oldToken}`, null)).statusCode).toBe(404);
    expect((await call('GET', `/api/auth/company/invite/validate?token=${newToken}`, null)).json().data).toBe(
      'own.staff@mail.test',
    );
    // The list shows the new invitation in place of the old one.
    const listed = (await list(tokens.company!)).items.filter((i) => i.email === 'own.staff@mail.test');
    expect(listed.map((i) => i.id)).toEqual([resent.json().data.id]);
    expect(await auditOf('INVITATION_RESENT')).toHaveLength(1);

    // A revoked invitation can be sent again too: a fresh link that works.
    const revokedId = (await list(tokens.company!, '?state=REVOKED')).items[0]!.id;
    tick();
    expect((await call('POST', `${BASE}/invitations/${revokedId}/resend`, tokens.company!)).statusCode).toBe(201);
    const fresh = (await lastLinkTo(portal.ctx, 'own.doc@mail.test')).searchParams.get('token')!;
    expect((await call('GET', `/api/v2/auth/physician/validate?token=${fresh}`, null)).statusCode).toBe(200);

    // Once the address has an account, there is nothing to invite.
    await call('POST', '/api/auth/company/create', null, {
      token: newToken,
      fullName: 'Equipe Propria',
      password: 'Equipe-Segura-26',
      confirmPassword: 'Equipe-Segura-26',
      acceptTerms: true,
    });
    expect((await call('POST', `${BASE}/invitations/${resent.json().data.id}/resend`, tokens.admin!)).statusCode).toBe(
      404,
    );
    const expired = await list(tokens.admin!, '?search=foreign.doc');
    portal.clock.advance(8 * 24 * 3600_000);
    // Sessions do not last 8 days: a new one.
    tokens.admin = await signIn.admin!();
    expect((await list(tokens.admin!, '?search=foreign.doc')).items[0]!.state).toBe('EXPIRED');
    expect((await list(tokens.admin!, '?state=EXPIRED')).total).toBeGreaterThan(0);
    await makeUser(portal.ctx, { type: 'PHYSICIAN', email: 'foreign.doc@mail.test' });
    const taken = await call('POST', `${BASE}/invitations/${expired.items[0]!.id}/resend`, tokens.admin!);
    expect(taken.statusCode).toBe(409);
  });
});
