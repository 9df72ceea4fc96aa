import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bearer } from '../test/helpers.js';
import { MailSink } from '../test/mail-sink.js';
import {
  type ContractWorld,
  expectError,
  guestToken,
  ingestProtocol,
  login,
  startContractWorld,
} from '../test/contract-world.js';

/* Contract section 4 and the one-time token points of section 8, with mails through a real SMTP server. */

const PUBLIC_URL = 'http://portal.test';
const DAY = 24 * 60 * 60 * 1000;
const smtp = new MailSink();

/** Contract 4: the link stands alone on its line of the plain-text part and starts with PUBLIC_URL. */
function linkOf(mail: ParsedMail): URL {
  const lines = String(mail.text ?? '').split(/\r?\n/);
  const line = lines.find((l) => l.includes(`${PUBLIC_URL}/`));
  if (!line) throw new Error(`no link in: ${mail.text}`);
  expect(line.trim()).toBe(line.trim().split(/\s+/)[0]);
  expect(line.trim().startsWith(PUBLIC_URL)).toBe(true);
  return new URL(line.trim());
}

let world: ContractWorld;
const app = () => world.portal.app;

beforeAll(async () => {
  await smtp.start();
  world = await startContractWorld({
    outbox: true,
    env: {
      SMTP_URL: smtp.url,
      OUTBOX_POLL_MS: '50',
      PUBLIC_URL,
      MAIL_FROM: 'Resultados Clinica <resultados@clinica.test>',
    },
  });
});
afterAll(async () => {
  await world.portal.destroy();
  await smtp.close();
});

describe('account activation', () => {
  test('the link is registerValidate, 302 to /login?activeSuccess=true once, false after', async () => {
    const created = await app().inject({
      method: 'POST',
      url: '/api/v2/auth/user/createuser',
      payload: {
        fullName: 'Ana Pereira',
        emailAddress: 'ana@paciente.test',
        confirmEmailAddress: 'ana@paciente.test',
        password: 'Senha-forte-1',
        confirmPassword: 'Senha-forte-1',
        dateOfBirth: '02/03/1990',
        language: 'ES',
        serviceTerms: true,
      },
    });
    expect([200, 201]).toContain(created.statusCode);
    const mail = await smtp.nthTo('ana@paciente.test');
    expect(mail.from?.value[0]?.address).toBe('resultados@clinica.test');
    const link = linkOf(mail);
    expect(link.pathname).toBe('/api/v2/auth/user/registerValidate');
    expect(link.searchParams.get('token')).toBeTruthy();
    const first = await app().inject({ method: 'GET', url: `${link.pathname}${link.search}` });
    expect(first.statusCode).toBe(302);
    expect(first.headers.location).toMatch(/\/login\?activeSuccess=true$/);
    const again = await app().inject({ method: 'GET', url: `${link.pathname}${link.search}` });
    expect(again.headers.location).toMatch(/\/login\?activeSuccess=false$/);
    const unknown = await app().inject({ method: 'GET', url: '/api/v2/auth/user/registerValidate?token=nope' });
    expect(unknown.statusCode).toBe(302);
    expect(unknown.headers.location).toMatch(/\/login\?activeSuccess=false$/);
    expect((await login(world, { userName: 'ana@paciente.test', password: 'Senha-forte-1' })).statusCode).toBe(200);
  });

  test('an activation link expires after 24 h', async () => {
    await app().inject({
      method: 'POST',
      url: '/api/v2/auth/user/createuser',
      payload: {
        fullName: 'Bia Lopes',
        emailAddress: 'bia@paciente.test',
        confirmEmailAddress: 'bia@paciente.test',
        password: 'Senha-forte-1',
        confirmPassword: 'Senha-forte-1',
        dateOfBirth: '02-03-1991',
        serviceTerms: true,
      },
    });
    const link = linkOf(await smtp.nthTo('bia@paciente.test'));
    world.portal.clock.advance(DAY + 60_000);
    try {
      const late = await app().inject({ method: 'GET', url: `${link.pathname}${link.search}` });
      expect(late.headers.location).toMatch(/\/login\?activeSuccess=false$/);
    } finally {
      world.portal.clock.advance(-(DAY + 60_000));
    }
  });
});

