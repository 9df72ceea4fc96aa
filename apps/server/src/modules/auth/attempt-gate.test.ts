import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashingStats, inHashingSlot } from '../../lib/passwords.js';
import { type HttpAnswer, type HttpCall, httpBurst, httpCall } from '../../test/http-client.js';
import { startTestPortal, type TestPortal } from '../../test/helpers.js';
import { createAccount, createInstitution, createProtocol, shutDown } from './auth.test-support.js';

/*
 * Every entry of the attempt-gate table of docs/security.md, attacked the way an attacker would:
 * 40 wrong guesses sent at once over real HTTP, while the first ones are still hashing. At most
 * five may be checked (the four free failures and the one that reaches the lock); the right
 * secret sent afterwards is refused with 429 and Retry-After.
 */

const BURST = 40;
const FREE_CHECKS = 5;

interface Seen {
  arrived: number;
  finished?: number;
  status?: number;
}

describe('the attempt gate: guesses in flight together are claimed before they are checked', () => {
  let portal: TestPortal;
  let base: string;
  let lab: string;
  const served: Seen[] = [];

  beforeAll(async () => {
    // One hash at a time (the default on two cores), so checks are slow next to the claims; a
    // long hashing queue, so that no guess is turned away with 503 before the gate is tested.
    portal = await startTestPortal({ env: { HASH_CONCURRENCY: '1', HASH_QUEUE_MAX: '1000' } });
    base = await portal.app.listen({ host: '127.0.0.1', port: 0 });
    // When each request reached the server and when its answer left.
    portal.app.server.on('request', (_request: unknown, response: ServerResponse) => {
      const seen: Seen = { arrived: performance.now() };
      served.push(seen);
      response.on('finish', () => {
        seen.finished = performance.now();
        seen.status = response.statusCode;
      });
    });
    lab = await createInstitution(portal.ctx, 'GATE');
  });
  afterAll(async () => {
    portal?.app.server.closeAllConnections();
    if (portal) await shutDown(portal);
  });
  // Each test starts with a fresh window of the per-address ceiling (100 failures in 15 minutes).
  beforeEach(() => portal.clock.advance(16 * 60_000));

  const send = (c: HttpCall) => httpCall(base, c);
  const login = (userName: string, password: string, extra: Record<string, string> = {}, from?: string): HttpCall => ({
    path: '/api/v2/auth/login',
    body: { userName, password, appKey: 'login', dateOfBirth: '', tokenMFA: '', ...extra },
    from,
  });
  const isValidProtocol = (protocol: string, password: string, from?: string): HttpCall => ({
    path: `/api/v2/auth/isValidProtocol?protocol=${encodeURIComponent(protocol)}&password=${encodeURIComponent(password)}`,
    from,
  });
  const patientSession = (userId: string, email: string) =>
    portal.sessionFor({ role: 'PATIENT', userId, username: email });
  const register = (protocol: string, protocolPassword: string, from: string): HttpCall => ({
    path: '/api/v2/auth/user/create',
    from,
    body: {
      name: 'Rita Lopes',
      login: `rita.${protocol.toLowerCase()}@mail.test`,
      password: 'Horizonte#2026',
      confirmPassword: 'Horizonte#2026',
      dateOfBirth: '02/03/1990',
      language: 'pt-br',
      serviceTerms: true,
      protocol,
      protocolPassword,
    },
  });

  /** Fires the guesses together; answers, the checked ones, and the argon2 runs they cost. */
  async function burst(guess: (i: number) => HttpCall, count = BURST) {
    const runsBefore = hashingStats().runs;
    served.length = 0;
    // The only hashing slot stays taken until every guess has reached the server, so each
    // one arrives while no check has finished: a gate that counted after checking would let all
    // of them through.
    let open = () => {};
    const slot = inHashingSlot(() => new Promise<void>((resolve) => (open = resolve)));
    const sent = httpBurst(
      base,
      Array.from({ length: count }, (_, i) => guess(i)),
    );
    while (served.length < count) await new Promise((resolve) => setTimeout(resolve, 5));
    open();
    await slot;
    const answers = await sent;
    const checked = answers.filter((a) => a.status !== 429);
    const refused = answers.filter((a) => a.status === 429);
    // How many guesses had reached the server before the first checked one was answered: a
    // gate that counted after checking would have let every one of them through.
    const firstAnswered = Math.min(...served.filter((s) => s.status !== 429).map((s) => s.finished ?? Infinity));
    const arrivedBeforeFirstAnswer = served.filter((s) => s.arrived < firstAnswered).length;
    return { answers, checked, refused, arrivedBeforeFirstAnswer, hashes: hashingStats().runs - runsBefore - 1 };
  }

  /**
   * Exactly the free guesses were checked, each a failure; the others refused with Retry-After.
   * Where the check hashes, every guess had reached the server before the first check ended.
   */
  function expectHeld(
    result: Awaited<ReturnType<typeof burst>>,
    failure: { status: number; message?: string; hashes?: false },
  ) {
    if (failure.hashes !== false) expect(result.arrivedBeforeFirstAnswer).toBe(result.answers.length);
    expect(result.checked).toHaveLength(FREE_CHECKS);
    for (const answer of result.checked) {
      expect(answer.status).toBe(failure.status);
      if (failure.message) expect(answer.message).toBe(failure.message);
    }
    for (const answer of result.refused) {
      expect(answer.message).toBe('Too many attempts. Try again later.');
      expect(answer.retryAfter).toBeGreaterThan(0);
    }
  }

  function expectLocked(answer: HttpAnswer) {
    expect(answer.status).toBe(429);
    expect(answer.message).toBe('Too many attempts. Try again later.');
    expect(answer.retryAfter).toBeGreaterThan(0);
    expect(answer.retryAfter).toBeLessThanOrEqual(60);
  }

  describe('one counter per protocol number', () => {
    it('sign-in by protocol number: five checked, then the right password refused at every door', async () => {
      await createProtocol(portal.ctx, { institutionId: lab, number: 'G-LOGIN', password: 'proto-right' });
      // Spread over 40 client addresses: the number's own counter is what holds.
      const result = await burst((i) => login('G-LOGIN', `guess-${i}`, {}, `127.0.1.${i + 1}`));
      expectHeld(result, { status: 401, message: 'Passwords are not the same!' });
      expect(result.hashes).toBeLessThanOrEqual(FREE_CHECKS);

      expectLocked(await send(login('G-LOGIN', 'proto-right')));
      expectLocked(await send(isValidProtocol('G-LOGIN', 'proto-right')));
      expectLocked(await send(register('G-LOGIN', 'proto-right', '127.0.1.200')));
      const failed = await portal.ctx.db
        .selectFrom('auditEvents')
        .select(({ fn }) => fn.countAll<number>().as('n'))
        .where('event', '=', 'LOGIN_FAILED')
        .executeTakeFirstOrThrow();
      expect(Number(failed.n)).toBe(FREE_CHECKS);
    });

    it('isValidProtocol: five checked, then the right password refused, here and at sign-in', async () => {
      await createProtocol(portal.ctx, { institutionId: lab, number: 'G-VALID', password: 'proto-right' });
      const result = await burst((i) => isValidProtocol('G-VALID', `guess-${i}`));
      expectHeld(result, { status: 400, message: 'Passwords are not the same!' });
      expect(result.hashes).toBeLessThanOrEqual(FREE_CHECKS);
      expectLocked(await send(isValidProtocol('G-VALID', 'proto-right')));
      expectLocked(await send(login('G-VALID', 'proto-right')));
    });

    it('bindProtocol: five checked, the right password refused, and nothing linked', async () => {
      await createProtocol(portal.ctx, { institutionId: lab, number: 'G-BIND', password: 'proto-right' });
      const patient = await createAccount(portal.ctx, {
        type: 'PATIENT',
        email: 'binder@mail.test',
        password: 'x1-Pass',
      });
      const token = await patientSession(patient, 'binder@mail.test');
      const bind = (password: string) => ({
        path: '/api/v2/auth/user/bindProtocol',
        token,
        body: { protocol: 'G-BIND', password, patientUserId: patient },
      });
      const result = await burst((i) => bind(`guess-${i}`));
      expectHeld(result, { status: 400, message: 'Passwords are not the same!' });
      expect(result.hashes).toBeLessThanOrEqual(FREE_CHECKS);
      expectLocked(await send(bind('proto-right')));
      const row = await portal.ctx.db
        .selectFrom('protocols')
        .select('patientUserId')
        .where('number', '=', 'G-BIND')
        .executeTakeFirstOrThrow();
      expect(row.patientUserId).toBeNull();
    });

    it('registration with a protocol: five checked from 40 addresses, then the right password refused', async () => {
      await createProtocol(portal.ctx, { institutionId: lab, number: 'G-REG', password: 'proto-right' });
      const result = await burst((i) => register('G-REG', `guess-${i}`, `127.0.2.${i + 1}`));
      expectHeld(result, { status: 400, message: 'Passwords are not the same!' });
      expect(result.hashes).toBeLessThanOrEqual(FREE_CHECKS);
      expectLocked(await send(register('G-REG', 'proto-right', '127.0.2.200')));
      const accounts = await portal.ctx.db
        .selectFrom('users')
        .select('id')
        .where('email', '=', 'rita.g-reg@mail.test')
        .execute();
      expect(accounts).toHaveLength(0);
    });

    it('every door of one number adds up: sign-in, externalLogin, isValidProtocol, bindProtocol, registration', async () => {
      await createProtocol(portal.ctx, { institutionId: lab, number: 'G-MIX', password: 'proto-right' });
      const patient = await createAccount(portal.ctx, {
        type: 'PATIENT',
        email: 'mixer@mail.test',
        password: 'x1-Pass',
      });
      const token = await patientSession(patient, 'mixer@mail.test');
      const doors = [
        (i: number) => login('G-MIX', `guess-${i}`),
        (i: number) => ({ path: `/api/v2/auth/externalLogin?username=G-MIX&password=guess-${i}` }),
        (i: number) => isValidProtocol('G-MIX', `guess-${i}`),
        (i: number) => ({
          path: '/api/v2/auth/user/bindProtocol',
          token,
          body: { protocol: 'G-MIX', password: `guess-${i}`, patientUserId: patient },
        }),
        (i: number) => register('G-MIX', `guess-${i}`, `127.0.3.${i + 1}`),
      ];
      const result = await burst((i) => doors[i % doors.length]!(i));
      expect(result.checked).toHaveLength(FREE_CHECKS);
      expect(result.hashes).toBeLessThanOrEqual(FREE_CHECKS);
      for (const answer of result.checked) expect([400, 401]).toContain(answer.status);
      expectLocked(await send(login('G-MIX', 'proto-right')));
      expectLocked(await send(isValidProtocol('G-MIX', 'proto-right')));
    });
  });

  describe('one counter per account', () => {
    it('sign-in by e-mail and by CPF share it: five checked, then the right password refused by either', async () => {
      await createAccount(portal.ctx, {
        type: 'PATIENT',
        email: 'twonames@mail.test',
        password: 'Acct#Right1',
        cpf: '529.982.247-25',
      });
      const result = await burst((i) =>
        login(i % 2 === 0 ? 'twonames@mail.test' : '529.982.247-25', `guess-${i}`, {}, `127.0.4.${i + 1}`),
      );
      expectHeld(result, { status: 401, message: 'Invalid username or password!' });
      expect(result.hashes).toBeLessThanOrEqual(FREE_CHECKS);
      expectLocked(await send(login('twonames@mail.test', 'Acct#Right1')));
      expectLocked(await send(login('529.982.247-25', 'Acct#Right1')));
      expectLocked(await send(login('52998224725', 'Acct#Right1')));
    });

    for (const door of ['changePassword', 'changeEmail'] as const) {
      it(`${door}: five current-password guesses checked, then the right one refused, and sign-in too`, async () => {
        const email = `${door.toLowerCase()}@mail.test`;
        const user = await createAccount(portal.ctx, { type: 'PATIENT', email, password: 'Acct#Right1' });
        const token = await patientSession(user, email);
        const change = (currentPassword: string) => ({
          path: `/api/v2/auth/user/${door}`,
          token,
          body:
            door === 'changePassword'
              ? { currentPassword, newPassword: 'Outra#Senha2026', confirmNewPassword: 'Outra#Senha2026' }
              : { currentPassword, newEmail: 'moved@mail.test', confirmNewEmail: 'moved@mail.test' },
        });
        const result = await burst((i) => change(`guess-${i}`));
        expectHeld(result, { status: 400, message: 'Actual password is incorrect' });
        expect(result.hashes).toBeLessThanOrEqual(FREE_CHECKS);
        expectLocked(await send(change('Acct#Right1')));
        expectLocked(await send(login(email, 'Acct#Right1')));
      });
    }

    it('inactivateMFAToken with the password: five checked, then the right password refused', async () => {
      const user = await createAccount(portal.ctx, {
        type: 'PATIENT',
        email: 'mfa-off@mail.test',
        password: 'Acct#Right1',
        mfaPhone: '11987650001',
      });
      const token = await patientSession(user, 'mfa-off@mail.test');
      const off = (password: string) => ({ path: '/api/v2/auth/inactivateMFAToken', token, body: { password } });
      const result = await burst((i) => off(`guess-${i}`));
      expectHeld(result, { status: 401, message: 'Actual password is incorrect' });
      expect(result.hashes).toBeLessThanOrEqual(FREE_CHECKS);
      expectLocked(await send(off('Acct#Right1')));
    });
  });

  describe('MFA codes', () => {
    /** The newest code queued for a phone (no SMS gateway here: messages wait in the outbox). */
    async function queuedCode(phone: string): Promise<string> {
      const rows = await portal.ctx.db
        .selectFrom('outbox')
        .select(['payload', 'createdAt'])
        .where('recipient', '=', phone)
        .orderBy('createdAt', 'desc')
        .execute();
      const code = /\b(\d{6})\b/.exec(rows[0]?.payload ?? '')?.[1];
      expect(code).toMatch(/^\d{6}$/);
      return code!;
    }
    const wrongCode = (code: string, i: number) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0');

    it('activateMFAToken: five codes checked, then the right code refused', async () => {
      const user = await createAccount(portal.ctx, { type: 'PATIENT', email: 'mfa-on@mail.test', password: 'x1-Pass' });
      const token = await patientSession(user, 'mfa-on@mail.test');
      const sent = await send({ path: '/api/v2/auth/generateMFAToken', token, body: { phoneNumber: '11987650002' } });
      expect(sent.status).toBe(200);
      const code = await queuedCode('5511987650002');
      const activate = (tokenValue: string) => ({
        path: '/api/v2/auth/activateMFAToken',
        token,
        body: { phoneNumber: '11987650002', tokenValue },
      });
      const result = await burst((i) => activate(wrongCode(code, i)));
      expectHeld(result, { status: 401, hashes: false });
      expectLocked(await send(activate(code)));
    });

    it('the code asked at sign-in: five checked under the account, then the right password and code refused', async () => {
      await createAccount(portal.ctx, {
        type: 'PATIENT',
        email: 'mfa-login@mail.test',
        password: 'Acct#Right1',
        mfaPhone: '11987650003',
      });
      const challenge = await send(login('mfa-login@mail.test', 'Acct#Right1'));
      expect(challenge.status).toBe(400);
      const code = await queuedCode('5511987650003');
      const result = await burst((i) => login('mfa-login@mail.test', 'Acct#Right1', { tokenMFA: wrongCode(code, i) }));
      expectHeld(result, { status: 401 });
      expect(result.hashes).toBeLessThanOrEqual(FREE_CHECKS);
      expectLocked(await send(login('mfa-login@mail.test', 'Acct#Right1', { tokenMFA: code })));
    });
  });

  it('password recovery: every request is claimed, so 40 at once queue five reset mails', async () => {
    await createAccount(portal.ctx, { type: 'PATIENT', email: 'forgetful@mail.test', password: 'x1-Pass' });
    const forgot = (): HttpCall => ({
      method: 'POST',
      path: '/api/auth/password/forgotPassword?username=forgetful@mail.test&language=pt-br',
    });
    const result = await burst(() => forgot());
    expectHeld(result, { status: 200, hashes: false });
    const mails = await portal.ctx.db
      .selectFrom('outbox')
      .select('id')
      .where('recipient', '=', 'forgetful@mail.test')
      .execute();
    // A newer reset retires the older links; every one that got through queued one mail.
    expect(mails).toHaveLength(FREE_CHECKS);
    expectLocked(await send(forgot()));
  });

  it("share creation: probing another patient's protocol ids is claimed, five checked, then a real share refused", async () => {
    const owner = await createAccount(portal.ctx, { type: 'PATIENT', email: 'sharer@mail.test', password: 'x1-Pass' });
    const other = await createAccount(portal.ctx, { type: 'PATIENT', email: 'victim@mail.test', password: 'x1-Pass' });
    const own = await createProtocol(portal.ctx, {
      institutionId: lab,
      number: 'G-SHARE-1',
      password: 'p1-Pass',
      patientUserId: owner,
    });
    const foreign = await createProtocol(portal.ctx, {
      institutionId: lab,
      number: 'G-SHARE-2',
      password: 'p1-Pass',
      patientUserId: other,
    });
    const token = await patientSession(owner, 'sharer@mail.test');
    const share = (protocols: string[]) => ({
      path: '/api/auth/protocol/share',
      token,
      body: { protocols, emails: ['friend@mail.test'], period: 3 },
    });
    const result = await burst(() => share([foreign]));
    expectHeld(result, { status: 404, hashes: false });
    expectLocked(await send(share([own])));
  });

  it('per client address: at most 100 failures, whatever the subjects, then even a right password is refused', async () => {
    await createProtocol(portal.ctx, { institutionId: lab, number: 'G-ADDR', password: 'proto-right' });
    const attacker = '127.0.9.9';
    const result = await burst((i) => login(`G-NONE-${i}`, 'guess', {}, attacker), 130);
    expect(result.checked).toHaveLength(100);
    for (const answer of result.checked) expect(answer.status).toBe(404);
    expect(result.hashes).toBeLessThanOrEqual(100);
    const blocked = await send(login('G-ADDR', 'proto-right', {}, attacker));
    expect(blocked.status).toBe(429);
    expect(blocked.retryAfter).toBeGreaterThan(0);
    expect((await send(login('G-ADDR', 'proto-right', {}, '127.0.9.10'))).status).toBe(200);
  });
});
