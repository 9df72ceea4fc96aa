import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { verifyPassword } from '../../lib/passwords.js';
import { lastLinkTo, mailsTo, makeUser } from './test-factories.js';

const DAY = 24 * 3600_000;

describe('password recovery, password and e-mail changes', () => {
  let portal: TestPortal;
  beforeAll(async () => {
    portal = await startTestPortal();
  });
  afterAll(async () => portal?.destroy());

  const forgot = (username: string, language = 'ES') =>
    portal.app.inject({
      method: 'POST',
      url: `/api/auth/password/forgotPassword?username=${encodeURIComponent(username)}&language=${language}`,
    });
  const me = (token: string) =>
    portal.app.inject({ method: 'GET', url: '/api/v2/auth/user/me', headers: bearer(token) });
  const passwordOf = async (id: string) =>
    (await portal.ctx.db.selectFrom('users').select('passwordHash').where('id', '=', id).executeTakeFirstOrThrow())
      .passwordHash;

  it('mails a reset link; the link shows the e-mail, sets the password once and ends every session', async () => {
    const user = await makeUser(portal.ctx, { email: 'reset@mail.test' });
    const session = await portal.sessionFor({ role: 'PATIENT', userId: user.id, username: user.email });
    const res = await forgot('Reset@Mail.test');
    expect(res.statusCode).toBe(200);

    const link = await lastLinkTo(portal.ctx, 'reset@mail.test');
    expect(link.pathname).toBe('/password/reset');
    expect(link.searchParams.get('language')).toBe('es');
    const token = link.searchParams.get('token') ?? '';

    const valid = await portal.app.inject({ method: 'GET', url: `/api/auth/password/isValidToken?token=${token}` });
    expect(valid.json()).toEqual({ data: 'reset@mail.test' });

    const weak = await portal.app.inject({
      method: 'POST',
      url: '/api/auth/password/resetPassword',
      payload: { token, newPassword: '123456789', confirmNewPassword: '123456789' },
    });
    expect(weak.statusCode).toBe(400);

    const reset = await portal.app.inject({
      method: 'POST',
      url: '/api/auth/password/resetPassword',
      payload: { token, password: 'Nova#Senha2026', confirmPassword: 'Nova#Senha2026', language: 'es' },
    });
    expect(reset.statusCode).toBe(200);
    expect(await verifyPassword(await passwordOf(user.id), 'Nova#Senha2026')).toBe(true);
    expect((await me(session)).statusCode).toBe(401);

    const again = await portal.app.inject({
      method: 'POST',
      url: '/api/auth/password/resetPassword',
      payload: { token, password: 'Outra#Senha2026', confirmPassword: 'Outra#Senha2026' },
    });
    expect(again.statusCode).toBe(404);
    expect(again.json().message).toBe('Token not found');
  });

  it('answers 404 "User not found." for an unknown e-mail and throttles repeated requests', async () => {
    const unknown = await forgot('nobody@mail.test');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().message).toBe('User not found.');

    await makeUser(portal.ctx, { email: 'flood@mail.test' });
    for (let i = 0; i < 5; i++) expect((await forgot('flood@mail.test')).statusCode).toBe(200);
    const throttled = await forgot('flood@mail.test');
    expect(throttled.statusCode).toBe(429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    expect(await mailsTo(portal.ctx, 'flood@mail.test')).toHaveLength(5);
  });

  it('refuses a reset link after 24 hours, and an older link once a newer one was sent', async () => {
    const user = await makeUser(portal.ctx, { email: 'expire@mail.test' });
    await forgot(user.email);
    const first = (await lastLinkTo(portal.ctx, user.email)).searchParams.get('token');
    await forgot(user.email);
    const second = (await lastLinkTo(portal.ctx, user.email)).searchParams.get('token');
    const old = await portal.app.inject({ method: 'GET', url: `/api/auth/password/isValidToken?token=${first}` });
    expect(old.statusCode).toBe(404);
    portal.clock.advance(DAY + 1000);
    const expired = await portal.app.inject({ method: 'GET', url: `/api/auth/password/isValidToken?token=${second}` });
    expect(expired.statusCode).toBe(400);
    expect(expired.json().message).toContain('expired.');
  });

  it('changes the password with the catalogue messages and ends the other sessions only', async () => {
    const user = await makeUser(portal.ctx, { email: 'change@mail.test', password: 'Antiga#Senha1' });
    const current = await portal.sessionFor({ role: 'PATIENT', userId: user.id, username: user.email });
    const other = await portal.sessionFor({ role: 'PATIENT', userId: user.id, username: user.email });
    const change = (payload: Record<string, unknown>) =>
      portal.app.inject({
        method: 'POST',
        url: '/api/v2/auth/user/changePassword',
        headers: bearer(current),
        payload,
      });

    expect((await change({ newPassword: 'Nova#Senha2026', confirmNewPassword: 'Nova#Senha2026' })).json().message).toBe(
      'Actual password not informed',
    );
    expect((await change({ currentPassword: 'Antiga#Senha1' })).json().message).toBe('New password not informed');
    const wrong = await change({
      currentPassword: 'wrong-one',
      newPassword: 'Nova#Senha2026',
      confirmNewPassword: 'Nova#Senha2026',
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().message).toBe('Actual password is incorrect');

    const ok = await change({
      currentPassword: 'Antiga#Senha1',
      newPassword: 'Nova#Senha2026',
      confirmNewPassword: 'Nova#Senha2026',
    });
    expect(ok.statusCode).toBe(200);
    expect(await verifyPassword(await passwordOf(user.id), 'Nova#Senha2026')).toBe(true);
    expect((await me(current)).statusCode).toBe(200);
    expect((await me(other)).statusCode).toBe(401);
  });

  it('changes the e-mail after the current password, refusing one already in use', async () => {
    const user = await makeUser(portal.ctx, { email: 'old-address@mail.test', password: 'Antiga#Senha1' });
    await makeUser(portal.ctx, { email: 'in-use@mail.test' });
    const session = await portal.sessionFor({ role: 'PATIENT', userId: user.id, username: user.email });
    const change = (payload: Record<string, unknown>) =>
      portal.app.inject({ method: 'POST', url: '/api/v2/auth/user/changeEmail', headers: bearer(session), payload });

    expect((await change({ newEmail: 'a@mail.test', confirmNewEmail: 'a@mail.test' })).json().message).toBe(
      'Actual password not informed',
    );
    expect(
      (await change({ currentPassword: 'nope-nope', newEmail: 'a@mail.test', confirmNewEmail: 'a@mail.test' })).json()
        .message,
    ).toBe('Actual password is incorrect');
    const inUse = await change({
      currentPassword: 'Antiga#Senha1',
      newEmail: 'In-Use@mail.test',
      confirmNewEmail: 'in-use@mail.test',
    });
    expect(inUse.statusCode).toBe(409);
    expect(inUse.json().message).toBe('New email provided is already in use');

    const ok = await change({
      currentPassword: 'Antiga#Senha1',
      newEmail: 'new-address@mail.test',
      confirmNewEmail: 'new-address@mail.test',
    });
    expect(ok.statusCode).toBe(200);
    expect((await me(session)).json().data.email).toBe('new-address@mail.test');
  });

  it('refuses password changes without a session', async () => {
    const res = await portal.app.inject({
      method: 'POST',
      url: '/api/v2/auth/user/changePassword',
      payload: { currentPassword: 'x', newPassword: 'y' },
    });
    expect(res.statusCode).toBe(401);
  });
});
