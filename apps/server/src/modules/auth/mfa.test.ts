import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { createAccount, createInstitution, createProtocol, postLogin, shutDown } from './auth.test-support.js';

interface Sms {
  to: string;
  channel: string;
  text: string;
}

/** A real SMS gateway stand-in: an HTTP endpoint that keeps what the outbox worker POSTs. */
function smsGateway() {
  const inbox: Sms[] = [];
  let waiters: Array<() => boolean> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      inbox.push(JSON.parse(body) as Sms);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      waiters = waiters.filter((check) => !check());
    });
  });
  return {
    server,
    inbox,
    /** The next message to this number (waits for the worker to deliver it). */
    next(to: string): Promise<Sms> {
      return new Promise((resolve) => {
        const check = () => {
          const i = inbox.findIndex((m) => m.to === to);
          if (i < 0) return false;
          resolve(inbox.splice(i, 1)[0]!);
          return true;
        };
        if (!check()) waiters.push(check);
      });
    },
  };
}

const codeOf = (sms: Sms) => /\b(\d{6})\b/.exec(sms.text)?.[1] ?? '';
const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('MFA: codes by a real SMS webhook, at login and on the account', () => {
  const gateway = smsGateway();
  let portal: TestPortal;
  let lab: string;

  beforeAll(async () => {
    await new Promise<void>((resolve) => gateway.server.listen(0, '127.0.0.1', resolve));
    const { port } = gateway.server.address() as AddressInfo;
    portal = await startTestPortal({
      outbox: true,
      env: { SMS_WEBHOOK_URL: `http://127.0.0.1:${port}/sms`, OUTBOX_POLL_MS: '50' },
    });
    lab = await createInstitution(portal.ctx, 'MFA');
  });
  afterAll(async () => {
    if (portal) await shutDown(portal);
    await new Promise((resolve) => gateway.server.close(resolve));
  });

  const post = (url: string, token: string, payload: object) =>
    portal.app.inject({ method: 'POST', url, headers: bearer(token), payload });
  const mfaStatus = async (token: string) =>
    (await portal.app.inject({ method: 'GET', url: '/api/v2/auth/isMFAActivated', headers: bearer(token) })).json();
  const signIn = async (userName: string, password: string) => {
    const res = await postLogin(portal.app, { userName, password });
    expect(res.statusCode).toBe(200);
    return res.json().data.accessToken as string;
  };

  it('turns MFA on with a code sent to the new phone, then asks for a code at every login', async () => {
    await createAccount(portal.ctx, { type: 'PATIENT', email: 'on@example.com', password: 'on-pass-1' });
    const token = await signIn('on@example.com', 'on-pass-1');
    expect(await mfaStatus(token)).toEqual({ data: { validate: false, phoneNumber: null } });

    const shortPhone = await post('/api/v2/auth/generateMFAToken', token, { phoneNumber: '1199' });
    expect(shortPhone.statusCode).toBe(400);
    expect(shortPhone.json().message).toBe('The phone number must have at least 11 digits.');

    const sent = await post('/api/v2/auth/generateMFAToken', token, { phoneNumber: '(11) 98765-4321' });
    expect(sent.statusCode).toBe(200);
    const sms = await gateway.next('5511987654321');
    expect(sms.channel).toBe('whatsapp');
    const code = codeOf(sms);
    expect(code).toMatch(/^\d{6}$/);

    const wrong = await post('/api/v2/auth/activateMFAToken', token, {
      phoneNumber: '11987654321',
      tokenValue: wrongCode(code),
    });
    expect(wrong.statusCode).toBe(401);
    const on = await post('/api/v2/auth/activateMFAToken', token, { phoneNumber: '11987654321', tokenValue: code });
    expect(on.statusCode).toBe(200);
    expect(on.json().data.validate).toBe(true);
    const status = (await mfaStatus(token)).data;
    expect(status.validate).toBe(true);
    expect(status.phoneNumber).toContain('4321');
    expect(status.phoneNumber).not.toContain('98765');

    const again = await post('/api/v2/auth/activateMFAToken', token, { phoneNumber: '11987654321', tokenValue: code });
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe('This user has already enabled MFA authentication');

    // Signing in right after turning MFA on gets its own code at once (pacing is per purpose).
    const challenge = await postLogin(portal.app, { userName: 'on@example.com', password: 'on-pass-1' });
    expect(challenge.statusCode).toBe(400);
    expect(challenge.json().message).toBe('on@example.com has enabled the MFA validation and needs validation.');
    const loginCode = codeOf(await gateway.next('5511987654321'));
    const bad = await postLogin(portal.app, {
      userName: 'on@example.com',
      password: 'on-pass-1',
      tokenMFA: wrongCode(loginCode),
    });
    expect(bad.statusCode).toBe(401);
    const good = await postLogin(portal.app, {
      userName: 'on@example.com',
      password: 'on-pass-1',
      tokenMFA: loginCode,
    });
    expect(good.statusCode).toBe(200);
    expect(good.json().data.user.username).toBe('on@example.com');
    // Single use.
    const replay = await postLogin(portal.app, {
      userName: 'on@example.com',
      password: 'on-pass-1',
      tokenMFA: loginCode,
    });
    expect(replay.statusCode).toBe(401);
  });

  it('never sends a code for a wrong password, and sends by SMS when the account chose it', async () => {
    await createAccount(portal.ctx, {
      type: 'PHYSICIAN',
      email: 'sms@example.com',
      password: 'sms-pass-1',
      mfaPhone: '5521912345678',
      mfaChannel: 'sms',
    });
    const wrong = await postLogin(portal.app, { userName: 'sms@example.com', password: 'not-the-one' });
    expect(wrong.statusCode).toBe(401);
    const challenge = await postLogin(portal.app, { userName: 'sms@example.com', password: 'sms-pass-1' });
    expect(challenge.statusCode).toBe(400);
    const sms = await gateway.next('5521912345678');
    expect(sms.channel).toBe('sms');
    const queued = await portal.ctx.db
      .selectFrom('outbox')
      .select('id')
      .where('recipient', '=', '5521912345678')
      .execute();
    expect(queued).toHaveLength(1);
  });

  it('kills a code after five wrong tries, and the account lock holds meanwhile', async () => {
    await createAccount(portal.ctx, {
      type: 'PATIENT',
      email: 'tries@example.com',
      password: 'tries-pass',
      mfaPhone: '5531998887777',
    });
    expect((await postLogin(portal.app, { userName: 'tries@example.com', password: 'tries-pass' })).statusCode).toBe(
      400,
    );
    const code = codeOf(await gateway.next('5531998887777'));
    for (let i = 0; i < 5; i++) {
      const res = await postLogin(portal.app, {
        userName: 'tries@example.com',
        password: 'tries-pass',
        tokenMFA: wrongCode(String(Number(code) + i)),
      });
      expect(res.statusCode).toBe(401);
    }
    const locked = await postLogin(portal.app, {
      userName: 'tries@example.com',
      password: 'tries-pass',
      tokenMFA: code,
    });
    expect(locked.statusCode).toBe(429);
    portal.clock.advance(61_000);
    const dead = await postLogin(portal.app, { userName: 'tries@example.com', password: 'tries-pass', tokenMFA: code });
    expect(dead.statusCode).toBe(401);
  });

  it('lets a code expire after 10 minutes, and paces codes to one phone', async () => {
    await createAccount(portal.ctx, {
      type: 'PATIENT',
      email: 'late@example.com',
      password: 'late-pass',
      mfaPhone: '5541997776666',
    });
    expect((await postLogin(portal.app, { userName: 'late@example.com', password: 'late-pass' })).statusCode).toBe(400);
    const code = codeOf(await gateway.next('5541997776666'));
    // A second challenge within 30 s sends nothing new: the first code stays the one to type.
    expect((await postLogin(portal.app, { userName: 'late@example.com', password: 'late-pass' })).statusCode).toBe(400);
    const queued = await portal.ctx.db
      .selectFrom('outbox')
      .select('id')
      .where('recipient', '=', '5541997776666')
      .execute();
    expect(queued).toHaveLength(1);

    portal.clock.advance(10 * 60_000 + 1000);
    const expired = await postLogin(portal.app, {
      userName: 'late@example.com',
      password: 'late-pass',
      tokenMFA: code,
    });
    expect(expired.statusCode).toBe(401);
  });

  it('turns MFA off with a code or the password, and says when it is already off', async () => {
    await createAccount(portal.ctx, {
      type: 'PATIENT',
      email: 'off@example.com',
      password: 'off-pass-1',
      mfaPhone: '5551996665555',
    });
    expect((await postLogin(portal.app, { userName: 'off@example.com', password: 'off-pass-1' })).statusCode).toBe(400);
    const loginCode = codeOf(await gateway.next('5551996665555'));
    const session = await postLogin(portal.app, {
      userName: 'off@example.com',
      password: 'off-pass-1',
      tokenMFA: loginCode,
    });
    expect(session.statusCode).toBe(200);
    const bearerToken = session.json().data.accessToken as string;

    portal.clock.advance(31_000);
    const sent = await post('/api/v2/auth/generateMFAToken', bearerToken, {});
    expect(sent.statusCode).toBe(200);
    const offCode = codeOf(await gateway.next('5551996665555'));
    const tooSoon = await post('/api/v2/auth/generateMFAToken', bearerToken, {});
    expect(tooSoon.statusCode).toBe(429);
    expect(Number(tooSoon.headers['retry-after'])).toBeGreaterThan(0);

    const wrong = await post('/api/v2/auth/inactivateMFAToken', bearerToken, { tokenValue: wrongCode(offCode) });
    expect(wrong.statusCode).toBe(401);
    const off = await post('/api/v2/auth/inactivateMFAToken', bearerToken, { tokenValue: offCode });
    expect(off.statusCode).toBe(200);
    expect(await mfaStatus(bearerToken)).toEqual({ data: { validate: false, phoneNumber: null } });
    const already = await post('/api/v2/auth/inactivateMFAToken', bearerToken, { password: 'off-pass-1' });
    expect(already.statusCode).toBe(400);
    expect(already.json().message).toBe("This user doesn't have MFA authentication enabled.");
    // No code needed any more.
    expect((await postLogin(portal.app, { userName: 'off@example.com', password: 'off-pass-1' })).statusCode).toBe(200);
    const trail = await portal.ctx.db.selectFrom('auditEvents').select(['event', 'resource']).execute();
    expect(trail.map((e) => e.event)).toEqual(expect.arrayContaining(['MFA_ENABLED', 'MFA_DISABLED']));
    expect(JSON.stringify(trail)).not.toContain(offCode);
  });

  it('keeps MFA management to patients and physicians', async () => {
    await createProtocol(portal.ctx, { institutionId: lab, number: 'MFA-1', password: 'guest-pass' });
    const guest = await signIn('MFA-1', 'guest-pass');
    const res = await post('/api/v2/auth/generateMFAToken', guest, { phoneNumber: '11987654321' });
    expect(res.statusCode).toBe(403);
    const anonymous = await portal.app.inject({ method: 'GET', url: '/api/v2/auth/isMFAActivated' });
    expect(anonymous.statusCode).toBe(401);
  });
});
