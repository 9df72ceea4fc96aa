import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { lastLinkTo } from '../accounts/test-factories.js';
import { makeInstitution, makeProtocol, makeShare, makeUser, makeWorld } from './test-factories.js';

type World = Awaited<ReturnType<typeof makeWorld>>;
const CALLERS = [
  'owner',
  'otherPatient',
  'physician',
  'otherPhysician',
  'external',
  'otherExternal',
  'guestA',
  'guestB',
  'share',
  'revokedShare',
  'admin',
  'anonymous',
] as const;
type Caller = (typeof CALLERS)[number];

/** Expected status per caller, in CALLERS order. */
type Row = [string, 'GET' | 'POST', (w: World) => string, number[], ((w: World) => unknown)?];

const ROWS: Row[] = [
  [
    'patient/guest dashboard',
    'GET',
    () => '/api/v2/delivery/dashboard/protocols',
    [200, 200, 403, 403, 403, 403, 200, 200, 200, 401, 403, 401],
  ],
  [
    'guest list form',
    'GET',
    () => '/api/v2/delivery/protocols/exams?username=x&birthdate=02/01/1980',
    [200, 200, 403, 403, 403, 403, 200, 200, 200, 401, 403, 401],
  ],
  [
    'physician list',
    'GET',
    () => '/api/delivery/persistence/protocols/physician',
    [403, 403, 200, 200, 403, 403, 403, 403, 403, 401, 403, 401],
  ],
  [
    'physician list (all)',
    'GET',
    () => '/api/delivery/persistence/protocols/all',
    [403, 403, 200, 200, 403, 403, 403, 403, 403, 401, 403, 401],
  ],
  [
    'external list',
    'GET',
    () => '/api/v2/delivery/protocols/listedByTags',
    [403, 403, 200, 200, 200, 200, 403, 403, 403, 401, 403, 401],
  ],
  [
    'patient top protocols',
    'GET',
    () => '/api/delivery/persistence/dashboard/protocols/patient/byTotal?total=10',
    [200, 200, 403, 403, 403, 403, 403, 403, 403, 401, 403, 401],
  ],
  [
    'detail of A (v2)',
    'GET',
    (w) => `/api/v2/delivery/dashboard/protocols/exams?request=${w.a.protocol.id}`,
    [200, 404, 200, 404, 404, 404, 200, 404, 200, 401, 403, 401],
  ],
  [
    'detail of A (byId)',
    'GET',
    (w) => `/api/delivery/persistence/dashboard/protocol/byId?id=${w.a.protocol.id}`,
    [200, 404, 200, 404, 404, 404, 200, 404, 200, 401, 403, 401],
  ],
  [
    'detail of C (tagged)',
    'GET',
    (w) => `/api/delivery/persistence/exams?byId=${w.c.protocol.id}`,
    [404, 404, 404, 404, 200, 404, 404, 404, 404, 401, 403, 401],
  ],
  [
    'report of A',
    'GET',
    (w) => `/api/v2/delivery/resource/report?resourceId=${w.resources.reportA.id}`,
    [200, 404, 200, 404, 404, 404, 200, 404, 200, 401, 403, 401],
  ],
  [
    'report of C',
    'GET',
    (w) => `/api/v2/delivery/resource/report?resourceId=${w.resources.reportC.id}`,
    [404, 404, 404, 404, 200, 404, 404, 404, 404, 401, 403, 401],
  ],
  [
    'image of A',
    'GET',
    (w) => `/api/v2/delivery/resource/image?resourceId=${w.resources.imageA.id}`,
    [200, 404, 200, 404, 404, 404, 200, 404, 200, 401, 403, 401],
  ],
  [
    'signature of A',
    'GET',
    (w) => `/api/v2/delivery/resource/signature?resourceId=${w.resources.reportA.id}`,
    [200, 404, 200, 404, 404, 404, 200, 404, 200, 401, 403, 401],
  ],
  [
    'history exam types',
    'GET',
    () => '/api/delivery/examtypes/range',
    [200, 200, 403, 403, 403, 403, 403, 403, 403, 401, 403, 401],
  ],
  [
    'history attributes',
    'GET',
    () => '/api/delivery/history/attributes?examTypeInstitutionId=x',
    [200, 200, 403, 403, 403, 403, 403, 403, 403, 401, 403, 401],
  ],
  [
    'history table',
    'GET',
    () => '/api/delivery/history?examTypeInstitutionId=x&attributeId=y',
    [200, 200, 403, 403, 403, 403, 403, 403, 403, 401, 403, 401],
  ],
  [
    'user tags',
    'GET',
    () => '/api/v2/delivery/institutionUserTags',
    [200, 200, 200, 200, 200, 200, 200, 200, 200, 401, 200, 401],
  ],
  [
    'trace read',
    'GET',
    (w) => `/api/administrationbe/trace?protocol=${w.a.protocol.id}`,
    [403, 403, 403, 403, 403, 403, 403, 403, 403, 401, 200, 401],
  ],
  [
    'batch print of C',
    'POST',
    () => '/api/v2/delivery/resource/batchPrinting',
    [403, 403, 404, 404, 200, 404, 403, 403, 403, 401, 403, 401],
    (w) => ({ requestIds: [w.c.protocol.id], isCompressed: true }),
  ],
  [
    'batch print of A',
    'POST',
    () => '/api/v2/delivery/resource/batchPrinting',
    [403, 403, 200, 404, 404, 404, 403, 403, 403, 401, 403, 401],
    (w) => ({ requestIds: [w.a.protocol.id], isCompressed: false }),
  ],
];