describe('password recovery', () => {
  test('language in any case; link /password/reset?token&language; single use', async () => {
    await app().inject({
      method: 'POST',
      url: '/api/v2/auth/user/createuser',
      payload: {
        fullName: 'Caio Reis',
        emailAddress: 'caio@paciente.test',
        confirmEmailAddress: 'caio@paciente.test',
        password: 'Senha-forte-1',
        confirmPassword: 'Senha-forte-1',
        dateOfBirth: '02/03/1985',
        serviceTerms: true,
      },
    });
    const activation = linkOf(await smtp.nthTo('caio@paciente.test'));
    await app().inject({ method: 'GET', url: `${activation.pathname}${activation.search}` });

    const forgot = await app().inject({
      method: 'POST',
      url: '/api/auth/password/forgotPassword?username=caio@paciente.test&language=PT-BR',
    });
    expect(forgot.statusCode).toBe(200);
    const link = linkOf(await smtp.nthTo('caio@paciente.test', 1));
    expect(link.pathname).toBe('/password/reset');
    expect(link.searchParams.get('language')).toBe('pt-br');
    const token = link.searchParams.get('token')!;
    const valid = await app().inject({ method: 'GET', url: `/api/auth/password/isValidToken?token=${token}` });
    expect(valid.json()).toEqual({ data: 'caio@paciente.test' });
    const reset = await app().inject({
      method: 'POST',
      url: '/api/auth/password/resetPassword',
      payload: { token, password: 'Nova-senha-2', confirmPassword: 'Nova-senha-2', language: 'Es' },
    });
    expect(reset.statusCode).toBe(200);
    expect((await login(world, { userName: 'caio@paciente.test', password: 'Nova-senha-2' })).statusCode).toBe(200);
    const twice = await app().inject({
      method: 'POST',
      url: '/api/auth/password/resetPassword',
      payload: { token, newPassword: 'Outra-senha-3', confirmNewPassword: 'Outra-senha-3' },
    });
    expect(twice.statusCode).toBeGreaterThanOrEqual(400);
    expect((await login(world, { userName: 'caio@paciente.test', password: 'Outra-senha-3' })).statusCode).toBe(401);
  });

  test('the language chooses the mail: English and Spanish resets differ', async () => {
    await app().inject({
      method: 'POST',
      url: '/api/auth/password/forgotPassword?username=caio@paciente.test&language=EN',
    });
    const en = await smtp.nthTo('caio@paciente.test', 2);
    expect(linkOf(en).searchParams.get('language')).toBe('en');
    await app().inject({
      method: 'POST',
      url: '/api/auth/password/forgotPassword?username=caio@paciente.test&language=es',
    });
    const esReset = await smtp.nthTo('caio@paciente.test', 3);
    expect(linkOf(esReset).searchParams.get('language')).toBe('es');
    expect(en.subject).not.toBe(esReset.subject);
  });
});

