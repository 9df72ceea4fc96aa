import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { makeInstitution, makeProtocol, makeUser, makeWorld } from '../delivery/test-factories.js';
import { csvField } from './administration.service.js';

type World = Awaited<ReturnType<typeof makeWorld>>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

const BASE = '/api/administrationbe';

describe('administration console API', () => {
  let portal: TestPortal;
  let w: World;
  let company: string;
  let foreignCompany: string;
  let elsewhere: Awaited<ReturnType<typeof makeInstitution>>;
  let foreignProtocol: Awaited<ReturnType<typeof makeProtocol>>;
  let ownPhysician: Awaited<ReturnType<typeof makeUser>>;
  let foreignPhysician: Awaited<ReturnType<typeof makeUser>>;
  const call = (method: Method, url: string, token: string | null, payload?: unknown) =>
    portal.app.inject({ method, url, headers: token ? bearer(token) : {}, ...(payload ? { payload } : {}) });

  beforeAll(async () => {
    portal = await startTestPortal();
    w = await makeWorld(portal.ctx, (i) => portal.sessionFor(i));
    elsewhere = await makeInstitution(portal.ctx, { name: 'Outra Clinica', code: 'OUTRA' });
    foreignProtocol = await makeProtocol(portal.ctx, {
      institutionId: elsewhere.id,
      number: 'FOREIGN1',
      patientName: 'Fabio Foreign',
    });
    const own = await makeUser(portal.ctx, { type: 'COMPANY', institutionId: w.institution.id, name: 'Cia Alfa' });
    const foreign = await makeUser(portal.ctx, { type: 'COMPANY', institutionId: elsewhere.id, name: 'Cia Outra' });
    ownPhysician = await makeUser(portal.ctx, {
      type: 'PHYSICIAN',
      institutionId: w.institution.id,
      name: 'Dra Alfa',
      crm: '5555',
      uf: 'SP',
    });
    foreignPhysician = await makeUser(portal.ctx, {
      type: 'PHYSICIAN',
      institutionId: elsewhere.id,
      name: 'Dr Outra',
      crm: '6666',
      uf: 'RJ',
    });
    company = await portal.sessionFor({ role: 'COMPANY', userId: own.id, username: own.email });
    foreignCompany = await portal.sessionFor({ role: 'COMPANY', userId: foreign.id, username: foreign.email });
    await portal.ctx.db
      .insertInto('auditEvents')
      .values({
        id: 'foreign-event',
        occurredAt: '2026-11-20T11:00:00.000Z',
        application: 'results-portal',
        tenant: 'OUTRA',
        event: 'VIEW_PROTOCOL',
        resource: null,
        protocolId: foreignProtocol.protocol.id,
        systemUserId: null,
        systemUserName: '=cmd|calc',
        role: 'GUEST',
        sharedWith: null,
        patients: null,
        macro: null,
        ip: null,
        requestId: null,
      })
      .execute();
  });
  afterAll(async () => portal?.destroy());

  const readRoutes = [
    `${BASE}/institution`,
    `${BASE}/dashboard`,
    `${BASE}/protocols`,
    `${BASE}/audit`,
    `${BASE}/audit/export.csv`,
    `${BASE}/outbox`,
    `${BASE}/accounts`,
  ];

  it('answers 401 without a session and 403 to every role but admin and company', async () => {
    const writes: Array<[Method, string, unknown]> = [
      ['PUT', `${BASE}/protocols/${w.a.protocol.id}/status`, { disabled: true, reason: 'test' }],
      ['POST', `${BASE}/outbox/x/resend`, undefined],
      ['PUT', `${BASE}/accounts/${w.users.owner.id}/disabled`, { disabled: true }],
      ['POST', `${BASE}/accounts/${w.users.owner.id}/unlock`, undefined],
      ['POST', `${BASE}/accounts/${w.users.owner.id}/sessions/end`, undefined],
      ['GET', `${BASE}/protocols/${w.a.protocol.id}`, undefined],
    ];
    for (const url of readRoutes) expect((await call('GET', url, null)).statusCode, url).toBe(401);
    for (const caller of ['owner', 'physician', 'external', 'guestA', 'share'] as const) {
      for (const url of readRoutes) expect((await call('GET', url, w.tokens[caller])).statusCode, url).toBe(403);
      for (const [method, url, body] of writes) {
        expect((await call(method, url, w.tokens[caller], body)).statusCode, `${caller} ${url}`).toBe(403);
      }
    }
    expect((await call('GET', `${BASE}/protocols?size=1000`, w.tokens.admin)).statusCode).toBe(400);
  });

  it('lists institutions: every one for admins, with search; the own one for company users', async () => {
    const all = (await call('GET', `${BASE}/institution`, w.tokens.admin)).json().data;
    expect(all.map((i: { name: string }) => i.name)).toEqual(['Clinica Alfa', 'Outra Clinica']);
    const found = (await call('GET', `${BASE}/institution?search=outr`, w.tokens.admin)).json().data;
    expect(found.map((i: { code: string }) => i.code)).toEqual(['OUTRA']);
    const own = (await call('GET', `${BASE}/institution`, company)).json().data;
    expect(own.map((i: { id: string }) => i.id)).toEqual([w.institution.id]);
    expect((await call('GET', `${BASE}/institution?search=outr`, company)).json().data).toEqual([]);
  });

  it('counts the dashboard per institution; portal-wide figures for admins only', async () => {
    const admin = (await call('GET', `${BASE}/dashboard`, w.tokens.admin)).json().data;
    expect(admin.institutions).toHaveLength(2);
    expect(admin.portal).toMatchObject({ outboxWaiting: expect.any(Number), lockedNow: 0 });
    const alfa = admin.institutions.find((i: { id: string }) => i.id === w.institution.id);
    expect(alfa.protocolsToday).toBe(3);
    const own = (await call('GET', `${BASE}/dashboard`, company)).json().data;
    expect(own.portal).toBeNull();
    expect(own.institutions.map((i: { id: string }) => i.id)).toEqual([w.institution.id]);
    expect(own.institutions[0]).toEqual(alfa);
  });

  it('finds protocols within reach and shows one with its exams, files and shares', async () => {
    const byNumber = (await call('GET', `${BASE}/protocols?number=${w.a.protocol.number}`, w.tokens.admin)).json().data;
    expect(byNumber).toMatchObject({ total: 1, items: [{ id: w.a.protocol.id, examCount: 2, disabled: false }] });
    const byPatient = (await call('GET', `${BASE}/protocols?patient=foreign`, w.tokens.admin)).json().data;
    expect(byPatient.items.map((p: { number: string }) => p.number)).toEqual(['FOREIGN1']);
    expect((await call('GET', `${BASE}/protocols?patient=foreign`, company)).json().data.total).toBe(0);
    expect((await call('GET', `${BASE}/protocols`, company)).json().data.total).toBe(3);
    const detail = (await call('GET', `${BASE}/protocols/${w.a.protocol.id}`, company)).json().data;
    expect(detail.exams).toHaveLength(2);
    expect(detail.exams[0].files).toHaveLength(1);
    expect(detail.shares).toEqual({ active: 1, total: 1 });
    expect((await call('GET', `${BASE}/protocols/${foreignProtocol.protocol.id}`, company)).statusCode).toBe(404);
    expect((await call('GET', `${BASE}/protocols/nope`, w.tokens.admin)).statusCode).toBe(404);
  });

  it('disables a protocol with a reason: its guest can no longer open it; re-enabling gives it back', async () => {
    const url = `${BASE}/protocols/${w.b.protocol.id}/status`;
    const open = () =>
      call('GET', `/api/delivery/persistence/dashboard/protocol/byId?id=${w.b.protocol.id}`, w.tokens.guestB);
    expect((await open()).statusCode).toBe(200);
    expect((await call('PUT', url, foreignCompany, { disabled: true, reason: 'duplicate' })).statusCode).toBe(404);
    expect((await call('PUT', url, company, { disabled: true, reason: '' })).statusCode).toBe(400);
    const disabled = await call('PUT', url, company, { disabled: true, reason: 'Sent to the wrong patient' });
    expect(disabled.statusCode).toBe(200);
    expect(disabled.json().data.disabled).toBe(true);
    expect((await open()).statusCode).toBe(403);
    const trail = await portal.ctx.db
      .selectFrom('auditEvents')
      .selectAll()
      .where('event', '=', 'PROTOCOL_DISABLED')
      .execute();
    expect(trail).toHaveLength(1);
    expect(trail[0]).toMatchObject({ protocolId: w.b.protocol.id, role: 'COMPANY', tenant: w.institution.code });
    expect(JSON.parse(trail[0]!.macro!)).toEqual({ reason: 'Sent to the wrong patient' });
    expect(trail[0]!.systemUserId).not.toBeNull();
    // Asking again for the state it already has changes nothing and traces nothing.
    await call('PUT', url, w.tokens.admin, { disabled: true, reason: 'again' });
    expect(
      await portal.ctx.db.selectFrom('auditEvents').select('id').where('event', '=', 'PROTOCOL_DISABLED').execute(),
    ).toHaveLength(1);
    expect((await call('PUT', url, w.tokens.admin, { disabled: false, reason: 'Checked' })).json().data.disabled).toBe(
      false,
    );
    expect((await open()).statusCode).toBe(200);
  });

  it('reads the audit trail with filters; company users only their institution’s', async () => {
    const admin = (await call('GET', `${BASE}/audit?event=PROTOCOL_DISABLED`, w.tokens.admin)).json().data;
    expect(admin.total).toBe(1);
    expect(admin.items[0]).toMatchObject({ protocolNumber: w.b.protocol.number, event: 'PROTOCOL_DISABLED' });
    expect(admin.items[0].detail).toContain('Sent to the wrong patient');
    const foreign = (await call('GET', `${BASE}/audit?protocol=FOREIGN1`, w.tokens.admin)).json().data;
    expect(foreign.total).toBe(1);
    expect((await call('GET', `${BASE}/audit?protocol=FOREIGN1`, company)).json().data.total).toBe(0);
    const mine = (await call('GET', `${BASE}/audit`, company)).json().data;
    expect(mine.items.every((i: { tenant: string | null }) => i.tenant !== 'OUTRA')).toBe(true);
    expect(mine.items.map((i: { event: string }) => i.event)).toContain('PROTOCOL_ENABLED');
    expect((await call('GET', `${BASE}/audit?institutionId=${elsewhere.id}`, company)).json().data.total).toBe(0);
    expect((await call('GET', `${BASE}/audit?institutionId=${elsewhere.id}`, w.tokens.admin)).json().data.total).toBe(
      1,
    );
    const theirs = (await call('GET', `${BASE}/audit`, foreignCompany)).json().data;
    expect(theirs.items.map((i: { id: string }) => i.id)).toEqual(['foreign-event']);
    expect((await call('GET', `${BASE}/audit?from=2026-11-21`, w.tokens.admin)).json().data.total).toBe(0);
    expect((await call('GET', `${BASE}/audit?from=21/11/2026`, w.tokens.admin)).statusCode).toBe(400);
  });

  it('exports the filtered audit trail as CSV, scoped, neutralising formulas, and traces the export', async () => {
    const all = await call('GET', `${BASE}/audit/export.csv`, w.tokens.admin);
    expect(all.statusCode).toBe(200);
    expect(all.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(all.headers['content-disposition']).toMatch(/^attachment; filename="audit-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = all.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe('occurredAt,event,tenant,protocolNumber,userId,userName,role,sharedWith,ip,detail');
    expect(lines.some((l) => l.includes('"PROTOCOL_DISABLED"') && l.includes('Sent to the wrong patient'))).toBe(true);
    expect(lines.some((l) => l.includes(`"'=cmd|calc"`))).toBe(true);
    const own = await call('GET', `${BASE}/audit/export.csv`, company);
    expect(own.body).not.toContain('FOREIGN1');
    expect(own.body).not.toContain('OUTRA');
    expect(own.body).toContain('PROTOCOL_DISABLED');
    const exports = await portal.ctx.db
      .selectFrom('auditEvents')
      .selectAll()
      .where('event', '=', 'AUDIT_EXPORTED')
      .execute();
    expect(exports.map((e) => e.role).sort()).toEqual(['ADMIN', 'COMPANY']);
    expect(csvField('a "quoted" text')).toBe('"a ""quoted"" text"');
    expect(csvField('+55 11')).toBe(`"'+55 11"`);
    expect(csvField(null)).toBe('');
  });

  it('exports more rows than one read chunk in order', async () => {
    const values = Array.from({ length: 1203 }, (_, i) => ({
      id: `bulk-${String(i).padStart(5, '0')}`,
      occurredAt: '2026-11-19T10:00:00.000Z',
      application: 'results-portal',
      tenant: 'OUTRA',
      event: 'BULK',
      resource: null,
      protocolId: null,
      systemUserId: null,
      systemUserName: `bulk ${i}`,
      role: null,
      sharedWith: null,
      patients: null,
      macro: null,
      ip: null,
      requestId: null,
    }));
    for (let i = 0; i < values.length; i += 300) {
      await portal.ctx.db
        .insertInto('auditEvents')
        .values(values.slice(i, i + 300))
        .execute();
    }
    const csv = (await call('GET', `${BASE}/audit/export.csv?event=BULK`, w.tokens.admin)).body;
    const rows = csv.trim().split('\r\n').slice(1);
    expect(rows).toHaveLength(1203);
    expect(new Set(rows).size).toBe(1203);
    expect((await call('GET', `${BASE}/audit/export.csv?event=BULK`, company)).body.trim().split('\r\n')).toHaveLength(
      1,
    );
    expect(
      (await call('GET', `${BASE}/audit/export.csv?event=BULK`, foreignCompany)).body.trim().split('\r\n'),
    ).toHaveLength(1204);
  });

  it('traces tag creation, renaming and deletion with who did it', async () => {
    const base = `/api/administrationbe/institution/${w.institution.id}/tags`;
    const created = await call('POST', base, company, { tag: 'Convênio Verde' });
    expect(created.statusCode).toBe(201);
    const tagId = created.json().data.id as string;
    expect((await call('PUT', `${base}/${tagId}`, company, { tag: 'Convênio Lima' })).statusCode).toBe(200);
    expect((await call('DELETE', `${base}/${tagId}`, company)).statusCode).toBe(200);
    const trail = (await call('GET', `${BASE}/audit?event=TAG_RENAMED`, company)).json().data;
    expect(trail.items).toHaveLength(1);
    expect(trail.items[0]).toMatchObject({ tenant: w.institution.code, systemUser: { role: 'COMPANY' } });
    expect(trail.items[0].detail).toContain('Convênio Lima');
    for (const event of ['TAG_CREATED', 'TAG_DELETED']) {
      expect((await call('GET', `${BASE}/audit?event=${event}`, w.tokens.admin)).json().data.total, event).toBe(1);
      expect((await call('GET', `${BASE}/audit?event=${event}`, foreignCompany)).json().data.total, event).toBe(0);
    }
  });

  it('lists the outbox per institution and queues a message again; company users see and resend their own only', async () => {
    const message = (id: string, institutionId: string | null, status: string) => ({
      id,
      channel: 'EMAIL',
      recipient: `${id}@example.com`,
      subject: 'Resultados',
      payload: JSON.stringify({ text: 't', html: '<p>t</p>' }),
      status,
      attempts: status === 'DEAD' ? 8 : 1,
      nextAttemptAt: '2026-11-20T10:00:00.000Z',
      lockedUntil: null,
      lastError: status === 'DEAD' ? '550 mailbox unavailable' : null,
      dedupeKey: null,
      createdAt: '2026-11-20T09:00:00.000Z',
      sentAt: null,
      institutionId,
    });
    await portal.ctx.db
      .insertInto('outbox')
      .values([
        message('dead-mail', w.institution.id, 'DEAD'),
        message('foreign-mail', elsewhere.id, 'DEAD'),
        message('foreign-waiting', elsewhere.id, 'PENDING'),
        message('portal-mail', null, 'DEAD'),
      ])
      .execute();
    // A mail queued for an institution (here its invitation of a physician) is counted as its.
    const invited = await call('POST', `${BASE}/physician/invite`, company, {
      email: 'dr.convidado@example.com',
      name: 'Dr Convidado',
      crm: '9191',
      uf: 'SP',
      institutionId: w.institution.id,
      language: 'pt-br',
    });
    expect(invited.statusCode).toBe(201);
    const queued = await portal.ctx.db
      .selectFrom('outbox')
      .select('institutionId')
      .where('recipient', '=', 'dr.convidado@example.com')
      .executeTakeFirstOrThrow();
    expect(queued.institutionId).toBe(w.institution.id);
    const ids = (page: { items: Array<{ id: string }> }) => page.items.map((i) => i.id).sort();
    const dead = (await call('GET', `${BASE}/outbox?status=DEAD`, w.tokens.admin)).json().data;
    expect(ids(dead)).toEqual(['dead-mail', 'foreign-mail', 'portal-mail']);
    expect(dead.items.find((i: { id: string }) => i.id === 'dead-mail')).toMatchObject({
      lastError: '550 mailbox unavailable',
      institution: { id: w.institution.id, name: w.institution.name },
    });
    expect(dead.items.find((i: { id: string }) => i.id === 'portal-mail').institution).toBeNull();
    const foreign = (await call('GET', `${BASE}/outbox?institutionId=${elsewhere.id}`, w.tokens.admin)).json().data;
    expect(ids(foreign)).toEqual(['foreign-mail', 'foreign-waiting']);

    // The dashboard counts each institution's waiting and given-up mails; the portal's figure all of them.
    const board = (await call('GET', `${BASE}/dashboard`, w.tokens.admin)).json().data;
    const of = (id: string) => board.institutions.find((i: { id: string }) => i.id === id);
    expect(of(elsewhere.id)).toMatchObject({ outboxWaiting: 1, outboxFailed: 1 });
    expect(of(w.institution.id).outboxFailed).toBe(1);
    expect(board.portal.outboxFailed).toBe(3);

    // A company user: its institution's messages only, in the list, the counts and the resends.
    const own = (await call('GET', `${BASE}/outbox`, company)).json().data;
    expect(own.items.length).toBeGreaterThan(0);
    expect(own.items.every((i: { institution: { id: string } | null }) => i.institution?.id === w.institution.id)).toBe(
      true,
    );
    expect(ids((await call('GET', `${BASE}/outbox?status=DEAD`, company)).json().data)).toEqual(['dead-mail']);
    expect((await call('GET', `${BASE}/outbox?institutionId=${elsewhere.id}`, company)).statusCode).toBe(404);
    const ownBoard = (await call('GET', `${BASE}/dashboard`, company)).json().data;
    expect(ownBoard.institutions).toHaveLength(1);
    expect(ownBoard.institutions[0]).toMatchObject({ id: w.institution.id, outboxFailed: 1 });
    expect(ownBoard.portal).toBeNull();
    expect((await call('POST', `${BASE}/outbox/foreign-mail/resend`, company)).statusCode).toBe(404);
    expect((await call('POST', `${BASE}/outbox/portal-mail/resend`, company)).statusCode).toBe(404);
    expect((await call('POST', `${BASE}/outbox/none/resend`, w.tokens.admin)).statusCode).toBe(404);
    expect((await call('POST', `${BASE}/outbox/dead-mail/resend`, company)).statusCode).toBe(200);
    expect((await call('POST', `${BASE}/outbox/portal-mail/resend`, w.tokens.admin)).statusCode).toBe(200);
    const rows = await portal.ctx.db
      .selectFrom('outbox')
      .selectAll()
      .where('id', 'in', ['dead-mail', 'foreign-mail', 'portal-mail'])
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.id, r.status, r.attempts, r.lastError])).toEqual([
      ['dead-mail', 'PENDING', 0, null],
      ['foreign-mail', 'DEAD', 8, '550 mailbox unavailable'],
      ['portal-mail', 'PENDING', 0, null],
    ]);
    const trace = await portal.ctx.db
      .selectFrom('auditEvents')
      .select(['tenant', 'role'])
      .where('event', '=', 'OUTBOX_RESENT')
      .orderBy('occurredAt')
      .execute();
    // The company's resend is in its institution's trail, with who did it.
    expect(trace).toEqual(
      expect.arrayContaining([
        { tenant: w.institution.code, role: 'COMPANY' },
        { tenant: null, role: 'ADMIN' },
      ]),
    );
    expect(trace).toHaveLength(2);
    await portal.ctx.db.deleteFrom('outbox').where('id', 'in', ['foreign-mail', 'foreign-waiting']).execute();
  });

  it('finds people; company users see their institution’s company users and the physicians it invited or vouches for', async () => {
    const byName = (await call('GET', `${BASE}/accounts?search=dra alfa`, w.tokens.admin)).json().data;
    expect(byName.items.map((a: { id: string }) => a.id)).toEqual([ownPhysician.id]);
    const byCrm = (await call('GET', `${BASE}/accounts?search=6666`, w.tokens.admin)).json().data;
    expect(byCrm.items.map((a: { id: string }) => a.id)).toEqual([foreignPhysician.id]);
    const own = (await call('GET', `${BASE}/accounts`, company)).json().data;
    // Dr Pedro and Dr Outro were invited elsewhere but are vouched for by the company's institution.
    expect(own.items.map((a: { name: string }) => a.name).sort()).toEqual([
      'Cia Alfa',
      'Dr Outro',
      'Dr Pedro',
      'Dra Alfa',
    ]);
    expect(
      own.items
        .filter((a: { manageable: boolean }) => a.manageable)
        .map((a: { name: string }) => a.name)
        .sort(),
    ).toEqual(['Cia Alfa', 'Dra Alfa']);
    expect((await call('GET', `${BASE}/accounts?search=6666`, company)).json().data.total).toBe(0);
    const patients = (await call('GET', `${BASE}/accounts?type=PATIENT`, w.tokens.admin)).json().data;
    expect(patients.total).toBe(2);
    expect(patients.items[0]).toMatchObject({ state: 'ACTIVE', lockedUntil: null });
  });

  it('shows who vouches for a physician: every institution to admins, only its own to a company user', async () => {
    const vouch = (institutionId: string) =>
      portal.ctx.db
        .insertInto('physicianVouches')
        .values({ userId: foreignPhysician.id, institutionId, createdBy: null, createdAt: '2026-11-20T10:00:00.000Z' })
        .onConflict((oc) => oc.doNothing())
        .execute();
    await vouch(elsewhere.id);
    const names = (items: Array<{ vouchedBy: Array<{ name: string }> }>) => items[0]!.vouchedBy.map((v) => v.name);
    const before = (await call('GET', `${BASE}/accounts?search=6666`, w.tokens.admin)).json().data;
    expect(names(before.items)).toEqual(['Outra Clinica']);
    // Not vouched by the company's institution, not its own: the company user does not see him.
    expect((await call('GET', `${BASE}/accounts?search=6666`, company)).json().data.total).toBe(0);

    // The company vouches for him through the console's call: he is listed with its vouch only.
    const added = await call('POST', `${BASE}/institution/${w.institution.id}/physicians`, company, {
      userId: foreignPhysician.id,
    });
    expect(added.statusCode).toBe(201);
    const admin = (await call('GET', `${BASE}/accounts?search=6666`, w.tokens.admin)).json().data;
    expect(names(admin.items)).toEqual(['Clinica Alfa', 'Outra Clinica']);
    expect(admin.items[0].manageable).toBe(true);
    const seen = (await call('GET', `${BASE}/accounts?search=6666`, company)).json().data;
    expect(names(seen.items)).toEqual(['Clinica Alfa']);
    expect(seen.items[0]).toMatchObject({ manageable: false, institution: { name: 'Outra Clinica' } });
    const foreign = (await call('GET', `${BASE}/accounts?search=6666`, foreignCompany)).json().data;
    expect(names(foreign.items)).toEqual(['Outra Clinica']);
    // Listing him gives no power over his account, which is another institution's.
    const url = `${BASE}/accounts/${foreignPhysician.id}`;
    expect((await call('PUT', `${url}/disabled`, company, { disabled: true })).statusCode).toBe(404);
    expect((await call('POST', `${url}/sessions/end`, company)).statusCode).toBe(404);
    // Nor over the other institution's vouch.
    const other = await call(
      'DELETE',
      `${BASE}/institution/${elsewhere.id}/physicians/${foreignPhysician.id}`,
      company,
    );
    expect(other.statusCode).toBe(404);

    const removed = await call(
      'DELETE',
      `${BASE}/institution/${w.institution.id}/physicians/${foreignPhysician.id}`,
      company,
    );
    expect(removed.statusCode).toBe(200);
    expect((await call('GET', `${BASE}/accounts?search=6666`, company)).json().data.total).toBe(0);
    expect(names((await call('GET', `${BASE}/accounts?search=6666`, w.tokens.admin)).json().data.items)).toEqual([
      'Outra Clinica',
    ]);
    const trail = await portal.ctx.db
      .selectFrom('auditEvents')
      .select(['event', 'role', 'tenant'])
      .where('event', 'like', 'PHYSICIAN_%VOUCHED')
      .orderBy('event')
      .execute();
    expect(trail).toEqual([
      { event: 'PHYSICIAN_UNVOUCHED', role: 'COMPANY', tenant: w.institution.code },
      { event: 'PHYSICIAN_VOUCHED', role: 'COMPANY', tenant: w.institution.code },
    ]);
  });

  it('disables, re-enables, unlocks and signs out accounts within reach, tracing each', async () => {
    const physicianToken = await portal.sessionFor({
      role: 'PHYSICIAN',
      userId: ownPhysician.id,
      username: ownPhysician.email,
    });
    const probe = () => call('GET', '/api/v2/auth/validate', physicianToken);
    expect((await probe()).statusCode).toBe(200);
    const url = `${BASE}/accounts/${ownPhysician.id}`;
    expect((await call('PUT', `${url}/disabled`, foreignCompany, { disabled: true })).statusCode).toBe(404);
    expect(
      (await call('PUT', `${BASE}/accounts/${w.users.owner.id}/disabled`, company, { disabled: true })).statusCode,
    ).toBe(404);
    expect((await call('PUT', `${url}/disabled`, company, { disabled: true })).statusCode).toBe(200);
    expect((await probe()).statusCode).toBe(401);
    const listed = (await call('GET', `${BASE}/accounts?search=5555`, company)).json().data.items[0];
    expect(listed.state).toBe('DISABLED');
    expect((await call('PUT', `${url}/disabled`, company, { disabled: false })).statusCode).toBe(200);

    const until = '2026-11-20T13:00:00.000Z';
    await portal.ctx.db
      .insertInto('throttles')
      .values({
        key: `account:${ownPhysician.id}`,
        failures: 9,
        firstFailureAt: '2026-11-20T11:50:00.000Z',
        lastFailureAt: '2026-11-20T11:59:00.000Z',
        lockedUntil: until,
      })
      .execute();
    expect((await call('GET', `${BASE}/accounts?search=5555`, company)).json().data.items[0].lockedUntil).toBe(until);
    expect((await call('GET', `${BASE}/dashboard`, w.tokens.admin)).json().data.portal.lockedNow).toBe(1);
    expect((await call('POST', `${url}/unlock`, company)).statusCode).toBe(200);
    expect((await call('GET', `${BASE}/accounts?search=5555`, company)).json().data.items[0].lockedUntil).toBeNull();

    const second = await portal.sessionFor({
      role: 'PHYSICIAN',
      userId: ownPhysician.id,
      username: ownPhysician.email,
    });
    expect((await call('POST', `${url}/sessions/end`, w.tokens.admin)).statusCode).toBe(200);
    expect((await call('GET', '/api/v2/auth/validate', second)).statusCode).toBe(401);
    const events = await portal.ctx.db
      .selectFrom('auditEvents')
      .select(['event', 'role'])
      .where('event', 'like', 'ACCOUNT_%')
      .orderBy('occurredAt')
      .execute();
    expect(events.map((e) => e.event).sort()).toEqual(
      ['ACCOUNT_DISABLED', 'ACCOUNT_ENABLED', 'ACCOUNT_SESSIONS_ENDED', 'ACCOUNT_UNLOCKED'].sort(),
    );
  });

  it('filters people by state, LOCKED being a lock running now, within the company’s reach', async () => {
    const now = portal.ctx.clock.now().getTime();
    const lock = (key: string, minutes: number) => ({
      key,
      failures: 6,
      firstFailureAt: new Date(now - 600_000).toISOString(),
      lastFailureAt: new Date(now - 60_000).toISOString(),
      lockedUntil: new Date(now + minutes * 60_000).toISOString(),
    });
    const keys = [
      `account:${ownPhysician.id}`,
      `mfa:user:${foreignPhysician.id}`,
      `account:${w.users.owner.id}`,
      'protocol:foreign1',
    ];
    await portal.ctx.db
      .insertInto('throttles')
      .values([lock(keys[0]!, 5), lock(keys[1]!, 10), lock(keys[2]!, -1), lock(keys[3]!, 5)])
      .execute();
    const list = async (query: string, token: string) => {
      const page = (await call('GET', `${BASE}/accounts?${query}`, token)).json().data;
      return { total: page.total as number, names: (page.items as Array<{ name: string }>).map((a) => a.name) };
    };
    try {
      // The ended lock (owner) and a protocol number's lock are no account locked now.
      expect(await list('state=LOCKED', w.tokens.admin)).toEqual({ total: 2, names: ['Dr Outra', 'Dra Alfa'] });
      // The dashboard's figure counts the accounts that list holds, in all and per institution.
      const board = (await call('GET', `${BASE}/dashboard`, w.tokens.admin)).json().data;
      expect(board.portal.lockedNow).toBe(2);
      const locked = (id: string) => board.institutions.find((i: { id: string }) => i.id === id).lockedNow;
      expect([locked(w.institution.id), locked(elsewhere.id)]).toEqual([1, 1]);
      const own = (await call('GET', `${BASE}/dashboard`, company)).json().data.institutions;
      expect(own.map((i: { id: string; lockedNow: number }) => [i.id, i.lockedNow])).toEqual([[w.institution.id, 1]]);
      // Each figure opens that institution's locked people.
      expect(await list(`state=LOCKED&institutionId=${elsewhere.id}`, w.tokens.admin)).toEqual({
        total: 1,
        names: ['Dr Outra'],
      });
      expect((await call('GET', `${BASE}/accounts?institutionId=${elsewhere.id}`, company)).statusCode).toBe(404);
      expect(await list('state=LOCKED&type=PHYSICIAN&search=6666', w.tokens.admin)).toEqual({
        total: 1,
        names: ['Dr Outra'],
      });
      expect(await list('state=LOCKED', company)).toEqual({ total: 1, names: ['Dra Alfa'] });
      expect(await list('state=LOCKED', foreignCompany)).toEqual({ total: 1, names: ['Dr Outra'] });
      expect((await call('GET', `${BASE}/accounts?state=locked`, w.tokens.admin)).statusCode).toBe(400);

      expect(
        (await call('PUT', `${BASE}/accounts/${ownPhysician.id}/disabled`, company, { disabled: true })).statusCode,
      ).toBe(200);
      expect(await list('state=DISABLED', company)).toEqual({ total: 1, names: ['Dra Alfa'] });
      const active = await list('state=ACTIVE&type=PHYSICIAN', w.tokens.admin);
      expect(active.names).toContain('Dr Outra');
      expect(active.names).not.toContain('Dra Alfa');
    } finally {
      await portal.ctx.db.deleteFrom('throttles').where('key', 'in', keys).execute();
      await call('PUT', `${BASE}/accounts/${ownPhysician.id}/disabled`, company, { disabled: false });
    }
  });
});
