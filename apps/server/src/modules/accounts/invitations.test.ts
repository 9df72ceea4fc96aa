import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { lastLinkTo, makeInstitution, makeProtocol, makeUser } from './test-factories.js';

describe('invitations, tags and their users (administration API)', () => {
  let portal: TestPortal;
  let institution: Awaited<ReturnType<typeof makeInstitution>>;
  let otherInstitution: Awaited<ReturnType<typeof makeInstitution>>;
  let admin: string;
  let company: string;

  beforeAll(async () => {
    portal = await startTestPortal();
    institution = await makeInstitution(portal.ctx, { code: 'CLINICA' });
    otherInstitution = await makeInstitution(portal.ctx);
    const adminUser = await makeUser(portal.ctx, { type: 'ADMIN', email: 'admin@portal.test' });
    const companyUser = await makeUser(portal.ctx, {
      type: 'COMPANY',
      email: 'staff@clinic.test',
      institutionId: institution.id,
    });
    admin = await portal.sessionFor({
      role: 'ADMIN',
      userId: adminUser.id,
      username: adminUser.email,
      appKey: 'admin',
    });
    company = await portal.sessionFor({
      role: 'COMPANY',
      userId: companyUser.id,
      username: companyUser.email,
      appKey: 'admin',
    });
  });
  afterAll(async () => portal?.destroy());

  const post = (url: string, token: string | null, payload: Record<string, unknown>) =>
    portal.app.inject({ method: 'POST', url, payload, headers: token ? bearer(token) : {} });
  const get = (url: string, token?: string) =>
    portal.app.inject({ method: 'GET', url, headers: token ? bearer(token) : {} });

  it('invites a physician whose CRM and UF come from the invitation, not from the form', async () => {
    const invite = await post('/api/administrationbe/physician/invite', admin, {
      email: 'Dr.House@mail.test',
      name: 'Gregorio Casa',
      crm: '123456',
      uf: 'sp',
      institutionId: institution.id,
      language: 'pt-br',
    });
    expect(invite.statusCode).toBe(201);
    expect(invite.json().data).toMatchObject({ email: 'dr.house@mail.test', status: 'INVITE_SEND' });

    const link = await lastLinkTo(portal.ctx, 'dr.house@mail.test');
    expect(link.pathname).toBe('/physician/create');
    expect(link.searchParams.get('code')).toBe('CLINICA');
    const token = link.searchParams.get('token') ?? '';
    for (const path of ['/api/auth/physician/get', '/api/v2/auth/physician/validate']) {
      const info = await get(`${path}?token=${token}`);
      expect(info.json().data).toMatchObject({ email: 'dr.house@mail.test', crm: '123456', uf: 'SP' });
    }

    const created = await post('/api/v2/auth/physician/create', null, {
      token,
      fullName: 'Gregorio Casa',
      password: 'Estetoscopio#9',
      license: { value: '999999', state: 'RJ' },
      language: 'pt-br',
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().data.id;
    const session = await portal.sessionFor({ role: 'PHYSICIAN', userId: id, username: 'dr.house@mail.test' });
    const edit = await post('/api/v2/auth/physician/edit', session, {
      name: 'Someone Else',
      licenses: [{ number: '1', state: 'AC' }],
      documents: [{ type: { code: 'CPF' }, number: '529.982.247-25' }],
      birth: '01/02/1970',
      phones: [
        { number: '11987654321', type: 'CELULAR' },
        { number: '1133334444', type: 'FIXO' },
      ],
      frequencyReceiveEmail: 'DAY',
    });
    expect(edit.statusCode).toBe(200);
    expect(edit.json().data).toMatchObject({
      name: 'Gregorio Casa',
      licenses: [{ number: '123456', state: 'SP' }],
      birth: '1970-02-01',
      frequencyReceiveEmail: 'DAY',
      phones: [
        { number: '11987654321', type: 'CELULAR' },
        { number: '1133334444', type: 'FIXO' },
      ],
    });
    const reuse = await post('/api/v2/auth/physician/create', null, { token, password: 'Estetoscopio#9' });
    expect(reuse.statusCode).toBe(404);
    const patientEdit = await post(
      '/api/v2/auth/physician/edit',
      await portal.sessionFor({ role: 'PATIENT', userId: id, username: 'x' }),
      {},
    );
    expect(patientEdit.statusCode).toBe(403);
  });

  it('invites a company user who accepts the terms and gets an account of that institution', async () => {
    const invite = await post('/api/administrationbe/company/invite', company, {
      email: 'manager@clinic.test',
      institutionId: institution.id,
      language: 'es',
    });
    expect(invite.statusCode).toBe(201);
    const link = await lastLinkTo(portal.ctx, 'manager@clinic.test');
    expect(link.pathname).toBe('/company-access/create');
    expect(link.searchParams.get('language')).toBe('es');
    const token = link.searchParams.get('token') ?? '';
    expect((await get(`/api/auth/company/invite/validate?token=${token}`)).json()).toEqual({
      data: 'manager@clinic.test',
    });
    const noTerms = await post('/api/auth/company/create', null, {
      token,
      fullName: 'Gerente',
      password: 'Clinica#2026',
      confirmPassword: 'Clinica#2026',
      acceptTerms: false,
    });
    expect(noTerms.statusCode).toBe(400);
    const created = await post('/api/auth/company/create', null, {
      token,
      fullName: 'Gerente',
      password: 'Clinica#2026',
      confirmPassword: 'Clinica#2026',
      acceptTerms: true,
    });
    expect(created.statusCode).toBe(201);
    const user = await portal.ctx.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', created.json().data.id)
      .executeTakeFirstOrThrow();
    expect(user).toMatchObject({ type: 'COMPANY', institutionId: institution.id, active: 1 });
  });

  it('keeps company users to their own institution (404) and other roles out (403 / 401)', async () => {
    const foreign = await post('/api/administrationbe/company/invite', company, {
      email: 'x@clinic.test',
      institutionId: otherInstitution.id,
    });
    expect(foreign.statusCode).toBe(404);
    expect((await get(`/api/administrationbe/institution/${otherInstitution.id}/tags`, company)).statusCode).toBe(404);
    const patientUser = await makeUser(portal.ctx);
    const patient = await portal.sessionFor({ role: 'PATIENT', userId: patientUser.id, username: patientUser.email });
    expect((await get(`/api/administrationbe/institution/${institution.id}/tags`, patient)).statusCode).toBe(403);
    expect((await get(`/api/administrationbe/institution/${institution.id}/tags`)).statusCode).toBe(401);
    const sameLicense = await post('/api/administrationbe/physician/invite', admin, {
      email: 'another-doctor@mail.test',
      name: 'Outro',
      crm: '123456',
      uf: 'SP',
      institutionId: institution.id,
    });
    // A license never blocks another account: each sees what its vouching institutions allow.
    expect(sameLicense.statusCode).toBe(201);
    const dup = await post('/api/administrationbe/physician/invite', admin, {
      email: 'admin@portal.test',
      name: 'X',
      crm: '1',
      uf: 'SP',
      institutionId: institution.id,
    });
    expect(dup.statusCode).toBe(409);
  });

  it('manages tags and their external users; a new external user sets his password from the mail', async () => {
    const base = `/api/administrationbe/institution/${institution.id}`;
    expect((await get(`${base}/containsTags`, company)).json().data).toBe(false);
    const tag = await post(`${base}/tags`, company, { tag: 'Parceiro A' });
    expect(tag.statusCode).toBe(201);
    const tagId = tag.json().data.id;
    expect((await post(`${base}/tags`, company, { tag: 'Parceiro A' })).statusCode).toBe(409);
    const second = (await post(`${base}/tags`, admin, { tag: 'Parceiro B' })).json().data.id;
    const renamed = await portal.app.inject({
      method: 'PUT',
      url: `${base}/tags/${second}`,
      headers: bearer(admin),
      payload: { tag: 'Parceiro C' },
    });
    expect(renamed.json().data).toEqual({ id: second, tag: 'Parceiro C' });
    expect((await get(`${base}/tags`, company)).json().data.map((t: { tag: string }) => t.tag)).toEqual([
      'Parceiro A',
      'Parceiro C',
    ]);
    expect((await get(`${base}/containsTags`, company)).json().data).toBe(true);

    const added = await post(`${base}/tags/${tagId}/users`, company, {
      email: 'partner@lab.test',
      name: 'Parceiro Externo',
      language: 'pt-br',
    });
    expect(added.statusCode).toBe(201);
    expect(added.json().data).toMatchObject({ email: 'partner@lab.test', type: 'EXTERNAL', active: false });
    const externalId = added.json().data.id;
    await post(`${base}/tags/${second}/users`, company, { email: 'partner@lab.test', name: 'Parceiro Externo' });

    const link = await lastLinkTo(portal.ctx, 'partner@lab.test');
    expect(link.pathname).toBe('/password/reset');
    const token = link.searchParams.get('token') ?? '';
    for (const path of ['/api/auth/externaluser/validate', '/api/auth/externaluser/get']) {
      expect((await get(`${path}?token=${token}`)).json().data).toEqual({
        email: 'partner@lab.test',
        name: 'Parceiro Externo',
      });
    }
    expect((await get(`/api/auth/password/isValidToken?token=${token}`)).json().data).toBe('partner@lab.test');
    const reset = await post('/api/auth/password/resetPassword', null, {
      token,
      password: 'Parceria#2026',
      confirmPassword: 'Parceria#2026',
    });
    expect(reset.statusCode).toBe(200);
    const users = await get(`${base}/tags/${tagId}/users`, company);
    expect(users.json().data).toEqual([
      { id: externalId, name: 'Parceiro Externo', email: 'partner@lab.test', type: 'EXTERNAL', active: true },
    ]);

    const external = await portal.sessionFor({ role: 'EXTERNAL', userId: externalId, username: 'partner@lab.test' });
    const favourite = await post('/api/v2/auth/externaluser/edit', external, { tagId: second });
    expect(favourite.json().data.tagId).toBe(second);
    const foreignTag = (
      await post(`/api/administrationbe/institution/${otherInstitution.id}/tags`, admin, { tag: 'Z' })
    ).json().data.id;
    expect((await post('/api/v2/auth/externaluser/edit', external, { tagId: foreignTag })).statusCode).toBe(404);

    const removed = await portal.app.inject({
      method: 'DELETE',
      url: `${base}/tags/${second}/users/${externalId}`,
      headers: bearer(company),
    });
    expect(removed.statusCode).toBe(200);
    const me = await get('/api/v2/auth/user/me', external);
    expect(me.json().data).toMatchObject({ tagId: null, tags: [{ id: tagId, tag: 'Parceiro A' }] });

    await makeProtocol(portal.ctx, { institutionId: institution.id, tagId });
    const inUse = await portal.app.inject({ method: 'DELETE', url: `${base}/tags/${tagId}`, headers: bearer(admin) });
    expect(inUse.statusCode).toBe(409);
    const gone = await portal.app.inject({ method: 'DELETE', url: `${base}/tags/${second}`, headers: bearer(admin) });
    expect(gone.statusCode).toBe(200);
  });

  it("reads one member of a tag and corrects an external user's name, never a physician's", async () => {
    const base = `/api/administrationbe/institution/${institution.id}`;
    const tagId = (await post(`${base}/tags`, company, { tag: 'Parceiro Nomes' })).json().data.id;
    const externalId = (
      await post(`${base}/tags/${tagId}/users`, company, { email: 'nome.errado@lab.test', name: 'Nome Erado' })
    ).json().data.id;
    const doctor = await makeUser(portal.ctx, {
      type: 'PHYSICIAN',
      email: 'dr.membro@mail.test',
      name: 'Dra. Membro',
      licenseNumber: '4321',
      licenseState: 'SP',
    });
    await post(`${base}/tags/${tagId}/users`, company, { email: doctor.email, name: 'Outro Nome' });
    const put = (userId: string, token: string, payload: Record<string, unknown>) =>
      portal.app.inject({
        method: 'PUT',
        url: `${base}/tags/${tagId}/users/${userId}`,
        headers: bearer(token),
        payload,
      });

    expect((await get(`${base}/tags/${tagId}/users/${externalId}`, company)).json().data).toEqual({
      id: externalId,
      name: 'Nome Erado',
      email: 'nome.errado@lab.test',
      type: 'EXTERNAL',
      active: false,
    });
    const fixed = await put(externalId, company, { name: '  Nome Certo ' });
    expect(fixed.statusCode).toBe(200);
    expect(fixed.json().data).toMatchObject({ id: externalId, name: 'Nome Certo' });
    expect((await get(`${base}/tags/${tagId}/users/${externalId}`, admin)).json().data.name).toBe('Nome Certo');
    expect((await put(externalId, company, { name: '' })).statusCode).toBe(400);

    const physician = await put(doctor.id, admin, { name: 'Outro Nome' });
    expect(physician.statusCode).toBe(409);
    expect(physician.json().message).toBe("A physician's name and license are kept by the physician.");
    expect((await get(`${base}/tags/${tagId}/users/${doctor.id}`, company)).json().data.name).toBe('Dra. Membro');

    // Not a member, another institution's tag, and callers without the right.
    const stranger = await makeUser(portal.ctx, { type: 'EXTERNAL' });
    expect((await get(`${base}/tags/${tagId}/users/${stranger.id}`, company)).statusCode).toBe(404);
    expect((await put(stranger.id, company, { name: 'X' })).statusCode).toBe(404);
    const foreignTag = (
      await post(`/api/administrationbe/institution/${otherInstitution.id}/tags`, admin, { tag: 'F' })
    ).json().data.id;
    const otherBase = `/api/administrationbe/institution/${otherInstitution.id}/tags/${foreignTag}/users/${externalId}`;
    expect((await get(otherBase, company)).statusCode).toBe(404);
    expect((await get(`${base}/tags/${tagId}/users/${externalId}`)).statusCode).toBe(401);
    // Once he also belongs to another institution's tag, only an admin renames him.
    const sharedTag = (
      await post(`/api/administrationbe/institution/${otherInstitution.id}/tags`, admin, { tag: 'Compartilhado' })
    ).json().data.id;
    await post(`/api/administrationbe/institution/${otherInstitution.id}/tags/${sharedTag}/users`, admin, {
      email: 'nome.errado@lab.test',
      name: 'Nome Certo',
    });
    const shared = await put(externalId, company, { name: 'Só Nossa Clínica' });
    expect(shared.statusCode).toBe(409);
    expect(shared.json().message).toBe(
      "The user also belongs to other institutions' groups: an administrator changes his name.",
    );
    expect((await put(externalId, admin, { name: 'Nome Final' })).json().data.name).toBe('Nome Final');

    const audits = await portal.ctx.db
      .selectFrom('auditEvents')
      .select(['event', 'macro'])
      .where('event', '=', 'TAG_USER_UPDATED')
      .execute();
    expect(audits.map((a) => JSON.parse(String(a.macro)).name)).toEqual([
      { from: 'Nome Erado', to: 'Nome Certo' },
      { from: 'Nome Certo', to: 'Nome Final' },
    ]);
  });
});
