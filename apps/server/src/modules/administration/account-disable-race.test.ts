import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { makeUser } from '../accounts/test-factories.js';
import { postLogin } from '../auth/auth.test-support.js';

const IN_FLIGHT = 32;
const ACCOUNT = { userName: 'desativada@mail.test', password: 'Conta#Segura2026' };

/**
 * An account disabled to shut someone out, then enabled again once it is safe: sign-ins that were
 * in flight while it was disabled must not leave a session that comes back to life with it.
 */
describe('account disabled and enabled again against sign-ins in flight', () => {
  let portal: TestPortal;
  beforeAll(async () => {
    portal = await startTestPortal();
  });
  afterAll(async () => portal?.destroy());

  it(`leaves no session of the ${IN_FLIGHT} sign-ins that crossed the disable once the account is enabled`, async () => {
    const user = await makeUser(portal.ctx, { email: 'desativada@mail.test', password: 'Conta#Segura2026' });
    const admin = await makeUser(portal.ctx, { type: 'ADMIN', email: 'ti@mail.test' });
    const adminToken = await portal.sessionFor({ role: 'ADMIN', userId: admin.id, username: admin.email });
    const setDisabled = (disabled: boolean) =>
      portal.app.inject({
        method: 'PUT',
        url: `/api/administrationbe/accounts/${user.id}/disabled`,
        headers: bearer(adminToken),
        payload: { disabled },
      });
    const signIns: Promise<Awaited<ReturnType<typeof setDisabled>>>[] = [];
    for (let i = 0; i < IN_FLIGHT; i++) {
      signIns.push(postLogin(portal.app, ACCOUNT, `10.9.0.${i + 1}`));
      if (i === 4) expect((await setDisabled(true)).statusCode).toBe(200);
      await sleep(10);
    }
    const answers = await Promise.all(signIns);
    // Signed in, refused as disabled (401/403), by the attempt gate (429) or busy hashing (503).
    for (const a of answers) expect([200, 401, 403, 429, 503], a.body).toContain(a.statusCode);
    expect((await setDisabled(false)).statusCode).toBe(200);
    const opened = answers.filter((a) => a.statusCode === 200).map((a) => a.json().data.accessToken as string);
    const me = (token: string) =>
      portal.app.inject({ method: 'GET', url: '/api/v2/auth/user/me', headers: bearer(token) });
    const alive = [];
    for (const token of opened) if ((await me(token)).statusCode === 200) alive.push(token);
    expect(`${alive.length} of ${opened.length} sessions alive after enabling`).toBe(
      `0 of ${opened.length} sessions alive after enabling`,
    );
    // Enabled again (and its wrong-time attempts cleared by an unlock), the account signs in anew.
    const unlocked = await portal.app.inject({
      method: 'POST',
      url: `/api/administrationbe/accounts/${user.id}/unlock`,
      headers: bearer(adminToken),
      payload: {},
    });
    expect(unlocked.statusCode).toBe(200);
    const fresh = await postLogin(portal.app, ACCOUNT, '10.9.1.1');
    expect(fresh.statusCode).toBe(200);
    expect((await me(fresh.json().data.accessToken as string)).statusCode).toBe(200);
  });
});
