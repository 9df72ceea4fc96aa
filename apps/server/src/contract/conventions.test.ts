import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bearer } from '../test/helpers.js';
import {
  type ContractWorld,
  expectError,
  guestToken,
  ingestProtocol,
  login,
  startContractWorld,
} from '../test/contract-world.js';

/* Contract sections 1, 2 and 8 ("Requests and responses"): what every answer looks like. */

let world: ContractWorld;
let guest: string;

beforeAll(async () => {
  world = await startContractWorld();
  expect((await ingestProtocol(world, '900100')).statusCode).toBe(201);
  guest = await guestToken(world, '900100');
});
afterAll(async () => world.portal.destroy());

const inject = (options: InjectOptions) => world.portal.app.inject(options);

describe('health (contract 1 and 8)', () => {
  test('healthz and readyz answer {"status":"ok"} outside the envelope', async () => {
    for (const url of ['/healthz', '/readyz']) {
      const res = await inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'ok' });
    }
  });
});

describe('administration answers (contract 6)', () => {
  test('POST institution answers 201 {"data": {"id", "code", "token", "apiKey"}}', async () => {
    const res = await inject({
      method: 'POST',
      url: '/api/administrationbe/institution',
      headers: bearer(world.adminToken),
      payload: { code: 'FORMA', name: 'Forma', viewType: 1, supportEmail: 'ajuda@forma.test' },
    });
    expect(res.statusCode).toBe(201);
    expect(Object.keys(res.json<{ data: object }>().data).sort()).toEqual(['apiKey', 'code', 'id', 'token']);
  });
});

describe('headers (contract 8)', () => {
  test('every /api answer carries Cache-Control: no-store, successes and failures alike', async () => {
    const answers = await Promise.all([
      inject({ method: 'GET', url: '/api/v2/auth/validate', headers: bearer(guest) }),
      inject({ method: 'GET', url: '/api/v2/auth/validate' }),
      inject({ method: 'GET', url: '/api/v2/no/such/call' }),
      inject({ method: 'POST', url: '/api/v2/auth/login', payload: { userName: 1 } }),
      inject({ method: 'GET', url: '/api/docs' }),
      inject({ method: 'GET', url: '/api' }),
      inject({ method: 'GET', url: '/api?x=1' }),
    ]);
    expect(answers.map((r) => r.statusCode)).toEqual([200, 401, 404, 400, 200, 404, 404]);
    expect(answers[5]!.headers['content-type']).toContain('application/json');
    for (const res of answers) expect(res.headers['cache-control']).toBe('no-store');
  });

  test('HTML answers carry nosniff, a CSP with frame-ancestors and Referrer-Policy no-referrer', async () => {
    const res = await inject({ method: 'GET', url: '/login' });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toMatch(/frame-ancestors [^;]+/);
    expect(res.headers['referrer-policy']).toBe('no-referrer');
  });
});

