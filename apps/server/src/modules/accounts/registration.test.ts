import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { invitePatient } from './invitations.service.js';
import { lastLinkTo, mailsTo, makeInstitution, makeProtocol, makeUser } from './test-factories.js';

const DAY = 24 * 3600_000;

describe('patient self-registration', () => {
  let portal: TestPortal;
  beforeAll(async () => {
    portal = await startTestPortal();
  });
  afterAll(async () => portal?.destroy());

  const create = (payload: Record<string, unknown>) =>
    portal.app.inject({ method: 'POST', url: '/api/v2/auth/user/create', payload });

  const base = (email: string) => ({
    name: 'Ana Pereira',
    login: email,
    password: 'Horizonte#2026',
    confirmPassword: 'Horizonte#2026',
    dateOfBirth: '17/05/1980',
    language: 'PT-BR',
    serviceTerms: true,
  });

  it('creates an inactive account, mails an activation link that activates it once', async () => {
    const res = await create({ ...base('Ana@Mail.test'), cpf: '529.982.247-25', phone: '(11) 98765-4321' });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ email: 'ana@mail.test', active: false });
    const user = await portal.ctx.db
      .selectFrom('users')
      .selectAll()
      .where('email', '=', 'ana@mail.test')
      .executeTakeFirstOrThrow();
    expect(user).toMatchObject({ active: 0, birth: '1980-05-17', cpf: '52998224725', phoneMobile: '11987654321' });
    expect(user.passwordHash).not.toContain('Horizonte');

    const link = await lastLinkTo(portal.ctx, 'ana@mail.test');
    expect(link.pathname).toBe('/api/v2/auth/user/registerValidate');
    const token = link.searchParams.get('token') ?? '';
    const stored = await portal.ctx.db.selectFrom('oneTimeTokens').selectAll().where('userId', '=', user.id).execute();
    expect(stored[0]?.kind).toBe('ACTIVATION');
    expect(stored[0]?.tokenHash).not.toBe(token);

    const follow = await portal.app.inject({ method: 'GET', url: `${link.pathname}${link.search}` });
    expect(follow.statusCode).toBe(302);
    expect(follow.headers.location).toBe('/login?activeSuccess=true');
    const after = await portal.ctx.db
      .selectFrom('users')
      .select('active')
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(after.active).toBe(1);

    const again = await portal.app.inject({ method: 'GET', url: `${link.pathname}${link.search}` });
    expect(again.headers.location).toBe('/login?activeSuccess=false');
    const unknown = await portal.app.inject({ method: 'GET', url: '/api/v2/auth/user/registerValidate?token=nope' });
    expect(unknown.headers.location).toBe('/login?activeSuccess=false');
  });

  it('records the current terms as accepted when the box was ticked', async () => {
    const res = await create(base('terms-ok@mail.test'));
    const accepted = await portal.ctx.db
      .selectFrom('termAcceptances')
      .select('termId')
      .where('userId', '=', res.json().data.id)
      .execute();
    expect(accepted.map((a) => a.termId).sort()).toEqual(['term-patient-pp-1', 'term-patient-terms-1']);
  });

  it('refuses an activation link after 24 hours', async () => {
    await create(base('late@mail.test'));
    const link = await lastLinkTo(portal.ctx, 'late@mail.test');
    portal.clock.advance(DAY + 1000);
    const follow = await portal.app.inject({ method: 'GET', url: `${link.pathname}${link.search}` });
    expect(follow.headers.location).toBe('/login?activeSuccess=false');
  });

  it('answers a taken e-mail with 404 "The user already exists!" as the API document says, on every sign-up', async () => {
    await makeUser(portal.ctx, { email: 'documented@mail.test' });
    const taken = await create(base('documented@mail.test'));
    expect(taken.statusCode).toBe(404);
    const doc = (await portal.app.inject({ method: 'GET', url: '/api/docs/openapi.json' })).json<{
      paths: Record<string, { post: { responses: Record<string, unknown> } }>;
    }>();
    for (const path of [
      '/api/v2/auth/user/create',
      '/api/v2/auth/user/createuser',
      '/api/v2/auth/physician/create',
      '/api/auth/company/create',
      '/api/auth/admin/create',
    ]) {
      const { responses } = doc.paths[path]!.post;
      expect(JSON.stringify(responses['404']), path).toContain('The user already exists!');
      expect(JSON.stringify(responses['409'] ?? null), path).not.toContain('The user already exists!');
    }
  });

  it('answers the catalogue messages for a taken e-mail or CPF and refuses weak passwords', async () => {
    await makeUser(portal.ctx, { email: 'taken@mail.test', cpf: '11144477735' });
    const email = await create(base('taken@mail.test'));
    expect(email.statusCode).toBe(404);
    expect(email.json().message).toBe('The user already exists!');

    const cpf = await create({ ...base('new-cpf@mail.test'), cpf: '111.444.777-35' });
    expect(cpf.json().message).toBe('This Document is already associated with another user.');
    const badCpf = await create({ ...base('bad-cpf@mail.test'), cpf: '123.456.789-00' });
    expect(badCpf.statusCode).toBe(400);
    expect(badCpf.json().message).toBe('CPF invalid. Must be have 11 numbers.');

    const common = await create({ ...base('weak@mail.test'), password: 'senha123', confirmPassword: 'senha123' });
    expect(common.statusCode).toBe(400);
    expect(common.json().message).toContain('too common');
    const short = await create({ ...base('short@mail.test'), password: 'a1b2', confirmPassword: 'a1b2' });
    expect(short.statusCode).toBe(400);
    const mismatch = await create({ ...base('mismatch@mail.test'), confirmPassword: 'Different#2026' });
    expect(mismatch.statusCode).toBe(400);
    const badDate = await create({ ...base('date@mail.test'), dateOfBirth: '31/02/1980' });
    expect(badDate.statusCode).toBe(400);
    expect(await mailsTo(portal.ctx, 'weak@mail.test')).toHaveLength(0);
  });

  it('validates and links a protocol given with its password, and refuses a wrong one', async () => {
    const institution = await makeInstitution(portal.ctx);
    const protocol = await makeProtocol(portal.ctx, { institutionId: institution.id, password: 'abc-123' });
    const wrong = await create({
      ...base('proto-wrong@mail.test'),
      protocol: protocol.number,
      protocolPassword: 'nope',
    });
    expect(wrong.json().message).toBe('Passwords are not the same!');
    const res = await portal.app.inject({
      method: 'POST',
      url: '/api/v2/auth/user/createuser',
      payload: { ...base('proto@mail.test'), protocol: protocol.number, protocolPassword: 'abc-123' },
    });
    expect(res.statusCode).toBe(201);
    const row = await portal.ctx.db
      .selectFrom('protocols')
      .select('patientUserId')
      .where('id', '=', protocol.id)
      .executeTakeFirstOrThrow();
    expect(row.patientUserId).toBe(res.json().data.id);
  });

  it('with a patient invitation: shows its e-mail, creates an active account with that e-mail and links the protocol', async () => {
    const institution = await makeInstitution(portal.ctx);
    const protocol = await makeProtocol(portal.ctx, { institutionId: institution.id });
    await invitePatient(portal.ctx, {
      email: 'Invited@Mail.test',
      name: 'Paula Invited',
      protocolId: protocol.id,
      institution,
      language: 'es',
    });
    const link = await lastLinkTo(portal.ctx, 'invited@mail.test');
    expect(link.pathname).toBe('/patient/create');
    expect(link.searchParams.get('language')).toBe('es');
    const token = link.searchParams.get('token') ?? '';

    for (const path of ['/api/auth/user/validate', '/api/auth/user/get']) {
      const check = await portal.app.inject({ method: 'GET', url: `${path}?token=${token}` });
      expect(check.statusCode).toBe(200);
      expect(check.json().data).toEqual({ email: 'invited@mail.test', name: 'Paula Invited' });
    }

    const res = await create({ ...base('someone-else@mail.test'), token });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ email: 'invited@mail.test', active: true });
    const row = await portal.ctx.db
      .selectFrom('protocols')
      .select('patientUserId')
      .where('id', '=', protocol.id)
      .executeTakeFirstOrThrow();
    expect(row.patientUserId).toBe(res.json().data.id);
    expect(await mailsTo(portal.ctx, 'someone-else@mail.test')).toHaveLength(0);

    const reuse = await portal.app.inject({ method: 'GET', url: `/api/auth/user/validate?token=${token}` });
    expect(reuse.statusCode).toBe(404);
    expect(reuse.json().message).toBe('Token not found');
  });

  it('refuses an expired invitation with a message containing "expired."', async () => {
    const institution = await makeInstitution(portal.ctx);
    const protocol = await makeProtocol(portal.ctx, { institutionId: institution.id });
    await invitePatient(portal.ctx, {
      email: 'old-invite@mail.test',
      name: 'Old',
      protocolId: protocol.id,
      institution,
    });
    const token = (await lastLinkTo(portal.ctx, 'old-invite@mail.test')).searchParams.get('token');
    portal.clock.advance(7 * DAY + 1000);
    const check = await portal.app.inject({ method: 'GET', url: `/api/auth/user/validate?token=${token}` });
    expect(check.statusCode).toBe(400);
    expect(check.json().message).toContain('expired.');
    const res = await create({ ...base('old-invite@mail.test'), token });
    expect(res.json().message).toContain('expired.');
  });

  it('lets the new patient sign in flows that need a session: the record is incomplete until filled', async () => {
    const res = await create({ ...base('fresh@mail.test') });
    const token = await portal.sessionFor({ role: 'PATIENT', userId: res.json().data.id, username: 'fresh@mail.test' });
    const me = await portal.app.inject({ method: 'GET', url: '/api/v2/auth/user/me', headers: bearer(token) });
    expect(me.json().data).toMatchObject({ complete: false, missing: ['cpf', 'phone', 'gender'], birth: '1980-05-17' });
  });

  it('registers from the invitation an institution sends through the ingest API', async () => {
    await makeInstitution(portal.ctx, { apiKey: 'ingest-key-for-registration-test' });
    const headers = { 'x-api-key': 'ingest-key-for-registration-test' };
    const put = await portal.app.inject({
      method: 'PUT',
      url: '/api/v2/delivery/ingest/protocols/REG-0001',
      headers,
      payload: {
        password: 'proto-secret',
        patient: {
          patientId: 'p-1',
          name: 'Carla Nunes',
          birthDate: '1975-01-02',
          gender: 'F',
          email: 'carla@mail.test',
        },
        exams: [],
      },
    });
    expect(put.statusCode).toBe(201);
    const requestId = put.json().data.requestId;
    const invite = await portal.app.inject({
      method: 'POST',
      url: '/api/v2/delivery/ingest/protocols/REG-0001/invite',
      headers,
      payload: { language: 'pt-br' },
    });
    expect(invite.statusCode).toBe(200);

    const link = await lastLinkTo(portal.ctx, 'carla@mail.test');
    const token = link.searchParams.get('token') ?? '';
    const info = await portal.app.inject({ method: 'GET', url: `/api/auth/user/get?token=${token}` });
    expect(info.json().data).toEqual({ email: 'carla@mail.test', name: 'Carla Nunes' });
    const res = await create({ ...base('ignored@mail.test'), name: 'Carla Nunes', token });
    expect(res.json().data).toMatchObject({ email: 'carla@mail.test', active: true });
    const row = await portal.ctx.db
      .selectFrom('protocols')
      .select('patientUserId')
      .where('id', '=', requestId)
      .executeTakeFirstOrThrow();
    expect(row.patientUserId).toBe(res.json().data.id);
  });
});

