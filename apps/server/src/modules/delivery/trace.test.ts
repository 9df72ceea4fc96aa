import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { makeInstitution, makeUser, makeWorld } from './test-factories.js';

type World = Awaited<ReturnType<typeof makeWorld>>;

describe('trace and administration reads', () => {
  let portal: TestPortal;
  let w: World;
  let company: string;
  let otherCompany: string;
  const call = (method: 'GET' | 'POST', url: string, token: string | null, payload?: unknown) =>
    portal.app.inject({ method, url, headers: token ? bearer(token) : {}, ...(payload ? { payload } : {}) });

  beforeAll(async () => {
    portal = await startTestPortal();
    w = await makeWorld(portal.ctx, (i) => portal.sessionFor(i));
    const own = await makeUser(portal.ctx, { type: 'COMPANY', institutionId: w.institution.id });
    const elsewhere = await makeInstitution(portal.ctx, { name: 'Outra' });
    const foreign = await makeUser(portal.ctx, { type: 'COMPANY', institutionId: elsewhere.id });
    company = await portal.sessionFor({ role: 'COMPANY', userId: own.id, username: own.email });
    otherCompany = await portal.sessionFor({ role: 'COMPANY', userId: foreign.id, username: foreign.email });
  });
  afterAll(async () => portal?.destroy());

  it('records client events under the server’s identity, without secrets, linked only to visible protocols', async () => {
    const single = await call('POST', '/api/v2/delivery/trace/log', w.tokens.external, {
      event: 'OPEN_EXAM',
      resource: { requestId: w.c.protocol.id, token: 'segredo-do-cliente', password: 'p' },
      systemUser: { id: 'forged', name: 'Someone else' },
    });
    expect(single.statusCode).toBe(201);
    const many = await call('POST', '/api/v2/delivery/trace/log/all', w.tokens.external, [
      { event: 'VIEW_LIST' },
      { event: 'PROBE', resource: { requestId: w.a.protocol.id } },
    ]);
    expect(many.json()).toEqual({ data: { count: 2 } });
    expect((await call('POST', '/api/v2/delivery/trace/log', null, { event: 'X' })).statusCode).toBe(401);
    expect((await call('POST', '/api/v2/delivery/trace/log', w.tokens.owner, { nothing: 1 })).statusCode).toBe(400);

    const rows = await portal.ctx.db
      .selectFrom('auditEvents')
      .selectAll()
      .where('systemUserId', '=', w.users.external.id)
      .execute();
    const open = rows.find((r) => r.event === 'OPEN_EXAM')!;
    expect(open.protocolId).toBe(w.c.protocol.id);
    expect(open.systemUserName).toBe('Ext User');
    expect(open.resource).not.toContain('segredo-do-cliente');
    expect(JSON.parse(open.resource!).password).toBe('[REDACTED]');
    expect(rows.find((r) => r.event === 'PROBE')!.protocolId).toBeNull();
  });

  it('refuses a record above 4 KB (413) and more than 20 records a call (400), storing none of them', async () => {
    const stored = async () =>
      Number(
        (
          await portal.ctx.db
            .selectFrom('auditEvents')
            .select((e) => e.fn.countAll().as('n'))
            .where('systemUserId', '=', w.users.otherPatient.id)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const token = w.tokens.otherPatient;
    const record = (bytes: number) => ({ event: 'BIG', macro: { note: 'x'.repeat(bytes) } });
    const small = await call('POST', '/api/v2/delivery/trace/log/all', token, [record(10), record(4000)]);
    expect(small.statusCode, small.body).toBe(201);
    expect(await stored()).toBe(2);
    const big = await call('POST', '/api/v2/delivery/trace/log/all', token, [record(10), record(5000)]);
    expect(big.statusCode).toBe(413);
    expect(big.json()).toEqual({
      message: 'Payload too large.',
      data: { record: 1, bytes: expect.any(Number), maxBytes: 4096 },
    });
    expect((await call('POST', '/api/v2/delivery/trace/log', token, record(5000))).statusCode).toBe(413);
    const many = Array.from({ length: 21 }, () => record(1));
    expect((await call('POST', '/api/v2/delivery/trace/log/all', token, many)).statusCode).toBe(400);
    expect((await call('POST', '/api/v2/delivery/trace/log/all', token, many.slice(1))).statusCode).toBe(201);
    expect(await stored()).toBe(22);
  });

  it('lets a session, a guest’s too, make 30 trace calls a minute, counted across server processes', async () => {
    const second = await startTestPortal({ reuse: { env: portal.env }, clock: portal.clock });
    try {
      const guest = w.tokens.guestB;
      const burst = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          (i % 2 === 0 ? portal : second).app.inject({
            method: 'POST',
            url: i % 4 < 2 ? '/api/v2/delivery/trace/log' : '/api/v2/delivery/trace/log/all',
            headers: bearer(guest),
            payload: i % 4 < 2 ? { event: 'BURST' } : [{ event: 'BURST' }],
          }),
        ),
      );
      const statuses = burst.map((r) => r.statusCode);
      expect(statuses.filter((s) => s === 201)).toHaveLength(30);
      expect(statuses.filter((s) => s === 429)).toHaveLength(10);
      const refused = burst.find((r) => r.statusCode === 429)!;
      expect(refused.json().message).toBe('Too many attempts. Try again later.');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
      // Another session is not affected; the guest's next minute is free again.
      expect((await call('POST', '/api/v2/delivery/trace/log', w.tokens.guestA, { event: 'OTHER' })).statusCode).toBe(
        201,
      );
      portal.clock.advance(61_000);
      expect((await call('POST', '/api/v2/delivery/trace/log', guest, { event: 'LATER' })).statusCode).toBe(201);
    } finally {
      await second.close();
    }
  });

  it('lists a protocol’s trail for admins and for its institution’s company users only', async () => {
    portal.clock.advance(1000);
    await call('GET', `/api/v2/delivery/resource/report?resourceId=${w.resources.reportC.id}`, w.tokens.external);
    const url = `/api/administrationbe/trace?protocol=${w.c.protocol.number}&size=1`;
    const admin = await call('GET', url, w.tokens.admin);
    expect(admin.statusCode).toBe(200);
    expect(admin.json().data).toMatchObject({ total: 2, page: 1, size: 1 });
    expect(admin.json().data.items[0]).toMatchObject({ event: 'VIEW_REPORT', systemUser: { id: w.users.external.id } });
    const own = await call('GET', `/api/administrationbe/trace?protocol=${w.c.protocol.id}`, company);
    expect(
      own
        .json()
        .data.items.map((i: { event: string }) => i.event)
        .sort(),
    ).toEqual(['OPEN_EXAM', 'VIEW_REPORT']);
    expect((await call('GET', url, otherCompany)).json().data.total).toBe(0);
    for (const caller of ['owner', 'physician', 'external', 'guestA', 'share'] as const) {
      expect((await call('GET', url, w.tokens[caller])).statusCode, caller).toBe(403);
    }
    expect((await call('GET', url, null)).statusCode).toBe(401);
  });

  it('answers the administration directory reads', async () => {
    const mine = await call('GET', '/api/administrationbe/userlogged/institutionAdmin', company);
    expect(mine.json().data).toMatchObject({ id: w.institution.id, name: 'Clinica Alfa' });
    expect(
      (await call('GET', '/api/administrationbe/userlogged/institutionAdmin', w.tokens.admin)).json().data,
    ).toBeNull();
    expect((await call('GET', '/api/administrationbe/userlogged/institutionAdmin', w.tokens.owner)).statusCode).toBe(
      403,
    );
    const clinics = await call('GET', '/api/administrationbe/listOfPartnerClinics', w.tokens.admin);
    expect(clinics.json().data.map((c: { name: string }) => c.name)).toEqual(['Clinica Alfa', 'Outra']);
    expect((await call('GET', '/api/administrationbe/listOfPartnerClinics', company)).json().data).toHaveLength(1);
    const sp = (await call('GET', '/api/administrationbe/city/state/sp', null)).json().data as Array<{
      code: string;
      name: string;
      uf: string;
      capital: boolean;
    }>;
    expect(sp[0]).toEqual({ code: '3550308', name: 'São Paulo', uf: 'SP', capital: true });
    expect(sp).toHaveLength(645);
    expect(sp.filter((m) => m.capital)).toHaveLength(1);
    expect(sp.map((m) => m.name)).toEqual(expect.arrayContaining(['Embu das Artes', 'Mogi Guaçu', 'Álvares Machado']));
    // After the capital, in Portuguese alphabetical order (accents do not push a name to the end).
    const names = sp.slice(1).map((m) => m.name);
    expect(names).toEqual([...names].sort(new Intl.Collator('pt-BR').compare));
    expect((await call('GET', '/api/administrationbe/city/state/XX', null)).statusCode).toBe(404);
    const user = await call(
      'GET',
      `/api/administrationbe/user?userName=${w.users.owner.email}&language=ES`,
      w.tokens.admin,
    );
    expect(user.json().data).toMatchObject({ id: w.users.owner.id, type: 'PATIENT', language: 'es' });
    expect((await call('GET', `/api/administrationbe/user?userName=${w.users.owner.email}`, company)).statusCode).toBe(
      404,
    );
    const tags = await call('GET', '/api/v2/delivery/institutionUserTags', w.tokens.external);
    expect(tags.json().data).toEqual([
      expect.objectContaining({ id: w.tag.id, value: w.tag.id, institutionName: 'Clinica Alfa', favorite: false }),
    ]);
    expect((await call('GET', '/api/v2/delivery/institutionUserTags', w.tokens.owner)).json().data).toEqual([]);
    // The favourite group he saves is marked, so his dashboard opens filtered by it.
    const saved = await call('POST', '/api/v2/auth/externaluser/edit', w.tokens.external, { tagId: w.tag.id });
    expect(saved.statusCode).toBe(200);
    const favorite = await call('GET', '/api/v2/delivery/institutionUserTags', w.tokens.external);
    expect(favorite.json().data).toEqual([expect.objectContaining({ id: w.tag.id, favorite: true })]);
  });
});