describe('envelope and errors (contract 2 and 8)', () => {
  test('a success is {"data": …}; a failure is {"message", "data"?}', async () => {
    const ok = await inject({ method: 'GET', url: '/api/v2/auth/validate', headers: bearer(guest) });
    expect(Object.keys(ok.json())).toEqual(['data']);
    expectError(await inject({ method: 'GET', url: '/api/v2/no/such/call' }), 404);
  });

  test('isValidProtocol answers {"data": true, "message": "The protocol is valid!"}', async () => {
    const res = await inject({
      method: 'GET',
      url: '/api/v2/auth/isValidProtocol?protocol=900100&password=senha123',
      headers: bearer(guest),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: true, message: 'The protocol is valid!' });
  });

  test('a JSON body above 1 MiB is refused with 413', async () => {
    const res = await login(world, { userName: 'x'.repeat(1024 * 1024 + 10), password: 'y' });
    expectError(res, 413);
  });

  test('a wrong type is 400 with the offending fields in data', async () => {
    const res = await login(world, { userName: 12345, password: 'y' });
    expectError(res, 400);
    expect(JSON.stringify(res.json<{ data: unknown }>().data)).toContain('userName');
  });

  test('a nested wrong field is named by its path', async () => {
    const res = await inject({
      method: 'PUT',
      url: '/api/v2/delivery/ingest/protocols/900300',
      headers: { 'x-api-key': world.institution.apiKey },
      payload: {
        password: 'x',
        patient: { patientId: 'P', name: 'N', birthDate: '17/05/1980', gender: 'F' },
        exams: [],
      },
    });
    expectError(res, 400);
    expect(JSON.stringify(res.json<{ data: unknown }>().data)).toContain('patient.birthDate');
  });

  test('unknown JSON fields are ignored and never stored', async () => {
    const res = await inject({
      method: 'PUT',
      url: `/api/administrationbe/institution/${world.institution.id}`,
      headers: bearer(world.adminToken),
      payload: { name: 'Clinica Contrato', settings: { shareEnabled: true, secretNote: 'nota-interna' }, extra: 1 },
    });
    expect(res.statusCode).toBe(200);
    const row = await world.portal.ctx.db
      .selectFrom('institutions')
      .selectAll()
      .where('id', '=', world.institution.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain('nota-interna');
    expect(JSON.stringify(row)).not.toContain('secretNote');
  });
});

describe('unknown fields in ingest (contract 8)', () => {
  test('are ignored and never stored', async () => {
    const body = {
      password: 'senha123',
      requestedAt: '2026-11-18T10:00:00-03:00',
      internalNote: 'campo-desconhecido-1',
      patient: { patientId: 'X1', name: 'Ana', birthDate: '1990-01-02', gender: 'F', hobby: 'campo-desconhecido-2' },
      exams: [
        {
          examKey: 'E1',
          description: 'Raio X',
          type: 'RX',
          modalityCode: 'CR',
          modalityName: 'Raio X',
          status: 'L',
          billing: 'campo-desconhecido-3',
        },
      ],
    };
    const res = await inject({
      method: 'PUT',
      url: '/api/v2/delivery/ingest/protocols/900200',
      headers: { 'x-api-key': world.institution.apiKey },
      payload: body,
    });
    expect(res.statusCode).toBe(201);
    const db = world.portal.ctx.db;
    const stored = JSON.stringify([
      await db.selectFrom('protocols').selectAll().where('number', '=', '900200').execute(),
      await db.selectFrom('exams').selectAll().where('examKey', '=', 'E1').execute(),
      await db.selectFrom('auditEvents').selectAll().execute(),
    ]);
    expect(stored).not.toContain('campo-desconhecido');
  });
});

describe('401, 403 and 404 (contract 2)', () => {
  test('a missing, tampered or revoked token is 401', async () => {
    expectError(await inject({ method: 'GET', url: '/api/v2/auth/validate' }), 401);
    const tampered = `${guest.slice(0, -3)}${guest.endsWith('abc') ? 'xyz' : 'abc'}`;
    expectError(await inject({ method: 'GET', url: '/api/v2/auth/validate', headers: bearer(tampered) }), 401);
    const other = await guestToken(world, '900100');
    expect((await inject({ method: 'POST', url: '/api/v2/auth/logout', headers: bearer(other) })).statusCode).toBe(200);
    expectError(await inject({ method: 'GET', url: '/api/v2/auth/validate', headers: bearer(other) }), 401);
  });

  test('an expired token is 401', async () => {
    const short = await world.portal.sessionFor({
      role: 'GUEST',
      username: '900100',
      protocolIds: [],
      expiresAt: new Date(world.portal.clock.now().getTime() + 60_000),
    });
    world.portal.clock.advance(120_000);
    try {
      expectError(await inject({ method: 'GET', url: '/api/v2/auth/validate', headers: bearer(short) }), 401);
    } finally {
      world.portal.clock.advance(-120_000);
    }
  });

  test('a valid token without the right is 403', async () => {
    expectError(
      await inject({
        method: 'GET',
        url: `/api/administrationbe/institution/${world.institution.id}`,
        headers: bearer(guest),
      }),
      403,
    );
  });

  test('a resource that is not the caller’s is 404 like one that does not exist', async () => {
    expect((await ingestProtocol(world, '900101', { password: 'outra' })).statusCode).toBe(201);
    const other = await guestToken(world, '900101', 'outra');
    const list = await inject({ method: 'GET', url: '/api/v2/delivery/dashboard/protocols', headers: bearer(other) });
    const requestId = list.json<{ data: { items: Array<{ requestId: string }> } }>().data.items[0]!.requestId;
    const mine = await inject({
      method: 'GET',
      url: `/api/v2/delivery/dashboard/protocols/exams?request=${requestId}`,
      headers: bearer(other),
    });
    expect(mine.statusCode).toBe(200);
    const notMine = await inject({
      method: 'GET',
      url: `/api/v2/delivery/dashboard/protocols/exams?request=${requestId}`,
      headers: bearer(guest),
    });
    const missing = await inject({
      method: 'GET',
      url: '/api/v2/delivery/dashboard/protocols/exams?request=does-not-exist',
      headers: bearer(guest),
    });
    expectError(notMine, 404);
    expectError(missing, 404);
    expect(notMine.json()).toEqual(missing.json());
  });
});

describe('dates and paging (contract 2)', () => {
  test('timestamps are ISO 8601 with offset; birth dates YYYY-MM-DD', async () => {
    const res = await inject({ method: 'GET', url: '/api/v2/delivery/dashboard/protocols', headers: bearer(guest) });
    const item = res.json<{ data: { items: Array<Record<string, unknown>> } }>().data.items[0]!;
    expect(item.requestedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
    const patient = item.patient as { birthDate: string };
    expect(patient.birthDate).toBe('1980-05-17');
    const validate = await inject({ method: 'GET', url: '/api/v2/auth/validate', headers: bearer(guest) });
    const user = validate.json<{ data: { birthdate: string | null } }>().data;
    if (user.birthdate !== null) expect(user.birthdate).toMatch(/^\d{4}-\d\d-\d\d$/);
  });

  test('date query parameters take DD/MM/YYYY and refuse other forms with 400', async () => {
    const ok = await inject({
      method: 'GET',
      url: '/api/v2/delivery/dashboard/protocols?initialDate=01/11/2026&finalDate=30/11/2026',
      headers: bearer(guest),
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json<{ data: { total: number } }>().data.total).toBe(1);
    const outside = await inject({
      method: 'GET',
      url: '/api/v2/delivery/dashboard/protocols?initialDate=01/10/2026&finalDate=31/10/2026',
      headers: bearer(guest),
    });
    expect(outside.json<{ data: { total: number } }>().data.total).toBe(0);
    const iso = await inject({
      method: 'GET',
      url: '/api/v2/delivery/dashboard/protocols?initialDate=2026-11-01',
      headers: bearer(guest),
    });
    expectError(iso, 400);
    expect(JSON.stringify(iso.json<{ data: unknown }>().data)).toContain('initialDate');
  });

  test('a list that pages answers {items, total, page, size} and cuts size at 100', async () => {
    const res = await inject({
      method: 'GET',
      url: '/api/v2/delivery/dashboard/protocols?page=1&size=500',
      headers: bearer(guest),
    });
    expect(res.statusCode).toBe(200);
    const data = res.json<{ data: Record<string, unknown> }>().data;
    expect(Object.keys(data).sort()).toEqual(['items', 'page', 'size', 'total']);
    expect(data).toMatchObject({ total: 1, page: 1, size: 100 });
  });

  test('the trace list pages too, with size cut at 100', async () => {
    const res = await inject({
      method: 'GET',
      url: '/api/administrationbe/trace?protocol=900100&page=1&size=1000',
      headers: bearer(world.adminToken),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json<{ data: Record<string, unknown> }>().data).toMatchObject({ page: 1, size: 100 });
  });
});

describe('secrets (contract 2)', () => {
  test('passwords, tokens and protocol passwords in a query string reach neither logs, traces nor error bodies', async () => {
    const secret = 'Segredo-0xCAFE';
    const answers = await Promise.all([
      inject({ method: 'GET', url: `/api/v2/auth/externalLogin?username=900100&password=${secret}` }),
      inject({ method: 'GET', url: `/api/v2/auth/externalLogin?username=x@y.test&password=${secret}&tokenMFA=123` }),
      inject({
        method: 'GET',
        url: `/api/v2/auth/isValidProtocol?protocol=900100&password=${secret}`,
        headers: bearer(guest),
      }),
      inject({ method: 'GET', url: `/api/auth/password/isValidToken?token=${secret}` }),
      inject({ method: 'GET', url: `/api/v2/auth/user/registerValidate?token=${secret}` }),
      inject({ method: 'GET', url: `/api/v2/auth/validate?access_token=${secret}&token=${secret}` }),
    ]);
    for (const res of answers) expect(res.body).not.toContain(secret);
    expect(world.portal.logs()).not.toContain(secret);
    const trace = await world.portal.ctx.db.selectFrom('auditEvents').selectAll().execute();
    expect(JSON.stringify(trace)).not.toContain(secret);
  });

  test('the guest password never appears in logs after a sign-in', async () => {
    await guestToken(world, '900100');
    expect(world.portal.logs()).not.toContain('senha123');
  });
});