describe('invitations (7 days)', () => {
  test('physician invitation: /physician/create?code=<institution code>&token&language', async () => {
    const res = await app().inject({
      method: 'POST',
      url: '/api/administrationbe/physician/invite',
      headers: bearer(world.adminToken),
      payload: {
        email: 'dr.luz@medico.test',
        name: 'Dra. Luz',
        crm: '123456',
        uf: 'SP',
        institutionId: world.institution.id,
        language: 'PT-BR',
      },
    });
    expect([200, 201]).toContain(res.statusCode);
    const link = linkOf(await smtp.nthTo('dr.luz@medico.test'));
    expect(link.pathname).toBe('/physician/create');
    expect(link.searchParams.get('code')).toBe(world.institution.code);
    expect(link.searchParams.get('language')).toBe('pt-br');
    const token = link.searchParams.get('token')!;
    world.portal.clock.advance(6 * DAY);
    const stillValid = await app().inject({ method: 'GET', url: `/api/v2/auth/physician/validate?token=${token}` });
    world.portal.clock.advance(2 * DAY);
    const expired = await app().inject({ method: 'GET', url: `/api/v2/auth/physician/validate?token=${token}` });
    world.portal.clock.advance(-8 * DAY);
    expect(stillValid.statusCode).toBe(200);
    expect(expired.statusCode).toBeGreaterThanOrEqual(400);
  });

  test('company invitation: /company-access/create?token&language; validate and create', async () => {
    const res = await app().inject({
      method: 'POST',
      url: '/api/administrationbe/company/invite',
      headers: bearer(world.adminToken),
      payload: { email: 'equipe@clinica.test', institutionId: world.institution.id, language: 'es' },
    });
    expect([200, 201]).toContain(res.statusCode);
    const link = linkOf(await smtp.nthTo('equipe@clinica.test'));
    expect(link.pathname).toBe('/company-access/create');
    expect(link.searchParams.get('language')).toBe('es');
    const token = link.searchParams.get('token')!;
    const valid = await app().inject({ method: 'GET', url: `/api/auth/company/invite/validate?token=${token}` });
    expect(valid.json()).toEqual({ data: 'equipe@clinica.test' });
    const created = await app().inject({
      method: 'POST',
      url: '/api/auth/company/create',
      payload: {
        token,
        fullName: 'Equipe Clinica',
        password: 'Senha-forte-1',
        confirmPassword: 'Senha-forte-1',
        acceptTerms: true,
      },
    });
    expect([200, 201]).toContain(created.statusCode);
    const again = await app().inject({ method: 'GET', url: `/api/auth/company/invite/validate?token=${token}` });
    expect(again.statusCode).toBeGreaterThanOrEqual(400);
    const company = await login(world, {
      userName: 'equipe@clinica.test',
      password: 'Senha-forte-1',
      appKey: 'admin',
    });
    expect(company.statusCode).toBe(200);
    expectError(
      await login(world, { userName: 'equipe@clinica.test', password: 'Senha-forte-1', appKey: 'login' }),
      403,
      'This login needs to use admin interface!',
    );
  });

  test('patient invitation by the institution: /patient/create?token&language', async () => {
    expect((await ingestProtocol(world, '500001', { email: 'convite@paciente.test' })).statusCode).toBe(201);
    const res = await app().inject({
      method: 'POST',
      url: '/api/v2/delivery/ingest/protocols/500001/invite',
      headers: { 'x-api-key': world.institution.apiKey },
      payload: { language: 'EN' },
    });
    expect(res.statusCode).toBeLessThan(300);
    const link = linkOf(await smtp.nthTo('convite@paciente.test'));
    expect(link.pathname).toBe('/patient/create');
    expect(link.searchParams.get('token')).toBeTruthy();
    expect(link.searchParams.get('language')).toBe('en');
    for (const path of ['/api/auth/user/validate', '/api/auth/user/get']) {
      const check = await app().inject({ method: 'GET', url: `${path}?token=${link.searchParams.get('token')}` });
      expect(check.statusCode).toBe(200);
    }
    // Contract 5: every ingest call is idempotent; the same invitation again mails nothing new.
    const again = await app().inject({
      method: 'POST',
      url: '/api/v2/delivery/ingest/protocols/500001/invite',
      headers: { 'x-api-key': world.institution.apiKey },
      payload: { language: 'EN' },
    });
    expect(again.statusCode).toBe(res.statusCode);
    const queued = await world.portal.ctx.db
      .selectFrom('outbox')
      .select(['id'])
      .where('recipient', '=', 'convite@paciente.test')
      .execute();
    expect(queued).toHaveLength(1);
  });

  test('external user of a tag: first-password link /password/reset?token&language', async () => {
    const tag = await app().inject({
      method: 'POST',
      url: `/api/administrationbe/institution/${world.institution.id}/tags`,
      headers: bearer(world.adminToken),
      payload: { tag: 'Parceiro A' },
    });
    expect([200, 201]).toContain(tag.statusCode);
    const tagId = tag.json<{ data: { id: string } }>().data.id;
    const user = await app().inject({
      method: 'POST',
      url: `/api/administrationbe/institution/${world.institution.id}/tags/${tagId}/users`,
      headers: bearer(world.adminToken),
      payload: { email: 'parceiro@externo.test', name: 'Parceiro', language: 'pt-BR' },
    });
    expect([200, 201]).toContain(user.statusCode);
    const link = linkOf(await smtp.nthTo('parceiro@externo.test'));
    expect(link.pathname).toBe('/password/reset');
    expect(link.searchParams.get('language')).toBe('pt-br');
    for (const path of ['/api/auth/externaluser/validate', '/api/auth/externaluser/get']) {
      const check = await app().inject({ method: 'GET', url: `${path}?token=${link.searchParams.get('token')}` });
      expect(check.statusCode).toBe(200);
    }
  });
});

