import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createAccount } from '../modules/auth/auth.test-support.js';
import { bearer } from '../test/helpers.js';
import {
  ADMIN,
  type ContractWorld,
  expectError,
  guestToken,
  ingestBody,
  ingestProtocol,
  login,
  startContractWorld,
} from '../test/contract-world.js';

/* Contract section 3 and the sign-in points of section 8, through the public calls only. */

interface Sms {
  to: string;
  channel: string;
  text: string;
}

const inbox: Sms[] = [];
const gateway = http.createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString()));
  req.on('end', () => {
    inbox.push(JSON.parse(body) as Sms);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});

async function smsTo(to: string): Promise<Sms> {
  for (;;) {
    const found = inbox.find((m) => m.to === to);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

let world: ContractWorld;
const VALID_CPF = '52998224725';

beforeAll(async () => {
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  const { port } = gateway.address() as AddressInfo;
  world = await startContractWorld({
    outbox: true,
    env: { SMS_WEBHOOK_URL: `http://127.0.0.1:${port}/sms`, OUTBOX_POLL_MS: '50' },
  });
  for (const number of ['300001', '300002', '300003', '300004'])
    expect((await ingestProtocol(world, number, { email: 'maria@paciente.test' })).statusCode).toBe(201);
});
afterAll(async () => {
  await world.portal.destroy();
  await new Promise((resolve) => gateway.close(resolve));
});

const decode = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
const validate = async (token: string) =>
  world.portal.app.inject({ method: 'GET', url: '/api/v2/auth/validate', headers: bearer(token) });

describe('protocol login (guest)', () => {
  test('answers {data: {accessToken, user}}; the JWT names sub, role, code, exp and a session id', async () => {
    const res = await login(world, { userName: '300001', password: 'senha123', appKey: 'login' });
    expect(res.statusCode).toBe(200);
    const data = res.json<{ data: { accessToken: string; user: Record<string, unknown> } }>().data;
    expect(typeof data.user).toBe('object');
    const header = JSON.parse(Buffer.from(data.accessToken.split('.')[0]!, 'base64url').toString()) as {
      alg: string;
    };
    expect(header.alg).toBe('HS256');
    const claims = decode(data.accessToken);
    expect(claims).toMatchObject({ role: 'GUEST', code: 'CLINICA' });
    expect(typeof claims.sub).toBe('string');
    expect(typeof claims.exp).toBe('number');
    expect(Object.keys(claims).some((k) => ['sid', 'jti', 'sessionId'].includes(k))).toBe(true);
  });

  test('validate: every is…Type flag false, username the protocol number, countProtocols', async () => {
    const res = await validate(await guestToken(world, '300001'));
    expect(res.json<{ data: unknown }>().data).toMatchObject({
      username: '300001',
      isUserType: false,
      isPhysicianType: false,
      isExternalType: false,
      isAdminType: false,
      isCompanyType: false,
      countProtocols: 1,
    });
  });

  test('dateOfBirth in DD/MM/YYYY or with "-" must match the patient’s', async () => {
    for (const dateOfBirth of ['17/05/1980', '17-05-1980']) {
      const ok = await login(world, { userName: '300001', password: 'senha123', dateOfBirth, appKey: 'login' });
      expect(ok.statusCode).toBe(200);
    }
    const wrong = await login(world, {
      userName: '300001',
      password: 'senha123',
      dateOfBirth: '01/01/1990',
      appKey: 'login',
    });
    expectError(wrong, 404, 'The protocol was not found with date informed!');
  });

  test('unknown protocol 404, wrong protocol password 401, disabled protocol 403', async () => {
    expectError(
      await login(world, { userName: '399999', password: 'senha123' }),
      404,
      'Protocol or e-mail does not exists!',
    );
    expectError(await login(world, { userName: '300002', password: 'errada' }), 401, 'Passwords are not the same!');
    const session = await guestToken(world, '300003');
    const off = await world.portal.app.inject({
      method: 'DELETE',
      url: '/api/v2/delivery/ingest/protocols/300003',
      headers: { 'x-api-key': world.institution.apiKey },
    });
    expect(off.statusCode).toBe(200);
    expectError(await login(world, { userName: '300003', password: 'senha123' }), 403, 'Protocol or e-mail disabled!');
    expectError(await validate(session), 403, 'Protocol or e-mail disabled!');
  });

  test('externalLogin takes the same inputs as query parameters and answers the same', async () => {
    const ok = await world.portal.app.inject({
      method: 'GET',
      url: '/api/v2/auth/externalLogin?username=300001&password=senha123&birthdate=17-05-1980',
    });
    expect(ok.statusCode).toBe(200);
    expect(decode(ok.json<{ data: { accessToken: string } }>().data.accessToken).role).toBe('GUEST');
    expectError(
      await world.portal.app.inject({ method: 'GET', url: '/api/v2/auth/externalLogin?username=300002&password=x' }),
      401,
      'Passwords are not the same!',
    );
  });

  test('customLogin limits the number to that institution; without it every matching institution opens', async () => {
    const other = await world.portal.app.inject({
      method: 'POST',
      url: '/api/administrationbe/institution',
      headers: bearer(world.adminToken),
      payload: { code: 'OUTRA', name: 'Outra clinica', viewType: 1 },
    });
    const apiKey = other.json<{ data: { apiKey: string } }>().data.apiKey;
    const put = await world.portal.app.inject({
      method: 'PUT',
      url: '/api/v2/delivery/ingest/protocols/300004',
      headers: { 'x-api-key': apiKey },
      payload: ingestBody(),
    });
    expect(put.statusCode).toBe(201);
    const both = await login(world, { userName: '300004', password: 'senha123' });
    const token = both.json<{ data: { accessToken: string } }>().data.accessToken;
    expect((await validate(token)).json<{ data: { countProtocols: number } }>().data.countProtocols).toBe(2);
    const one = await login(world, { userName: '300004', password: 'senha123', customLogin: 'OUTRA' });
    const oneToken = one.json<{ data: { accessToken: string } }>().data.accessToken;
    expect((await validate(oneToken)).json<{ data: { countProtocols: number } }>().data.countProtocols).toBe(1);
    expect(decode(oneToken).code).toBe('OUTRA');
  });
});

describe('e-mail login', () => {
  test('admin accounts: appKey "login" 403, appKey "admin" let in', async () => {
    expectError(
      await login(world, { userName: ADMIN.email, password: ADMIN.password, appKey: 'login' }),
      403,
      'This login needs to use admin interface!',
    );
    const admin = await login(world, { userName: ADMIN.email, password: ADMIN.password, appKey: 'admin' });
    expect(admin.statusCode).toBe(200);
    expect(decode(admin.json<{ data: { accessToken: string } }>().data.accessToken).role).toBe('ADMIN');
  });

  test('wrong password 401 "Invalid username or password!"; neither account nor protocols 404', async () => {
    await createAccount(world.portal.ctx, { type: 'PATIENT', email: 'joana@conta.test', password: 'Certa-123' });
    expectError(
      await login(world, { userName: 'joana@conta.test', password: 'Errada-123' }),
      401,
      'Invalid username or password!',
    );
    expectError(
      await login(world, { userName: 'ninguem@conta.test', password: 'Errada-123' }),
      404,
      'Protocol or e-mail does not exists!',
    );
    const ok = await login(world, { userName: 'JOANA@conta.test', password: 'Certa-123' });
    expect(ok.statusCode).toBe(200);
    expect(decode(ok.json<{ data: { accessToken: string } }>().data.accessToken).role).toBe('PATIENT');
  });

  test('the patient e-mail and protocol password open a guest session over all its protocols', async () => {
    const res = await login(world, { userName: 'maria@paciente.test', password: 'senha123' });
    expect(res.statusCode).toBe(200);
    const token = res.json<{ data: { accessToken: string } }>().data.accessToken;
    const user = (await validate(token)).json<{ data: { countProtocols: number; username: string } }>().data;
    expect(user.countProtocols).toBeGreaterThan(1);
    expect(user.username).not.toContain('@');
    expectError(
      await login(world, { userName: 'maria@paciente.test', password: 'nao-e-essa' }),
      404,
      'Protocol or e-mail does not exists!',
    );
    expect(res.json<{ data: { user: { username: string } } }>().data.user.username).not.toContain('@');
  });

  test('an account not yet activated is 403 "The account is not activated!"', async () => {
    await createAccount(world.portal.ctx, {
      type: 'PATIENT',
      email: 'nova@conta.test',
      password: 'Certa-123',
      active: false,
    });
    expectError(
      await login(world, { userName: 'nova@conta.test', password: 'Certa-123' }),
      403,
      'The account is not activated!',
    );
  });
});

describe('CPF login', () => {
  test('mask malformed 400, unknown valid CPF 404, bare digits of an account sign in, wrong password 401', async () => {
    await createAccount(world.portal.ctx, {
      type: 'PATIENT',
      email: 'cpf@conta.test',
      password: 'Certa-123',
      cpf: VALID_CPF,
    });
    expectError(
      await login(world, { userName: '123.456.789-00', password: 'x' }),
      400,
      'CPF invalid. Must be have 11 numbers.',
    );
    expectError(
      await login(world, { userName: '111.444.777-35', password: 'x' }),
      404,
      'Not found the number of document informed.',
    );
    expect((await login(world, { userName: VALID_CPF, password: 'Certa-123' })).statusCode).toBe(200);
    expect((await login(world, { userName: '529.982.247-25', password: 'Certa-123' })).statusCode).toBe(200);
    expectError(await login(world, { userName: VALID_CPF, password: 'Errada-1' }), 401);
  });
});

describe('CPF-shaped protocol numbers', () => {
  test('11 bare digits with valid check digits and no account are a protocol number', async () => {
    expect((await ingestProtocol(world, '11144477735', { password: 'cpf-protocolo' })).statusCode).toBe(201);
    const res = await login(world, { userName: '11144477735', password: 'cpf-protocolo' });
    expect(res.statusCode).toBe(200);
    expect(decode(res.json<{ data: { accessToken: string } }>().data.accessToken).role).toBe('GUEST');
  });
});

describe('MFA on the account', () => {
  test('generateMFAToken defaults to WhatsApp and adds 55; isMFAActivated answers {validate, phoneNumber} masked', async () => {
    const id = await createAccount(world.portal.ctx, {
      type: 'PATIENT',
      email: 'liga-mfa@conta.test',
      password: 'Certa-123',
    });
    const token = await world.portal.sessionFor({ role: 'PATIENT', userId: id, username: 'liga-mfa@conta.test' });
    const before = await world.portal.app.inject({
      method: 'GET',
      url: '/api/v2/auth/isMFAActivated',
      headers: bearer(token),
    });
    expect(before.json<{ data: { validate: boolean } }>().data.validate).toBe(false);
    const sent = await world.portal.app.inject({
      method: 'POST',
      url: '/api/v2/auth/generateMFAToken',
      headers: bearer(token),
      payload: { phoneNumber: '(21) 99876-5432' },
    });
    expect(sent.statusCode).toBe(200);
    const sms = await smsTo('5521998765432');
    expect(sms.channel).toBe('whatsapp');
    const code = /\b(\d{6})\b/.exec(sms.text)?.[1] ?? '';
    const on = await world.portal.app.inject({
      method: 'POST',
      url: '/api/v2/auth/activateMFAToken',
      headers: bearer(token),
      payload: { phoneNumber: '(21) 99876-5432', tokenValue: code },
    });
    expect(on.statusCode).toBe(200);
    const after = await world.portal.app.inject({
      method: 'GET',
      url: '/api/v2/auth/isMFAActivated',
      headers: bearer(token),
    });
    const data = after.json<{ data: { validate: boolean; phoneNumber: string } }>().data;
    expect(Object.keys(data).sort()).toEqual(['phoneNumber', 'validate']);
    expect(data.validate).toBe(true);
    expect(data.phoneNumber).not.toContain('998765432');
  });
});

describe('MFA at login', () => {
  test('no tokenMFA: 400 with the username; the code goes to the phone webhook; a wrong code 401', async () => {
    await createAccount(world.portal.ctx, {
      type: 'PATIENT',
      email: 'mfa@conta.test',
      password: 'Certa-123',
      mfaPhone: '11987654321',
    });
    expectError(
      await login(world, { userName: 'mfa@conta.test', password: 'Certa-123' }),
      400,
      'mfa@conta.test has enabled the MFA validation and needs validation.',
    );
    const sms = await smsTo('5511987654321');
    expect(['sms', 'whatsapp']).toContain(sms.channel);
    const code = /\b(\d{6})\b/.exec(sms.text)?.[1] ?? '';
    expect(code).toMatch(/^\d{6}$/);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    expectError(await login(world, { userName: 'mfa@conta.test', password: 'Certa-123', tokenMFA: wrong }), 401);
    const ok = await login(world, { userName: 'mfa@conta.test', password: 'Certa-123', tokenMFA: code });
    expect(ok.statusCode).toBe(200);
  });
});

describe('throttling', () => {
  test('from the 5th failure a 60 s lock: 429 with Retry-After whatever the password', async () => {
    expect((await ingestProtocol(world, '300050')).statusCode).toBe(201);
    for (let i = 1; i <= 5; i++) {
      expectError(await login(world, { userName: '300050', password: `errada${i}` }), 401);
    }
    const locked = await login(world, { userName: '300050', password: 'senha123' });
    expectError(locked, 429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(60);
    world.portal.clock.advance(61_000);
    expect((await login(world, { userName: '300050', password: 'senha123' })).statusCode).toBe(200);
  });
});

describe('throttling: growth, ceiling and the other guesses', () => {
  test('a 429 does not count; the next failure after a lock doubles it; at most 15 minutes', async () => {
    expect((await ingestProtocol(world, '300060')).statusCode).toBe(201);
    for (let i = 1; i <= 5; i++) await login(world, { userName: '300060', password: `errada${i}` });
    expectError(await login(world, { userName: '300060', password: 'errada-bloqueada' }), 429);
    world.portal.clock.advance(61_000);
    expectError(await login(world, { userName: '300060', password: 'errada6' }), 401);
    const second = await login(world, { userName: '300060', password: 'senha123' });
    expectError(second, 429);
    expect(Number(second.headers['retry-after'])).toBeGreaterThan(60);
    expect(Number(second.headers['retry-after'])).toBeLessThanOrEqual(120);
    for (let failures = 7; failures <= 30; failures++) {
      world.portal.clock.advance(16 * 60_000);
      await login(world, { userName: '300060', password: `errada${failures}` });
    }
    const capped = await login(world, { userName: '300060', password: 'senha123' });
    expectError(capped, 429);
    expect(Number(capped.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
  });

  test('password recovery is throttled the same way', async () => {
    await createAccount(world.portal.ctx, { type: 'PATIENT', email: 'esqueci@conta.test', password: 'Certa-123' });
    const forgot = () =>
      world.portal.app.inject({
        method: 'POST',
        url: '/api/auth/password/forgotPassword?username=esqueci@conta.test&language=pt-br',
      });
    for (let i = 1; i <= 5; i++) expect((await forgot()).statusCode).toBe(200);
    const locked = await forgot();
    expectError(locked, 429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
  });

  test('protocol validation is throttled the same way', async () => {
    expect((await ingestProtocol(world, '300070')).statusCode).toBe(201);
    const check = (password: string) =>
      world.portal.app.inject({
        method: 'GET',
        url: `/api/v2/auth/isValidProtocol?protocol=300070&password=${password}`,
      });
    for (let i = 1; i <= 5; i++) expect((await check(`errada${i}`)).statusCode).not.toBe(429);
    const locked = await check('senha123');
    expectError(locked, 429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('sessions', () => {
  test('logout revokes the session: later calls are 401', async () => {
    const token = await guestToken(world, '300001');
    const out = await world.portal.app.inject({ method: 'POST', url: '/api/v2/auth/logout', headers: bearer(token) });
    expect(out.statusCode).toBe(200);
    expectError(await validate(token), 401);
  });
});
