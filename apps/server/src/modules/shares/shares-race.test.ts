import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { makeInstitution, makeProtocol, makeUser } from '../accounts/test-factories.js';

const IN_FLIGHT = 32;

/** A share revoked by many calls at once (a double click, a retrying client): revoked once, traced once. */
describe('share revocation under concurrent calls', () => {
  let portal: TestPortal;
  beforeAll(async () => {
    portal = await startTestPortal();
  });
  afterAll(async () => portal?.destroy());

  it(`traces one revocation when ${IN_FLIGHT} revocations of one share are in flight`, async () => {
    const institutionId = (await makeInstitution(portal.ctx)).id;
    const patient = await makeUser(portal.ctx, { email: 'dona@mail.test', name: 'Maria da Silva' });
    const token = await portal.sessionFor({ role: 'PATIENT', userId: patient.id, username: patient.email });
    const protocol = await makeProtocol(portal.ctx, { institutionId, patientUserId: patient.id });
    const created = await portal.app.inject({
      method: 'POST',
      url: '/api/auth/protocol/share',
      headers: bearer(token),
      payload: { emails: ['medica@mail.test'], protocols: [protocol.id] },
    });
    expect(created.statusCode).toBe(201);
    const shareId = created.json().data.shares[0].id as string;
    const answers = await Promise.all(
      Array.from({ length: IN_FLIGHT }, () =>
        portal.app.inject({ method: 'POST', url: `/api/auth/patient/share/${shareId}/revoke`, headers: bearer(token) }),
      ),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array(IN_FLIGHT).fill(200));
    const trail = await portal.ctx.db
      .selectFrom('auditEvents')
      .select('id')
      .where('event', '=', 'SHARE_REVOKED')
      .where('protocolId', '=', protocol.id)
      .execute();
    expect(trail).toHaveLength(1);
  });
});