describe('registration pace per client address', () => {
  let portal: TestPortal;
  beforeAll(async () => {
    portal = await startTestPortal();
  });
  afterAll(async () => portal?.destroy());

  it('refuses the 21st registration within an hour from one address with 429, and lets it through an hour later', async () => {
    const attempt = (remoteAddress: string) =>
      portal.app.inject({
        method: 'POST',
        url: '/api/v2/auth/user/create',
        remoteAddress,
        payload: {
          name: 'Bia Souza',
          login: 'bia@mail.test',
          password: 'Horizonte#2026',
          confirmPassword: 'Horizonte#2026',
          dateOfBirth: '02/03/1990',
          language: 'pt-br',
          serviceTerms: true,
        },
      });
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await attempt('203.0.113.9')).statusCode);
    expect(statuses[0]).toBe(201);
    expect(new Set(statuses.slice(1))).toEqual(new Set([404]));
    const refused = await attempt('203.0.113.9');
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await attempt('198.51.100.7')).statusCode).toBe(404);
    portal.clock.advance(3600_000 + 1000);
    expect((await attempt('203.0.113.9')).statusCode).toBe(404);
    const mails = await portal.ctx.db
      .selectFrom('outbox')
      .select('id')
      .where('recipient', '=', 'bia@mail.test')
      .execute();
    expect(mails).toHaveLength(1);
  });
});
