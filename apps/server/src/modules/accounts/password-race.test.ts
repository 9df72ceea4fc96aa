import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptSubject } from '../../plugins/throttle.js';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { makeUser } from './test-factories.js';
import { postLogin } from '../auth/auth.test-support.js';

const IN_FLIGHT = 32;

/**
 * A password changed to shut someone out: sign-ins with the old password that are still in flight
 * while it changes must not leave a session behind it.
 */
describe('password change against sign-ins in flight', () => {
  let portal: TestPortal;
  beforeAll(async () => {
    portal = await startTestPortal();
  });
  afterAll(async () => portal?.destroy());

  it(`leaves no session of the old password when ${IN_FLIGHT} sign-ins with it cross the change`, async () => {
    const user = await makeUser(portal.ctx, { email: 'mudanca@mail.test', password: 'Antiga#Senha1' });
    const owner = await portal.sessionFor({ role: 'PATIENT', userId: user.id, username: user.email });
    const change = portal.app.inject({
      method: 'POST',
      url: '/api/v2/auth/user/changePassword',
      headers: bearer(owner),
      payload: {
        currentPassword: 'Antiga#Senha1',
        newPassword: 'Nova#Senha2026',
        confirmNewPassword: 'Nova#Senha2026',
      },
    });
    // Someone who knows the old password keeps signing in while the owner changes it, from the
    // moment the change has its claim on the account's attempt gate (the sign-ins share it).
    const claimed = () =>
      portal.ctx.db
        .selectFrom('throttles')
        .select('key')
        .where('key', '=', attemptSubject.account(user.id))
        .executeTakeFirst();
    for (let waited = 0; !(await claimed()) && waited < 5000; waited += 2) await sleep(2);
    const signIns: Promise<Awaited<typeof change>>[] = [];
    for (let i = 0; i < IN_FLIGHT; i++) {
      signIns.push(
        postLogin(portal.app, { userName: 'mudanca@mail.test', password: 'Antiga#Senha1' }, `10.8.0.${i + 1}`),
      );
      await sleep(15);
    }
    expect((await change).statusCode).toBe(200);
    const answers = await Promise.all(signIns);
    // Refused once the password changed (401), or by the attempt gate (429), or hashing is busy (503).
    for (const a of answers) expect([200, 401, 429, 503]).toContain(a.statusCode);
    const opened = answers.filter((a) => a.statusCode === 200).map((a) => a.json().data.accessToken as string);
    const me = (token: string) =>
      portal.app.inject({ method: 'GET', url: '/api/v2/auth/user/me', headers: bearer(token) });
    const alive = [];
    for (const token of opened) if ((await me(token)).statusCode === 200) alive.push(token);
    expect(`${alive.length} of ${opened.length} sessions of the old password alive`).toBe(
      `0 of ${opened.length} sessions of the old password alive`,
    );
    expect((await me(owner)).statusCode).toBe(200);
  });
});
