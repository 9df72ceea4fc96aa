import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { makeShare, makeWorld } from './test-factories.js';

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
    [403, 403, 403, 403, 200, 200, 403, 403, 403, 401, 403, 401],
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
