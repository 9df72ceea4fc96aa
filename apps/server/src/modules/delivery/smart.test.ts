import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { makeInstitution, makeProtocol, makeUser } from './test-factories.js';

describe('SMART interlocution', () => {
  let portal: TestPortal;
  let owner: string;
  let stranger: string;
  let institutionId: string;
  let protocolId: string;
  let smartExamId: string;
  let plainExamId: string;

  beforeAll(async () => {
    portal = await startTestPortal();
    const institution = await makeInstitution(portal.ctx, {
      settings: { smart: { url: 'https://smart.example.test/open', secret: 'smart-secret-0123456789abcdef' } },
    });
    institutionId = institution.id;
    const user = await makeUser(portal.ctx, { type: 'PATIENT' });
    const other = await makeUser(portal.ctx, { type: 'PATIENT' });
    const p = await makeProtocol(portal.ctx, {
      institutionId,
      patientUserId: user.id,
      exams: [{ examKey: 'SMART-001' }, { examKey: 'PLAIN-1' }],
    });
    protocolId = p.protocol.id;
    smartExamId = p.exams[0]!.id;
    plainExamId = p.exams[1]!.id;
    owner = await portal.sessionFor({ role: 'PATIENT', userId: user.id, username: user.email });
    stranger = await portal.sessionFor({ role: 'PATIENT', userId: other.id, username: other.email });
  });
  afterAll(async () => portal?.destroy());

  const auth = (token: string | null, exam: string) =>
    portal.app.inject({
      method: 'GET',
      url: `/api/v2/delivery/interlocution/smart/auth?institution=${institutionId}&exam=${exam}`,
      headers: token ? bearer(token) : {},
    });
  const update = (payload: Record<string, unknown>) =>
    portal.app.inject({ method: 'POST', url: '/api/v2/delivery/interlocution/smart/updatestatus', payload });

  it('signs a short-lived token for the owner of a SMART exam only', async () => {
    const res = await auth(owner, smartExamId);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ url: 'https://smart.example.test/open', expiresIn: 300 });
    expect((await auth(stranger, smartExamId)).statusCode).toBe(404);
    expect((await auth(owner, plainExamId)).statusCode).toBe(404);
    expect((await auth(null, smartExamId)).statusCode).toBe(401);
  });

  it('accepts a status only with a valid token for that exam', async () => {
    const token = (await auth(owner, smartExamId)).json().data.token as string;
    const ok = await update({ authentication: token, request: protocolId, exam: 'SMART-001', status: 'done' });
    expect(ok.json()).toEqual({ data: { exam: smartExamId, status: 'DONE' } });
    expect((await update({ authentication: `${token}x`, request: protocolId, exam: smartExamId })).statusCode).toBe(
      401,
    );
    expect((await update({ authentication: token, request: protocolId, exam: plainExamId })).statusCode).toBe(401);
    expect((await update({ authentication: token, request: 'nope', exam: smartExamId })).statusCode).toBe(404);
    portal.clock.advance(301_000);
    expect((await update({ authentication: token, request: protocolId, exam: smartExamId })).statusCode).toBe(401);
    const rows = await portal.ctx.db.selectFrom('smartStatus').selectAll().execute();
    expect(rows.map((r) => r.status)).toEqual(['DONE']);
  });
});