describe('access matrix of every delivery endpoint', () => {
  let portal: TestPortal;
  let w: World;
  const tokens = {} as Record<Caller, string | null>;

  beforeAll(async () => {
    portal = await startTestPortal();
    w = await makeWorld(portal.ctx, (i) => portal.sessionFor(i));
    const revoked = await makeShare(portal.ctx, w.users.owner.id, [w.a.protocol.id], (i) => portal.sessionFor(i));
    await revoked.revoke();
    Object.assign(tokens, w.tokens, { revokedShare: revoked.token, anonymous: null });
  });
  afterAll(async () => portal?.destroy());

  it.each(ROWS)('%s', async (_name, method, url, expected, body) => {
    const got: Record<string, number> = {};
    const want: Record<string, number> = {};
    for (const [i, caller] of CALLERS.entries()) {
      const token = tokens[caller];
      const res = await portal.app.inject({
        method,
        url: url(w),
        headers: token ? bearer(token) : {},
        ...(body ? { payload: body(w) as Record<string, unknown> } : {}),
      });
      got[caller] = res.statusCode;
      want[caller] = expected[i]!;
    }
    expect(got).toEqual(want);
  });
});

/**
 * A license opens a protocol only where the protocol's institution vouched for the physician: a
 * partner clinic inviting someone with another clinic's requester CRM opens nothing of that clinic.
 */
