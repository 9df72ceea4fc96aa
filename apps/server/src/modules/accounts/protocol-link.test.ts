import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { makeInstitution, makeProtocol, makeUser } from './test-factories.js';

describe('link protocol: isValidProtocol and bindProtocol', () => {
  let portal: TestPortal;
  let institutionId: string;
  let patient: Awaited<ReturnType<typeof makeUser>>;
  let other: Awaited<ReturnType<typeof makeUser>>;
  let token: string;

  beforeAll(async () => {
    portal = await startTestPortal();
    institutionId = (await makeInstitution(portal.ctx)).id;
    patient = await makeUser(portal.ctx, { email: 'linker@mail.test' });
    other = await makeUser(portal.ctx, { email: 'someone@mail.test' });
  });
  beforeEach(async () => {
    token = await portal.sessionFor({ role: 'PATIENT', userId: patient.id, username: patient.email });
  });
  afterAll(async () => portal?.destroy());

  const check = (protocol: string, password: string, headers = {}) =>
    portal.app.inject({
      method: 'GET',
      url: `/api/v2/auth/isValidProtocol?protocol=${encodeURIComponent(protocol)}&password=${encodeURIComponent(password)}`,
      headers,
    });
  const bind = (payload: Record<string, unknown>, auth = token) =>
    portal.app.inject({ method: 'POST', url: '/api/v2/auth/user/bindProtocol', headers: bearer(auth), payload });

  it('answers the catalogue for valid, unknown, wrong password and disabled protocols', async () => {
    const protocol = await makeProtocol(portal.ctx, { institutionId, password: 'segredo-1' });
    const valid = await check(protocol.number, 'segredo-1');
    expect(valid.statusCode).toBe(200);
    expect(valid.json()).toEqual({ data: true, message: 'The protocol is valid!' });

    const unknown = await check('NO-SUCH-1', 'x');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().message).toBe('Protocol does not exists!');
    const wrong = await check(protocol.number, 'wrong');
    expect(wrong.json().message).toBe('Passwords are not the same!');

    const disabled = await makeProtocol(portal.ctx, { institutionId, password: 'segredo-2', disabled: true });
    const off = await check(disabled.number, 'segredo-2');
    expect(off.statusCode).toBe(404);
    expect(off.json().message).toBe("There's no protocol(s) retrieved or the protocol is disabled!");
  });

  it('links a protocol to the caller, then answers 409 "already in use" for it', async () => {
    const protocol = await makeProtocol(portal.ctx, { institutionId, password: 'segredo-3' });
    const res = await bind({ protocol: protocol.number, password: 'segredo-3', patientUserId: patient.id });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.requestIds).toEqual([protocol.id]);
    const row = await portal.ctx.db
      .selectFrom('protocols')
      .select('patientUserId')
      .where('id', '=', protocol.id)
      .executeTakeFirstOrThrow();
    expect(row.patientUserId).toBe(patient.id);

    const again = await bind({ protocol: protocol.number, password: 'segredo-3', patientUserId: patient.id });
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe('The protocol is already in use by the patient!');
    const checked = await check(protocol.number, 'segredo-3', bearer(token));
    expect(checked.json().message).toBe('The protocol is already in use by the patient!');
  });

  it("refuses another patient's protocol and linking for someone else", async () => {
    const taken = await makeProtocol(portal.ctx, { institutionId, password: 'segredo-4', patientUserId: other.id });
    const res = await bind({ protocol: taken.number, password: 'segredo-4', patientUserId: patient.id });
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe('The protocol is already linked to another account!');

    const free = await makeProtocol(portal.ctx, { institutionId, password: 'segredo-5' });
    const forOther = await bind({ protocol: free.number, password: 'segredo-5', patientUserId: other.id });
    expect(forOther.statusCode).toBe(404);
    const physician = await portal.sessionFor({ role: 'PHYSICIAN', userId: other.id, username: other.email });
    expect(
      (await bind({ protocol: free.number, password: 'segredo-5', patientUserId: other.id }, physician)).statusCode,
    ).toBe(403);
    const row = await portal.ctx.db
      .selectFrom('protocols')
      .select('patientUserId')
      .where('id', '=', free.id)
      .executeTakeFirstOrThrow();
    expect(row.patientUserId).toBeNull();
  });

  it('throttles password guesses per protocol number: 429 with Retry-After, even with the right password', async () => {
    const protocol = await makeProtocol(portal.ctx, { institutionId, password: 'segredo-6' });
    for (let i = 0; i < 5; i++) {
      expect((await check(protocol.number, `guess-${i}`)).statusCode).toBe(400);
    }
    const locked = await check(protocol.number, 'segredo-6');
    expect(locked.statusCode).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const bound = await bind({ protocol: protocol.number, password: 'segredo-6', patientUserId: patient.id });
    expect(bound.statusCode).toBe(429);
    portal.clock.advance(61_000);
    token = await portal.sessionFor({ role: 'PATIENT', userId: patient.id, username: patient.email });
    expect(
      (await bind({ protocol: protocol.number, password: 'segredo-6', patientUserId: patient.id })).statusCode,
    ).toBe(200);
  });
});
