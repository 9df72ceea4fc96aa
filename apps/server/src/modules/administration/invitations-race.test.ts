import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { lastLinkTo, linksTo, makeUser } from '../accounts/test-factories.js';

const BASE = '/api/administrationbe';
const IN_FLIGHT = 36;

/**
 * Invitations under attack: one admin invitation's link sent by many clients at once, and
 * resends and revocations of one invitation crossing each other. The answers may differ; what
 * stays is one account per invitation and at most one live link per address.
 */
describe('console invitations under concurrent calls', () => {
  let portal: TestPortal;
  let admin = '';
  let seq = 0;
  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, token: string | null, payload?: unknown) =>
    portal.app.inject({
      method,
      url,
      headers: token ? bearer(token) : {},
      // Each request from its own address: the sign-up pace per address is not what is tried here.
      remoteAddress: `10.9.${Math.floor(seq / 250)}.${(seq++ % 250) + 1}`,
      ...(payload ? { payload } : {}),
    });
  const invite = async (email: string) => {
    portal.clock.advance(1000);
    const sent = await call('POST', `${BASE}/admin/invite`, admin, { email, name: 'Admin Novo', language: 'pt-br' });
    expect(sent.statusCode).toBe(201);
    return sent.json().data.id as string;
  };
  const liveTokens = (email: string) =>
    portal.ctx.db
      .selectFrom('oneTimeTokens')
      .select(['id'])
      .where('email', '=', email)
      .where('kind', '=', 'INVITE_ADMIN')
      .where('usedAt', 'is', null)
      .execute();

  beforeAll(async () => {
    portal = await startTestPortal();
    const user = await makeUser(portal.ctx, { type: 'ADMIN', email: 'chefe@portal.test' });
    admin = await portal.sessionFor({ role: 'ADMIN', userId: user.id, username: user.email, appKey: 'admin' });
  });
  afterAll(async () => portal?.destroy());

  it(`creates exactly one account when one invitation is accepted by ${IN_FLIGHT} requests in flight`, async () => {
    await invite('disputada@portal.test');
    const token = (await lastLinkTo(portal.ctx, 'disputada@portal.test')).searchParams.get('token')!;
    const answers = await Promise.all(
      Array.from({ length: IN_FLIGHT }, (_, i) =>
        call('POST', '/api/auth/admin/create', null, {
          token,
          fullName: `Pessoa ${i}`,
          password: `Console-2026-forte-${i}`,
          confirmPassword: `Console-2026-forte-${i}`,
        }),
      ),
    );
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    // The rest are refused: the link is spent (404), or, past the password-hashing queue, the server is busy (503).
    expect(
      statuses.filter((s) => s !== 201).every((s) => s === 404 || s === 503),
      statuses.join(','),
    ).toBe(true);
    expect(statuses.filter((s) => s === 404).length).toBeGreaterThan(IN_FLIGHT / 2);
    const refusals = new Set(answers.filter((a) => a.statusCode === 404).map((a) => a.json().message));
    for (const message of refusals) expect(['Token not found', 'The user already exists!']).toContain(message);

    const accounts = await portal.ctx.db
      .selectFrom('users')
      .select(['id', 'type', 'name'])
      .where('email', '=', 'disputada@portal.test')
      .execute();
    expect(accounts).toHaveLength(1);
    expect(accounts[0]!.type).toBe('ADMIN');
    const winner = answers.findIndex((a) => a.statusCode === 201);
    expect(accounts[0]!.name).toBe(`Pessoa ${winner}`);
    expect(await liveTokens('disputada@portal.test')).toEqual([]);
    const created = await portal.ctx.db
      .selectFrom('auditEvents')
      .select('id')
      .where('event', '=', 'ADMIN_CREATED')
      .where('resource', 'like', `%${accounts[0]!.id}%`)
      .execute();
    expect(created).toHaveLength(1);
    // Only the winner's password opens the console.
    const signIn = (password: string) =>
      call('POST', '/api/v2/auth/login', null, { userName: 'disputada@portal.test', password, appKey: 'admin' });
    expect((await signIn(`Console-2026-forte-${winner}`)).statusCode).toBe(200);
    expect((await signIn(`Console-2026-forte-${(winner + 1) % IN_FLIGHT}`)).statusCode).toBe(401);
  });

  it('leaves at most one live link when resends and revocations of one invitation cross', async () => {
    const email = 'cruzada@portal.test';
    const id = await invite(email);
    const answers = await Promise.all(
      Array.from({ length: IN_FLIGHT }, (_, i) =>
        i % 2 === 0
          ? call('POST', `${BASE}/invitations/${id}/resend`, admin)
          : call('DELETE', `${BASE}/invitations/${id}`, admin),
      ),
    );
    const statuses = answers.map((a) => a.statusCode);
    expect(
      statuses.every((s) => [200, 201, 404].includes(s)),
      statuses.join(','),
    ).toBe(true);
    const resent = answers.filter((a) => a.statusCode === 201).map((a) => a.json().data.id as string);
    // Each resend retired the links before it: the last one's is the only one left.
    const live = await liveTokens(email);
    if (resent.length > 0) {
      expect(live).toHaveLength(1);
      expect(resent).toContain(live[0]!.id);
    } else {
      expect(live).toEqual([]);
    }
    // Of the links mailed, the live one opens and every other is refused. (Which of them is the
    // last mail is not asked: the resends share the test clock's instant, so their mails tie.)
    const opened = await Promise.all(
      (await linksTo(portal.ctx, email)).map(async (link) => {
        const token = link.searchParams.get('token')!;
        return (await call('GET', `/api/auth/admin/invite/validate?token=${token}`, null)).statusCode;
      }),
    );
    expect(opened.filter((s) => s === 200)).toHaveLength(live.length);
    expect(
      opened.filter((s) => s !== 200).every((s) => s === 404),
      opened.join(','),
    ).toBe(true);
  });

  it(`revokes once when ${IN_FLIGHT} revocations cross: every answer is 200, one trail event`, async () => {
    const id = await invite('revogada@portal.test');
    const token = (await lastLinkTo(portal.ctx, 'revogada@portal.test')).searchParams.get('token')!;
    const answers = await Promise.all(
      Array.from({ length: IN_FLIGHT }, () => call('DELETE', `${BASE}/invitations/${id}`, admin)),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array(IN_FLIGHT).fill(200));
    const events = await portal.ctx.db
      .selectFrom('auditEvents')
      .select('id')
      .where('event', '=', 'INVITATION_REVOKED')
      .where('resource', 'like', `%${id}%`)
      .execute();
    expect(events).toHaveLength(1);
    expect((await call('GET', `/api/auth/admin/invite/validate?token=${token}`, null)).statusCode).toBe(404);
  });

  it('never leaves a live link for an address that became an account while resends were in flight', async () => {
    const email = 'aceita@portal.test';
    const id = await invite(email);
    const token = (await lastLinkTo(portal.ctx, email)).searchParams.get('token')!;
    const accept = call('POST', '/api/auth/admin/create', null, {
      token,
      fullName: 'Aceita Correndo',
      password: 'Console-2026-aceita',
      confirmPassword: 'Console-2026-aceita',
    });
    const resends = Array.from({ length: IN_FLIGHT - 1 }, () =>
      call('POST', `${BASE}/invitations/${id}/resend`, admin),
    );
    const [accepted, ...others] = await Promise.all([accept, ...resends]);
    const account = await portal.ctx.db.selectFrom('users').select('id').where('email', '=', email).execute();
    const live = await liveTokens(email);
    if (accepted!.statusCode === 201) {
      // The account won: no resend may have left a link behind it.
      expect(account).toHaveLength(1);
      expect(live).toEqual([]);
    } else {
      // A resend won: the link the person used is dead, one new link waits, no account.
      expect(accepted!.statusCode).toBe(404);
      expect(account).toEqual([]);
      expect(live).toHaveLength(1);
    }
    expect(others.every((a) => [201, 404, 409].includes(a.statusCode))).toBe(true);
  });
});