describe('access matrix of a license vouched for per institution', () => {
  let portal: TestPortal;
  let w: World;
  let partner: { id: string; code: string };
  let partnerStaff: string;
  let impostor: { id: string; token: string };

  beforeAll(async () => {
    portal = await startTestPortal();
    w = await makeWorld(portal.ctx, (i) => portal.sessionFor(i));
    partner = await makeInstitution(portal.ctx, { name: 'Clinica Parceira' });
    const staff = await makeUser(portal.ctx, { type: 'COMPANY', institutionId: partner.id });
    partnerStaff = await portal.sessionFor({
      role: 'COMPANY',
      userId: staff.id,
      username: staff.email,
      appKey: 'admin',
    });
    // The partner's staff invites an account with Dr Pedro's CRM (Clinica Alfa's requester).
    const invite = await portal.app.inject({
      method: 'POST',
      url: '/api/administrationbe/physician/invite',
      headers: bearer(partnerStaff),
      payload: { email: 'impostor@partner.test', name: 'Dr Falso', crm: '12345', uf: 'SP', institutionId: partner.id },
    });
    expect(invite.statusCode, invite.body).toBe(201);
    const link = await lastLinkTo(portal.ctx, 'impostor@partner.test');
    const created = await portal.app.inject({
      method: 'POST',
      url: '/api/v2/auth/physician/create',
      payload: { token: link.searchParams.get('token'), fullName: 'Dr Falso', password: 'Estetoscopio#9' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().data.id as string;
    impostor = {
      id,
      token: await portal.sessionFor({ role: 'PHYSICIAN', userId: id, username: 'impostor@partner.test' }),
    };
  });
  afterAll(async () => portal?.destroy());

  /** Every call that opens protocol A or its files, with the status it answered. */
  const reachOfA = async (token: string) => {
    const calls: Array<[string, 'GET' | 'POST', string, Record<string, unknown>?]> = [
      ['detail', 'GET', `/api/v2/delivery/dashboard/protocols/exams?request=${w.a.protocol.id}`],
      ['detail byId', 'GET', `/api/delivery/persistence/dashboard/protocol/byId?id=${w.a.protocol.id}`],
      ['exams', 'GET', `/api/delivery/persistence/exams?byId=${w.a.protocol.id}`],
      ['report', 'GET', `/api/v2/delivery/resource/report?resourceId=${w.resources.reportA.id}`],
      ['image', 'GET', `/api/v2/delivery/resource/image?resourceId=${w.resources.imageA.id}`],
      ['signature', 'GET', `/api/v2/delivery/resource/signature?resourceId=${w.resources.reportA.id}`],
      [
        'batch print',
        'POST',
        '/api/v2/delivery/resource/batchPrinting',
        { requestIds: [w.a.protocol.id], isCompressed: false },
      ],
    ];
    const got: Record<string, number> = {};
    for (const [name, method, url, payload] of calls) {
      const res = await portal.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
      got[name] = res.statusCode;
    }
    const lists: Record<string, number> = {};
    for (const url of ['/api/delivery/persistence/protocols/physician', '/api/delivery/persistence/protocols/all']) {
      const res = await portal.app.inject({ url: `${url}?initialDate=01/01/2020&size=1`, headers: bearer(token) });
      expect(res.statusCode).toBe(200);
      lists[url] = res.json().data.total;
    }
    return { got, lists };
  };
  const every = (status: number) =>
    Object.fromEntries(
      ['detail', 'detail byId', 'exams', 'report', 'image', 'signature', 'batch print'].map((n) => [n, status]),
    );
  const totals = (n: number) => ({
    '/api/delivery/persistence/protocols/physician': n,
    '/api/delivery/persistence/protocols/all': n,
  });

  it("opens nothing of another clinic to an account a partner invited with that clinic's requester CRM", async () => {
    expect(await reachOfA(impostor.token)).toEqual({ got: every(404), lists: totals(0) });
    // The real physician, vouched for by Clinica Alfa, is not blocked by the second account.
    expect(await reachOfA(w.tokens.physician)).toEqual({ got: every(200), lists: totals(1) });
  });

  it("opens the partner's own protocols requested under the license, and counts them exactly", async () => {
    const own = await makeProtocol(portal.ctx, {
      institutionId: partner.id,
      exams: [{ description: 'Eco', requester: { crm: '12345', uf: 'SP' } }],
    });
    const detail = `/api/delivery/persistence/dashboard/protocol/byId?id=${own.protocol.id}`;
    const open = (token: string) => portal.app.inject({ url: detail, headers: bearer(token) });
    expect((await open(impostor.token)).statusCode).toBe(200);
    expect((await open(w.tokens.physician)).statusCode).toBe(404);
    expect((await reachOfA(impostor.token)).lists).toEqual(totals(1));
    expect((await reachOfA(w.tokens.physician)).lists).toEqual(totals(1));
  });

  it("opens another clinic's protocols once that clinic vouches, and closes them when it withdraws", async () => {
    const admin = w.tokens.admin;
    const url = `/api/administrationbe/institution/${w.institution.id}/physicians`;
    const vouch = await portal.app.inject({
      method: 'POST',
      url,
      headers: bearer(admin),
      payload: { userId: impostor.id },
    });
    expect(vouch.statusCode, vouch.body).toBe(201);
    expect(await reachOfA(impostor.token)).toEqual({ got: every(200), lists: totals(2) });
    const withdraw = await portal.app.inject({
      method: 'DELETE',
      url: `${url}/${impostor.id}`,
      headers: bearer(admin),
    });
    expect(withdraw.statusCode).toBe(200);
    expect(await reachOfA(impostor.token)).toEqual({ got: every(404), lists: totals(1) });
  });

  it("lets a partner's staff vouch only for their own institution", async () => {
    const other = `/api/administrationbe/institution/${w.institution.id}/physicians`;
    const send = (method: 'GET' | 'POST' | 'DELETE', url: string, token: string, payload?: Record<string, unknown>) =>
      portal.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
    expect((await send('GET', other, partnerStaff)).statusCode).toBe(404);
    expect((await send('POST', other, partnerStaff, { userId: impostor.id })).statusCode).toBe(404);
    expect((await send('DELETE', `${other}/${w.users.physician.id}`, partnerStaff)).statusCode).toBe(404);
    for (const caller of ['physician', 'owner', 'external'] as const) {
      expect((await send('POST', other, w.tokens[caller], { userId: impostor.id })).statusCode).toBe(403);
    }
    expect(await reachOfA(impostor.token)).toEqual({ got: every(404), lists: totals(1) });
    // Still Dr Pedro's clinic alone that vouches for him.
    const own = await send('GET', other, w.tokens.admin);
    expect(
      own
        .json()
        .data.map((p: { id: string }) => p.id)
        .sort(),
    ).toEqual([w.users.physician.id, w.users.otherPhysician.id].sort());
  });
});
