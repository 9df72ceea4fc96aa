import { AuthMessage, PasskeyMessage } from '@portal/shared/messages';
import { PASSKEYS_PER_ACCOUNT_MAX } from '@portal/shared/schemas/passkeys';
import { ServerMessage } from '@portal/shared/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { createAccount, createInstitution, createProtocol, postLogin, shutDown } from './auth.test-support.js';
import { SoftAuthenticator } from './soft-authenticator.test-support.js';

/*
 * Passkeys end to end over the API, answered by a software authenticator that follows the
 * WebAuthn spec (ES256, "none" attestation): registration, sign-in with a passkey alone, a passkey
 * as the second factor, the account's list, and what another user or a replay may not do.
 */

const ORIGIN = 'http://portal.test';
const RP_ID = 'portal.test';

interface Options {
  challengeId: string;
  options: { challenge: string; rp?: { id?: string }; user?: { id: string }; rpId?: string };
}

describe('passkeys: registration, sign-in alone or as the second factor, and the account list', () => {
  let portal: TestPortal;
  let lab: string;

  beforeAll(async () => {
    portal = await startTestPortal();
    lab = await createInstitution(portal.ctx, 'PKY');
  });
  afterAll(async () => {
    if (portal) await shutDown(portal);
  });

  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, token?: string, payload?: object) =>
    portal.app.inject({ method, url, headers: token ? bearer(token) : {}, ...(payload ? { payload } : {}) });

  const signIn = async (userName: string, password: string) => {
    const res = await postLogin(portal.app, { userName, password });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data.accessToken as string;
  };

  const registrationOptions = async (token: string) => {
    const res = await call('POST', '/api/v2/auth/passkeys/registrationOptions', token);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as Options;
  };
  const register = async (token: string, device: SoftAuthenticator, name?: string) => {
    const { challengeId, options } = await registrationOptions(token);
    const credential = device.register({ challenge: options.challenge, rp: options.rp!, user: options.user! });
    return call('POST', '/api/v2/auth/passkeys', token, { challengeId, credential, ...(name ? { name } : {}) });
  };
  const signInOptions = async () => {
    const res = await call('POST', '/api/v2/auth/passkeys/signInOptions');
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as Options;
  };
  const passkeySignIn = async (device: SoftAuthenticator, tweak: Parameters<SoftAuthenticator['assert']>[1] = {}) => {
    const { challengeId, options } = await signInOptions();
    const credential = device.assert(options, tweak);
    return call('POST', '/api/v2/auth/passkeys/signIn', undefined, { challengeId, credential });
  };
  const audits = (event: string, userId: string) =>
    portal.ctx.db
      .selectFrom('auditEvents')
      .select(['event', 'resource', 'macro', 'systemUserId'])
      .where('event', '=', event)
      .where('systemUserId', '=', userId)
      .execute();

  async function patientWithPasskey(email: string, extra: Partial<Parameters<typeof createAccount>[1]> = {}) {
    const id = await createAccount(portal.ctx, { type: 'PATIENT', email, password: 'Pass-word-1', ...extra });
    const token = await signIn(email, 'Pass-word-1');
    const device = new SoftAuthenticator(ORIGIN, RP_ID);
    const res = await register(token, device, 'Celular');
    expect(res.statusCode, res.body).toBe(200);
    return { id, token, device, passkey: res.json().data as { id: string; name: string } };
  }

  it('registers two passkeys from the account, lists, renames them, and signs in with one alone', async () => {
    const { id, token, device, passkey } = await patientWithPasskey('ana@example.com');
    expect(passkey).toMatchObject({ name: 'Celular', lastUsedAt: null, transports: ['internal'] });
    portal.clock.advance(1000);
    const laptop = new SoftAuthenticator(ORIGIN, RP_ID);
    const second = await register(token, laptop);
    expect(second.statusCode).toBe(200);
    expect(second.json().data.name).toBe('Passkey 2');

    const renamed = await call('PUT', `/api/v2/auth/passkeys/${second.json().data.id}`, token, { name: ' Notebook ' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json().data.name).toBe('Notebook');
    const list = await call('GET', '/api/v2/auth/passkeys', token);
    expect(list.json().data.map((p: { name: string }) => p.name)).toEqual(['Celular', 'Notebook']);

    // The passkey alone opens the same session as the password: the same user, the same checks.
    const res = await passkeySignIn(device);
    expect(res.statusCode, res.body).toBe(200);
    const byPasskey = res.json().data;
    const byPassword = (await postLogin(portal.app, { userName: 'ana@example.com', password: 'Pass-word-1' })).json()
      .data;
    expect(byPasskey.user).toEqual(byPassword.user);
    const validate = await call('GET', '/api/v2/auth/validate', byPasskey.accessToken);
    expect(validate.statusCode).toBe(200);
    expect(validate.json().data).toEqual(byPassword.user);
    const session = await portal.ctx.db
      .selectFrom('sessions')
      .select(['role', 'userId', 'username', 'appKey'])
      .where('userId', '=', id)
      .orderBy('createdAt')
      .execute();
    expect(session.at(-1)).toEqual(session.at(-2));

    const used = (await call('GET', '/api/v2/auth/passkeys', token)).json().data;
    expect(used[0].lastUsedAt).not.toBeNull();
    expect(used[1].lastUsedAt).toBeNull();

    const logins = (await audits('LOGIN', id)).map((a) => JSON.parse(a.resource!));
    expect(logins.filter((r) => r.method === 'PASSKEY')).toEqual([
      expect.objectContaining({ method: 'PASSKEY', passkeyId: passkey.id, mfa: false }),
    ]);
    expect(await audits('PASSKEY_REGISTERED', id)).toHaveLength(2);
    expect(await audits('PASSKEY_RENAMED', id)).toHaveLength(1);
  });

  it('answers one challenge once: 32 answers in flight sign in once, a late or replayed one never', async () => {
    const { id, device } = await patientWithPasskey('bia@example.com');
    const { challengeId, options } = await signInOptions();
    const credential = device.assert(options);
    const answers = await Promise.all(
      Array.from({ length: 32 }, () =>
        call('POST', '/api/v2/auth/passkeys/signIn', undefined, { challengeId, credential }),
      ),
    );
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(1);
    for (const a of answers.filter((x) => x.statusCode !== 200)) {
      expect(a.statusCode).toBe(401);
      expect(a.json().message).toBe(PasskeyMessage.challengeInvalid);
    }
    expect((await audits('LOGIN_FAILED', id)).map((a) => JSON.parse(a.macro!).reason)).toEqual(
      Array(31).fill('CHALLENGE_INVALID'),
    );
    // The replays did not lock the owner out.
    expect((await passkeySignIn(device)).statusCode).toBe(200);

    // A challenge answered after its 5 minutes is refused.
    const late = await signInOptions();
    portal.clock.advance(5 * 60_000 + 1);
    const res = await call('POST', '/api/v2/auth/passkeys/signIn', undefined, {
      challengeId: late.challengeId,
      credential: device.assert(late.options),
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().message).toBe(PasskeyMessage.challengeInvalid);
  });

  it('refuses a wrong origin, a wrong RP, no user verification, a forged signature and an unknown passkey', async () => {
    const { id, device } = await patientWithPasskey('caio@example.com');
    const refused = async (tweak: Parameters<SoftAuthenticator['assert']>[1]) => {
      const res = await passkeySignIn(device, tweak);
      expect(res.statusCode).toBe(401);
      return res.json().message as string;
    };
    expect(await refused({ origin: 'https://phishing.example' })).toBe(PasskeyMessage.passkeyRejected);
    expect(await refused({ userVerified: false })).toBe(PasskeyMessage.passkeyRejected);
    const { challengeId, options } = await signInOptions();
    const wrongRp = device.assert({ ...options, rpId: 'other.test' });
    expect(
      (await call('POST', '/api/v2/auth/passkeys/signIn', undefined, { challengeId, credential: wrongRp })).statusCode,
    ).toBe(401);
    const again = await signInOptions();
    const forged = device.assert(again.options);
    forged.response.signature = device.assert(options).response.signature;
    expect(
      (
        await call('POST', '/api/v2/auth/passkeys/signIn', undefined, {
          challengeId: again.challengeId,
          credential: forged,
        })
      ).statusCode,
    ).toBe(401);
    const stranger = new SoftAuthenticator(ORIGIN, RP_ID);
    stranger.register({ challenge: 'AAAA', rp: { id: RP_ID }, user: { id: 'eHl6' } });
    expect(await refused({ credential: stranger.credentials[0] })).toBe(PasskeyMessage.passkeyNotRecognized);
    const reasons = (await audits('LOGIN_FAILED', id)).map((a) => JSON.parse(a.macro!).reason);
    expect(reasons.filter((r) => r === 'PASSKEY_REJECTED')).toHaveLength(4);
    expect((await passkeySignIn(device)).statusCode).toBe(200);
  });

  it('keeps disabled, not activated and locked accounts out, as with a password', async () => {
    const disabled = await patientWithPasskey('dora@example.com');
    await portal.ctx.db.updateTable('users').set({ disabled: 1 }).where('id', '=', disabled.id).execute();
    const d = await passkeySignIn(disabled.device);
    expect(d.statusCode).toBe(403);
    expect(d.json().message).toBe(ServerMessage.protocolOrEmailDisabled);

    const inactive = await patientWithPasskey('edu@example.com');
    await portal.ctx.db.updateTable('users').set({ active: 0 }).where('id', '=', inactive.id).execute();
    const i = await passkeySignIn(inactive.device);
    expect(i.statusCode).toBe(403);
    expect(i.json().message).toBe(ServerMessage.accountNotActivated);

    // Five wrong passwords lock the account: its passkey waits like its password.
    const locked = await patientWithPasskey('fabi@example.com');
    for (let n = 0; n < 5; n++) {
      await postLogin(portal.app, { userName: 'fabi@example.com', password: `wrong-${n}` });
    }
    const l = await passkeySignIn(locked.device);
    expect(l.statusCode).toBe(429);
    expect(Number(l.headers['retry-after'])).toBeGreaterThan(0);
    portal.clock.advance(61_000);
    expect((await passkeySignIn(locked.device)).statusCode).toBe(200);
  });

  it("stands for the SMS code when MFA is on; another account's passkey does not", async () => {
    const id = await createAccount(portal.ctx, {
      type: 'PHYSICIAN',
      email: 'dr.gil@example.com',
      password: 'Pass-word-1',
      mfaPhone: '11987654321',
    });
    // Registering needs a session: this one is opened without the password form.
    const token = await portal.sessionFor({ role: 'PHYSICIAN', userId: id, username: 'dr.gil@example.com' });
    const device = new SoftAuthenticator(ORIGIN, RP_ID);
    expect((await register(token, device)).statusCode).toBe(200);
    const other = await patientWithPasskey('hugo@example.com');

    const noFactor = await postLogin(portal.app, { userName: 'dr.gil@example.com', password: 'Pass-word-1' });
    expect(noFactor.statusCode).toBe(400);

    const withPasskey = async (authenticator: SoftAuthenticator, password = 'Pass-word-1') => {
      const { challengeId, options } = await signInOptions();
      return portal.app.inject({
        method: 'POST',
        url: '/api/v2/auth/login',
        payload: {
          userName: 'dr.gil@example.com',
          password,
          appKey: 'login',
          passkey: { challengeId, credential: authenticator.assert(options) },
        },
      });
    };
    const foreign = await withPasskey(other.device);
    expect(foreign.statusCode).toBe(401);
    expect(foreign.json().message).toBe(PasskeyMessage.passkeyRejected);
    // The passkey does not stand for the password.
    const wrongPassword = await withPasskey(device, 'not-the-password');
    expect(wrongPassword.statusCode).toBe(401);
    expect(wrongPassword.json().message).toBe(ServerMessage.invalidCredentials);

    const ok = await withPasskey(device);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().data.user.isPhysicianType).toBe(true);
    const login = (await audits('LOGIN', id)).map((a) => JSON.parse(a.resource!));
    expect(login.at(-1)).toMatchObject({ method: 'EMAIL', mfa: true, secondFactor: 'PASSKEY' });
    const failed = (await audits('LOGIN_FAILED', id)).map((a) => JSON.parse(a.macro!).reason);
    expect(failed).toContain('MFA_PASSKEY_REJECTED');
    expect(failed).not.toContain(AuthMessage.mfaTokenInvalid);
  });

  it("never lets one account list, rename or remove another's passkeys; guests and admins have none", async () => {
    const owner = await patientWithPasskey('ivo@example.com');
    const intruder = await patientWithPasskey('jane@example.com');
    const url = `/api/v2/auth/passkeys/${owner.passkey.id}`;
    const list = (await call('GET', '/api/v2/auth/passkeys', intruder.token)).json().data as Array<{ id: string }>;
    expect(list.map((p) => p.id)).toEqual([intruder.passkey.id]);
    const rename = await call('PUT', url, intruder.token, { name: 'mine now' });
    expect(rename.statusCode).toBe(404);
    const remove = await call('DELETE', url, intruder.token);
    expect(remove.statusCode).toBe(404);
    const ownerList = (await call('GET', '/api/v2/auth/passkeys', owner.token)).json().data;
    expect(ownerList).toEqual([expect.objectContaining({ id: owner.passkey.id, name: 'Celular' })]);

    const admin = await createAccount(portal.ctx, { type: 'ADMIN', email: 'adm@example.com', password: 'Pass-word-1' });
    const sessions = [
      await portal.sessionFor({ role: 'ADMIN', userId: admin, username: 'adm@example.com', appKey: 'admin' }),
      await portal.sessionFor({
        role: 'GUEST',
        username: 'PKY-1',
        institutionCode: 'PKY',
        protocolIds: [await createProtocol(portal.ctx, { institutionId: lab, number: 'PKY-1', password: 'p-1' })],
      }),
    ];
    for (const token of sessions) {
      for (const [method, path, body] of [
        ['GET', '/api/v2/auth/passkeys', undefined],
        ['POST', '/api/v2/auth/passkeys/registrationOptions', undefined],
        ['PUT', url, { name: 'x' }],
        ['DELETE', url, undefined],
      ] as const) {
        const res = await call(method, path, token, body);
        expect(res.statusCode, `${method} ${path} ${res.body}`).toBe(403);
        expect(res.json().message).toBe(PasskeyMessage.passkeysNotAllowed);
      }
    }
    expect(await call('GET', '/api/v2/auth/passkeys')).toMatchObject({ statusCode: 401 });
    expect((await call('GET', '/api/v2/auth/passkeys', owner.token)).json().data).toHaveLength(1);
  });

  it('removes passkeys down to none without locking the account out; a removed passkey no longer signs in', async () => {
    const { id, token, device, passkey } = await patientWithPasskey('kim@example.com');
    const res = await call('DELETE', `/api/v2/auth/passkeys/${passkey.id}`, token);
    expect(res.statusCode).toBe(200);
    expect((await call('GET', '/api/v2/auth/passkeys', token)).json().data).toEqual([]);
    expect(await signIn('kim@example.com', 'Pass-word-1')).toBeTruthy();
    const gone = await passkeySignIn(device);
    expect(gone.statusCode).toBe(401);
    expect(gone.json().message).toBe(PasskeyMessage.passkeyNotRecognized);
    expect((await audits('PASSKEY_REMOVED', id)).map((a) => JSON.parse(a.resource!).remaining)).toEqual([0]);

    // An account without a password keeps its last passkey.
    const { id: bare, token: bareToken, passkey: only } = await patientWithPasskey('leo@example.com');
    await portal.ctx.db.updateTable('users').set({ passwordHash: null }).where('id', '=', bare).execute();
    const kept = await call('DELETE', `/api/v2/auth/passkeys/${only.id}`, bareToken);
    expect(kept.statusCode).toBe(409);
    expect(kept.json().message).toBe(PasskeyMessage.lastSignInMethod);
  });

  it('keeps the last passkey of an account without a password against 32 removals in flight', async () => {
    const { id, token, device, passkey: first } = await patientWithPasskey('noa@example.com');
    const second = (await register(token, device, 'Notebook')).json().data as { id: string };
    await portal.ctx.db.updateTable('users').set({ passwordHash: null }).where('id', '=', id).execute();
    // Half ask to remove one passkey, half the other: each would be allowed alone.
    const answers = await Promise.all(
      Array.from({ length: 32 }, (_, i) =>
        call('DELETE', `/api/v2/auth/passkeys/${i % 2 ? second.id : first.id}`, token),
      ),
    );
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(1);
    for (const a of answers.filter((x) => x.statusCode !== 200)) {
      expect([404, 409]).toContain(a.statusCode);
      if (a.statusCode === 409) expect(a.json().message).toBe(PasskeyMessage.lastSignInMethod);
    }
    expect((await call('GET', '/api/v2/auth/passkeys', token)).json().data).toHaveLength(1);
    expect((await audits('PASSKEY_REMOVED', id)).map((a) => JSON.parse(a.resource!).remaining)).toEqual([1]);
    // The passkey left still signs in.
    expect((await passkeySignIn(device)).statusCode).toBe(200);
  });

  it('registers no more than the limit when 32 registrations are in flight', async () => {
    const id = await createAccount(portal.ctx, {
      type: 'PATIENT',
      email: 'ana.limite@example.com',
      password: 'Pass-word-1',
    });
    const token = await signIn('ana.limite@example.com', 'Pass-word-1');
    const device = new SoftAuthenticator(ORIGIN, RP_ID);
    // Every ceremony starts while the account has none; each credential is a new one.
    const ceremonies = await Promise.all(Array.from({ length: 32 }, () => registrationOptions(token)));
    const bodies = ceremonies.map(({ challengeId, options }) => ({
      challengeId,
      credential: device.register({ challenge: options.challenge, rp: options.rp!, user: options.user! }),
    }));
    const answers = await Promise.all(bodies.map((body) => call('POST', '/api/v2/auth/passkeys', token, body)));
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(PASSKEYS_PER_ACCOUNT_MAX);
    for (const a of answers.filter((x) => x.statusCode !== 200)) {
      expect(a.statusCode).toBe(409);
      expect(a.json().message).toBe(PasskeyMessage.tooManyPasskeys);
    }
    const listed = (await call('GET', '/api/v2/auth/passkeys', token)).json().data as { name: string }[];
    expect(listed).toHaveLength(PASSKEYS_PER_ACCOUNT_MAX);
    // Named after their rank, each rank once.
    expect(new Set(listed.map((p) => p.name)).size).toBe(PASSKEYS_PER_ACCOUNT_MAX);
    expect(await audits('PASSKEY_REGISTERED', id)).toHaveLength(PASSKEYS_PER_ACCOUNT_MAX);
  });

  it("refuses a registration answering another account's challenge, from another origin, or registered twice", async () => {
    const a = await patientWithPasskey('mia@example.com');
    const b = await patientWithPasskey('noe@example.com');
    const { challengeId, options } = await registrationOptions(a.token);
    const device = new SoftAuthenticator(ORIGIN, RP_ID);
    const credential = device.register({ challenge: options.challenge, rp: options.rp!, user: options.user! });
    const stolen = await call('POST', '/api/v2/auth/passkeys', b.token, { challengeId, credential });
    expect(stolen.statusCode).toBe(400);
    expect(stolen.json().message).toBe(PasskeyMessage.challengeInvalid);

    const phishing = new SoftAuthenticator('https://phishing.example', RP_ID);
    const p = await register(a.token, phishing);
    expect(p.statusCode).toBe(400);
    expect(p.json().message).toBe(PasskeyMessage.passkeyRejected);

    // The same credential sent again under a fresh challenge (an authenticator ignoring the exclusion list).
    const fresh = await registrationOptions(b.token);
    expect((fresh.options as unknown as { excludeCredentials: Array<{ id: string }> }).excludeCredentials).toEqual([
      expect.objectContaining({ id: b.device.credentials[0]!.id.toString('base64url') }),
    ]);
    const again = b.device.register(
      { challenge: fresh.options.challenge, rp: fresh.options.rp!, user: fresh.options.user! },
      { again: b.device.credentials[0] },
    );
    const dup = await call('POST', '/api/v2/auth/passkeys', b.token, {
      challengeId: fresh.challengeId,
      credential: again,
    });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().message).toBe(PasskeyMessage.passkeyAlreadyRegistered);
    expect((await call('GET', '/api/v2/auth/passkeys', b.token)).json().data).toHaveLength(1);
  });
});

describe('passkeys: the relying party from the configuration', () => {
  it('defaults to the public URL, takes an RP ID and origins of its own, and refuses malformed ones', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://resultados.lab.com.br/' }).webauthn).toEqual({
      rpId: 'resultados.lab.com.br',
      rpName: 'Portal de Resultados',
      origins: ['https://resultados.lab.com.br'],
    });
    expect(
      loadConfig({
        PUBLIC_URL: 'https://resultados.lab.com.br',
        WEBAUTHN_RP_ID: 'lab.com.br',
        WEBAUTHN_ORIGINS: 'https://resultados.lab.com.br, https://app.lab.com.br',
      }).webauthn,
    ).toMatchObject({ rpId: 'lab.com.br', origins: ['https://resultados.lab.com.br', 'https://app.lab.com.br'] });
    expect(() => loadConfig({ WEBAUTHN_ORIGINS: 'https://lab.com.br/path' })).toThrow(/WEBAUTHN_ORIGINS/);
    expect(() => loadConfig({ WEBAUTHN_RP_ID: 'https://lab.com.br' })).toThrow(/WEBAUTHN_RP_ID/);
  });
});
