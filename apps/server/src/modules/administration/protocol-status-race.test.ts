import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { makeInstitution, makeProtocol, makeUser } from '../delivery/test-factories.js';

const IN_FLIGHT = 32;
const BASE = '/api/administrationbe';

/**
 * A protocol disabled and enabled again by many console calls at once: the trail keeps one entry
 * per change that happened, with its reason, so it tells the protocol's state.
 */
describe('protocol status under concurrent console calls', () => {
  let portal: TestPortal;
  let admin = '';
  let institutionId = '';
  const put = (id: string, disabled: boolean, reason: string) =>
    portal.app.inject({
      method: 'PUT',
      url: `${BASE}/protocols/${id}/status`,
      headers: bearer(admin),
      payload: { disabled, reason },
    });
  const trail = async (protocolId: string) => {
    const rows = await portal.ctx.db
      .selectFrom('auditEvents')
      .select(['event'])
      .where('protocolId', '=', protocolId)
      .where('event', 'in', ['PROTOCOL_DISABLED', 'PROTOCOL_ENABLED'])
      .execute();
    return {
      disabled: rows.filter((r) => r.event === 'PROTOCOL_DISABLED').length,
      enabled: rows.filter((r) => r.event === 'PROTOCOL_ENABLED').length,
    };
  };
  const stateOf = async (id: string) =>
    (await portal.ctx.db.selectFrom('protocols').select('disabled').where('id', '=', id).executeTakeFirstOrThrow())
      .disabled;

  beforeAll(async () => {
    portal = await startTestPortal();
    institutionId = (await makeInstitution(portal.ctx, { name: 'Clinica Status' })).id;
    const user = await makeUser(portal.ctx, { type: 'ADMIN', name: 'Admin' });
    admin = await portal.sessionFor({ role: 'ADMIN', userId: user.id, username: user.email });
  });
  afterAll(async () => portal?.destroy());

  it(`disables once when ${IN_FLIGHT} disables of one protocol are in flight`, async () => {
    const { protocol } = await makeProtocol(portal.ctx, { institutionId });
    const answers = await Promise.all(
      Array.from({ length: IN_FLIGHT }, (_, i) => put(protocol.id, true, `Cancelado pelo pedido ${i}`)),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array(IN_FLIGHT).fill(200));
    expect(await stateOf(protocol.id)).toBe(1);
    expect(await trail(protocol.id)).toEqual({ disabled: 1, enabled: 0 });
  });

  it(`keeps a trail that tells the state when ${IN_FLIGHT} disables and enables cross`, async () => {
    const { protocol } = await makeProtocol(portal.ctx, { institutionId });
    const answers = await Promise.all(
      Array.from({ length: IN_FLIGHT }, (_, i) => put(protocol.id, i % 2 === 0, `Motivo ${i}`)),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array(IN_FLIGHT).fill(200));
    // From enabled, each change flips it: as many disables as enables, or one more when it ends disabled.
    const { disabled, enabled } = await trail(protocol.id);
    expect(disabled - enabled).toBe(await stateOf(protocol.id));
  });
});