describe('shares', () => {
  test('the mail links /landing/<accessToken>, a SHARE session that is 401 "is expired!" once revoked', async () => {
    const patient = await app().inject({
      method: 'POST',
      url: '/api/v2/auth/user/createuser',
      payload: {
        fullName: 'Dora Lima',
        emailAddress: 'dora@paciente.test',
        confirmEmailAddress: 'dora@paciente.test',
        password: 'Senha-forte-1',
        confirmPassword: 'Senha-forte-1',
        dateOfBirth: '17/05/1980',
        serviceTerms: true,
      },
    });
    expect([200, 201]).toContain(patient.statusCode);
    const activation = linkOf(await smtp.nthTo('dora@paciente.test'));
    await app().inject({ method: 'GET', url: `${activation.pathname}${activation.search}` });
    const signedIn = await login(world, { userName: 'dora@paciente.test', password: 'Senha-forte-1' });
    const token = signedIn.json<{ data: { accessToken: string; user: { identifier: string } } }>().data;
    expect((await ingestProtocol(world, '600001')).statusCode).toBe(201);
    const bind = await app().inject({
      method: 'POST',
      url: '/api/v2/auth/user/bindProtocol',
      headers: bearer(token.accessToken),
      payload: { protocol: '600001', password: 'senha123', patientUserId: token.user.identifier },
    });
    expect(bind.statusCode).toBe(200);
    const twice = await app().inject({
      method: 'POST',
      url: '/api/v2/auth/user/bindProtocol',
      headers: bearer(token.accessToken),
      payload: { protocol: '600001', password: 'senha123', patientUserId: token.user.identifier },
    });
    expectError(twice, 409, 'The protocol is already in use by the patient!');

    const list = await app().inject({
      method: 'GET',
      url: '/api/v2/delivery/dashboard/protocols',
      headers: bearer(token.accessToken),
    });
    const requestId = list.json<{ data: { items: Array<{ requestId: string }> } }>().data.items[0]!.requestId;
    await app().inject({
      method: 'PUT',
      url: `/api/administrationbe/institution/${world.institution.id}`,
      headers: bearer(world.adminToken),
      payload: { settings: { shareEnabled: true } },
    });
    const share = await app().inject({
      method: 'POST',
      url: '/api/auth/protocol/share',
      headers: bearer(token.accessToken),
      payload: { emails: ['amigo@share.test'], protocols: [requestId], period: 7, language: 'ES', token: 'ignored' },
    });
    expect(share.statusCode).toBeLessThan(300);
    const link = linkOf(await smtp.nthTo('amigo@share.test'));
    const shareToken = /^\/landing\/([^/]+)$/.exec(link.pathname)?.[1];
    expect(shareToken).toBeTruthy();
    const validate = await app().inject({ method: 'GET', url: '/api/v2/auth/validate', headers: bearer(shareToken!) });
    expect(validate.json<{ data: unknown }>().data).toMatchObject({
      isUserType: false,
      isPhysicianType: false,
      isExternalType: false,
      isAdminType: false,
      isCompanyType: false,
      countProtocols: 1,
    });
    expect(validate.json<{ data: { username: string } }>().data.username).not.toContain('@');
    const shared = await app().inject({
      method: 'GET',
      url: '/api/v2/delivery/dashboard/protocols',
      headers: bearer(shareToken!),
    });
    expect(shared.json<{ data: { total: number; items: Array<{ number: string }> } }>().data).toMatchObject({
      total: 1,
      items: [{ number: '600001' }],
    });

    const shares = await app().inject({
      method: 'GET',
      url: `/api/auth/patient/${token.user.identifier}/shares?size=500`,
      headers: bearer(token.accessToken),
    });
    const page = shares.json<{ data: { items: Array<Record<string, unknown>>; size: number } }>().data;
    expect(page.size).toBe(100);
    const record = page.items[0]!;
    for (const key of [
      'creationDate',
      'protocolNumber',
      'email',
      'daysExpiration',
      'active',
      'expired',
      'canceled',
      'id',
    ])
      expect(record).toHaveProperty(key);
    expect(record).toMatchObject({ protocolNumber: '600001', email: 'amigo@share.test', daysExpiration: 7 });

    const revoke = await app().inject({
      method: 'POST',
      url: `/api/auth/patient/share/${String(record.id)}/revoke`,
      headers: bearer(token.accessToken),
    });
    expect(revoke.statusCode).toBe(200);
    const after = await app().inject({ method: 'GET', url: '/api/v2/auth/validate', headers: bearer(shareToken!) });
    expect(after.statusCode).toBe(401);
    expect(after.json<{ message: string }>().message).toContain('is expired!');

    const trace = await app().inject({
      method: 'GET',
      url: '/api/administrationbe/trace?protocol=600001',
      headers: bearer(world.adminToken),
    });
    const events = trace.json<{ data: { items: Array<{ event: string }> } }>().data.items.map((i) => i.event);
    for (const name of ['SHARE_CREATED', 'SHARE_OPENED', 'SHARE_REVOKED']) expect(events).toContain(name);
    await guestToken(world, '600001');
  });
});
