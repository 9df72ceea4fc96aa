import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { lastLinkTo, makeInstitution, makeProtocol, makeUser } from '../accounts/test-factories.js';

const DAY = 24 * 3600_000;

describe('sharing protocols by e-mail', () => {
  let portal: TestPortal;
  let patient: Awaited<ReturnType<typeof makeUser>>;
  let other: Awaited<ReturnType<typeof makeUser>>;
  let patientToken: string;
  let otherToken: string;
  let institutionId: string;

  beforeAll(async () => {
    portal = await startTestPortal();
    institutionId = (await makeInstitution(portal.ctx)).id;
    patient = await makeUser(portal.ctx, { email: 'owner@mail.test', name: 'Maria da Silva' });
    other = await makeUser(portal.ctx, { email: 'other@mail.test' });
  });
  // Sessions last an hour and some tests move the clock by days: each test signs in again.
  beforeEach(async () => {
    patientToken = await portal.sessionFor({ role: 'PATIENT', userId: patient.id, username: patient.email });
    otherToken = await portal.sessionFor({ role: 'PATIENT', userId: other.id, username: other.email });
  });
  afterAll(async () => portal?.destroy());

  const share = (token: string, payload: Record<string, unknown>) =>
    portal.app.inject({ method: 'POST', url: '/api/auth/protocol/share', headers: bearer(token), payload });
  const list = (token: string, userId: string) =>
    portal.app.inject({ method: 'GET', url: `/api/auth/patient/${userId}/shares`, headers: bearer(token) });
  const validate = (token: string) =>
    portal.app.inject({ method: 'GET', url: '/api/v2/auth/validate', headers: bearer(token) });
  const landingToken = async (email: string) => {
    const link = await lastLinkTo(portal.ctx, email);
    expect(link.pathname.startsWith('/landing/')).toBe(true);
    return link.pathname.slice('/landing/'.length);
  };

  it('sends one link per e-mail; each link opens a session over the shared protocols only', async () => {
    const shared = await makeProtocol(portal.ctx, { institutionId, patientUserId: patient.id });
    const notShared = await makeProtocol(portal.ctx, { institutionId, patientUserId: patient.id });
    const res = await share(patientToken, {
      emails: ['Doctor@Mail.test', 'family@mail.test'],
      protocols: [shared.id],
      message: 'Resultados do exame',
      period: 7,
      language: 'pt-br',
      token: 'ignored',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.shares).toHaveLength(2);

    const tokens = [await landingToken('doctor@mail.test'), await landingToken('family@mail.test')];
    expect(tokens[0]).not.toBe(tokens[1]);
    for (const token of tokens) {
      const session = await validate(token);
      expect(session.statusCode).toBe(200);
      expect(session.json().data).toMatchObject({ countProtocols: 1, isUserType: false, isPhysicianType: false });
      expect(session.json().data.username).not.toContain('@');
      const share = await portal.ctx.db
        .selectFrom('shares')
        .selectAll()
        .where('tokenHash', '=', (await import('../../lib/ids.js')).sha256Hex(token))
        .executeTakeFirstOrThrow();
      expect(share.daysExpiration).toBe(7);
      // The recipient is told until when: the share's end, 7 days after it was made.
      expect(session.json().data.shareExpiresAt).toBe(share.expiresAt);
      expect(new Date(share.expiresAt).getTime() - new Date(share.createdAt).getTime()).toBe(7 * 24 * 3600_000);
      const reach = await portal.ctx.db
        .selectFrom('sessions')
        .innerJoin('sessionProtocols', 'sessionProtocols.sessionId', 'sessions.id')
        .select('sessionProtocols.protocolId')
        .where('sessions.shareId', '=', share.id)
        .execute();
      expect(reach.map((r) => r.protocolId)).toEqual([shared.id]);
      const listed = await portal.app.inject({
        method: 'GET',
        url: '/api/v2/delivery/dashboard/protocols',
        headers: bearer(token),
      });
      expect(listed.statusCode).toBe(200);
      const numbers = (listed.json().data.items as Array<{ number: string }>).map((p) => p.number);
      expect(numbers).toEqual([shared.number]);
      expect(numbers).not.toContain(notShared.number);
    }

    const audit = await portal.ctx.db
      .selectFrom('auditEvents')
      .selectAll()
      .where('event', '=', 'SHARE_CREATED')
      .where('protocolId', '=', shared.id)
      .execute();
    expect(audit.map((a) => a.sharedWith).sort()).toEqual(['doctor@mail.test', 'family@mail.test']);

    const page = await list(patientToken, patient.id);
    expect(page.statusCode).toBe(200);
    expect(page.json().data).toMatchObject({ total: 2, page: 1, size: 10 });
    expect(page.json().data.items[0]).toMatchObject({
      protocolNumber: shared.number,
      daysExpiration: 7,
      active: true,
      expired: false,
      canceled: false,
    });
    expect(page.json().data.items[0].creationDate).toBe('2026-11-20T12:00:00.000Z');
  });

  it('revoking ends the link at once with a message containing "is expired!"', async () => {
    const protocol = await makeProtocol(portal.ctx, { institutionId, patientUserId: patient.id });
    const res = await share(patientToken, { emails: ['revoke-me@mail.test'], protocols: [protocol.id] });
    expect(res.statusCode).toBe(201);
    const shareId = res.json().data.shares[0].id;
    const token = await landingToken('revoke-me@mail.test');
    expect((await validate(token)).statusCode).toBe(200);

    const notYours = await portal.app.inject({
      method: 'POST',
      url: `/api/auth/patient/share/${shareId}/revoke`,
      headers: bearer(otherToken),
    });
    expect(notYours.statusCode).toBe(404);
    expect((await validate(token)).statusCode).toBe(200);

    const revoke = await portal.app.inject({
      method: 'POST',
      url: `/api/auth/patient/share/${shareId}/revoke`,
      headers: bearer(patientToken),
    });
    expect(revoke.statusCode).toBe(200);
    const after = await validate(token);
    expect(after.statusCode).toBe(401);
    expect(after.json().message).toContain('is expired!');

    const item = (await list(patientToken, patient.id)).json().data.items.find((i: { id: string }) => i.id === shareId);
    expect(item).toMatchObject({ active: false, canceled: true });
    const audit = await portal.ctx.db
      .selectFrom('auditEvents')
      .select('event')
      .where('event', '=', 'SHARE_REVOKED')
      .where('protocolId', '=', protocol.id)
      .execute();
    expect(audit).toHaveLength(1);
  });

  it('a link stops working when its period ends', async () => {
    const protocol = await makeProtocol(portal.ctx, { institutionId, patientUserId: patient.id });
    const res = await share(patientToken, { emails: ['short@mail.test'], protocols: [protocol.id], period: 1 });
    const token = await landingToken('short@mail.test');
    expect((await validate(token)).statusCode).toBe(200);
    portal.clock.advance(DAY + 1000);
    const after = await validate(token);
    expect(after.statusCode).toBe(401);
    expect(after.json().message).toContain('is expired!');
    const fresh = await portal.sessionFor({ role: 'PATIENT', userId: patient.id, username: patient.email });
    const item = (await list(fresh, patient.id))
      .json()
      .data.items.find((i: { id: string }) => i.id === res.json().data.shares[0].id);
    expect(item).toMatchObject({ active: true, expired: true, canceled: false });
  });

  it("refuses another patient's protocols and shares as not found", async () => {
    const mine = await makeProtocol(portal.ctx, { institutionId, patientUserId: patient.id });
    const foreign = await share(otherToken, { emails: ['x@mail.test'], protocols: [mine.id] });
    expect(foreign.statusCode).toBe(404);
    expect((await list(otherToken, patient.id)).statusCode).toBe(404);
    expect((await list(patientToken, patient.id)).statusCode).toBe(200);
  });

  it('refuses callers that are not patients, and institutions that turned sharing off', async () => {
    const protocol = await makeProtocol(portal.ctx, { institutionId, patientUserId: patient.id });
    const physician = await portal.sessionFor({ role: 'PHYSICIAN', userId: other.id, username: other.email });
    expect((await share(physician, { emails: ['a@mail.test'], protocols: [protocol.id] })).statusCode).toBe(403);
    const guest = await portal.sessionFor({ role: 'GUEST', username: protocol.number, protocolIds: [protocol.id] });
    expect((await share(guest, { emails: ['a@mail.test'], protocols: [protocol.id] })).statusCode).toBe(403);
    const anonymous = await portal.app.inject({
      method: 'POST',
      url: '/api/auth/protocol/share',
      payload: { emails: ['a@mail.test'], protocols: [protocol.id] },
    });
    expect(anonymous.statusCode).toBe(401);

    const closed = await makeInstitution(portal.ctx, { settings: { shareEnabled: false } });
    const closedProtocol = await makeProtocol(portal.ctx, { institutionId: closed.id, patientUserId: patient.id });
    const refused = await share(patientToken, { emails: ['a@mail.test'], protocols: [closedProtocol.id] });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toBe('Sharing is not allowed for this protocol.');
  });

  it('holds 25 recipients an hour against 40 calls in flight at once', async () => {
    const sender = await makeUser(portal.ctx, { email: 'burst-sender@mail.test' });
    const token = await portal.sessionFor({ role: 'PATIENT', userId: sender.id, username: sender.email });
    const protocol = await makeProtocol(portal.ctx, { institutionId, patientUserId: sender.id });
    // 23 of the hour's 25 used first, one call after the other.
    for (let call = 0; call < 5; call++) {
      const emails = Array.from({ length: call < 4 ? 5 : 3 }, (_, i) => `early-${call}-${i}@mail.test`);
      expect((await share(token, { emails, protocols: [protocol.id] })).statusCode).toBe(201);
    }
    const burst = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        portal.app.inject({
          method: 'POST',
          url: '/api/auth/protocol/share',
          headers: bearer(token),
          // Each from its own address, so the limit of shares is what answers, not the address's.
          remoteAddress: `10.9.${Math.floor(i / 200)}.${(i % 200) + 1}`,
          payload: { emails: [`burst-${i}@mail.test`], protocols: [protocol.id] },
        }),
      ),
    );
    const codes = burst.map((r) => r.statusCode);
    const created = codes.filter((c) => c === 201).length;
    expect(codes.filter((c) => c !== 201 && c !== 429)).toEqual([]);
    expect(created).toBeGreaterThan(0);
    expect(created).toBeLessThanOrEqual(2);
    const rows = await portal.ctx.db
      .selectFrom('shares')
      .select('email')
      .where('patientUserId', '=', sender.id)
      .execute();
    expect(rows).toHaveLength(23 + created);
    const mails = await portal.ctx.db
      .selectFrom('outbox')
      .select('recipient')
      .where('recipient', 'like', 'burst-%@mail.test')
      .execute();
    expect(mails).toHaveLength(created);
    // The hour's last slot is taken: one more recipient is refused with the time to wait.
    const more = await share(token, { emails: ['late@mail.test'], protocols: [protocol.id] });
    if (created === 2) {
      expect(more.statusCode).toBe(429);
      expect(Number(more.headers['retry-after'])).toBeGreaterThan(0);
    }
  });

  it('validates the limits of spec 5 and 9: 1 to 5 e-mails, message of 120, preset periods', async () => {
    const protocol = await makeProtocol(portal.ctx, { institutionId, patientUserId: patient.id });
    const six = ['a', 'b', 'c', 'd', 'e', 'f'].map((n) => `${n}@mail.test`);
    expect((await share(patientToken, { emails: six, protocols: [protocol.id] })).statusCode).toBe(400);
    expect((await share(patientToken, { emails: [], protocols: [protocol.id] })).statusCode).toBe(400);
    expect((await share(patientToken, { emails: ['not-an-email'], protocols: [protocol.id] })).statusCode).toBe(400);
    expect(
      (await share(patientToken, { emails: ['a@mail.test'], protocols: [protocol.id], message: 'x'.repeat(121) }))
        .statusCode,
    ).toBe(400);
    expect(
      (await share(patientToken, { emails: ['a@mail.test'], protocols: [protocol.id], period: 2 })).statusCode,
    ).toBe(400);
    const defaults = await share(patientToken, { emails: ['default@mail.test'], protocols: [protocol.id] });
    expect(defaults.statusCode).toBe(201);
    expect(new Date(defaults.json().data.shares[0].expiresAt).getTime() - portal.clock.now().getTime()).toBe(3 * DAY);
  });
});
