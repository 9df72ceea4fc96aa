import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId, sha256Hex } from '../../lib/ids.js';
import { revokeUserSessions } from '../../plugins/auth.js';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { createAccount, createInstitution, createProtocol, postLogin, shutDown } from './auth.test-support.js';

describe('sessions: tokens that must not work, logout, restarts', () => {
  let portal: TestPortal;
  let patientId: string;
  let protocolId: string;

  beforeAll(async () => {
    portal = await startTestPortal();
    const lab = await createInstitution(portal.ctx, 'LAB1');
    patientId = await createAccount(portal.ctx, { type: 'PATIENT', email: 'joao@example.com', password: 'joao-pass' });
    protocolId = await createProtocol(portal.ctx, { institutionId: lab, number: 'S-1', password: 's-pass' });
  });
  afterAll(async () => portal && shutDown(portal));

  const validate = (token: string) =>
    portal.app.inject({ method: 'GET', url: '/api/v2/auth/validate', headers: bearer(token) });
  const signIn = async (userName = 'joao@example.com', password = 'joao-pass') => {
    const res = await postLogin(portal.app, { userName, password });
    expect(res.statusCode).toBe(200);
    return res.json().data.accessToken as string;
  };
  const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());

  it('refuses a missing token and one signed with another key', async () => {
    const none = await portal.app.inject({ method: 'GET', url: '/api/v2/auth/validate' });
    expect(none.statusCode).toBe(401);
    const token = await signIn();
    const claims = claimsOf(token);
    const forged = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .sign(new TextEncoder().encode('another-secret-another-secret-another-secret'));
    expect((await validate(forged)).statusCode).toBe(401);
    expect((await validate(token)).statusCode).toBe(200);
  });

  it('never takes a token verified under one key as verified under another', async () => {
    const token = await signIn();
    expect((await validate(token)).statusCode).toBe(200);
    // A second portal on the same database, signing with another key, in the same process.
    const other = await startTestPortal({
      reuse: portal,
      env: { JWT_SECRET: 'another-secret-another-secret-another-secret' },
    });
    try {
      const res = await other.app.inject({ method: 'GET', url: '/api/v2/auth/validate', headers: bearer(token) });
      expect(res.statusCode).toBe(401);
    } finally {
      await other.destroy();
    }
    expect((await validate(token)).statusCode).toBe(200);
  });

  it('refuses an unsigned token (alg none) carrying real claims', async () => {
    const token = await signIn();
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const res = await validate(`${header}.${token.split('.')[1]}.`);
    expect(res.statusCode).toBe(401);
  });

  it('refuses a token past its expiry', async () => {
    const token = await signIn();
    expect((await validate(token)).statusCode).toBe(200);
    portal.clock.advance(portal.ctx.config.sessionTtlMs + 1000);
    const res = await validate(token);
    expect(res.statusCode).toBe(401);
    expect(res.json().message).toContain('expired');
  });

  it('revokes the session on logout, and only that one', async () => {
    const first = await signIn();
    const second = await signIn();
    const out = await portal.app.inject({ method: 'POST', url: '/api/v2/auth/logout', headers: bearer(first) });
    expect(out.statusCode).toBe(200);
    expect(out.json()).toEqual({ data: true });
    expect((await validate(first)).statusCode).toBe(401);
    const again = await portal.app.inject({ method: 'POST', url: '/api/v2/auth/logout', headers: bearer(first) });
    expect(again.statusCode).toBe(401);
    expect((await validate(second)).statusCode).toBe(200);
  });

  it('ends every other session of a user when asked (password change)', async () => {
    const kept = await signIn();
    const other = await signIn();
    await revokeUserSessions(portal.ctx, patientId, claimsOf(kept).jti);
    expect((await validate(other)).statusCode).toBe(401);
    expect((await validate(kept)).statusCode).toBe(200);
  });

  it('refuses a guest session once its protocol is disabled', async () => {
    const token = await signIn('S-1', 's-pass');
    expect((await validate(token)).statusCode).toBe(200);
    await portal.ctx.db.updateTable('protocols').set({ disabled: 1 }).where('id', '=', protocolId).execute();
    const res = await validate(token);
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe('Protocol or e-mail disabled!');
    await portal.ctx.db.updateTable('protocols').set({ disabled: 0 }).where('id', '=', protocolId).execute();
  });

  it('validates a share session as a guest-like user of its protocols', async () => {
    const shareId = newId();
    const now = portal.clock.now();
    await portal.ctx.db
      .insertInto('shares')
      .values({
        id: shareId,
        patientUserId: patientId,
        email: 'friend@example.com',
        tokenHash: sha256Hex(shareId),
        message: null,
        daysExpiration: 3,
        language: 'pt-br',
        institutionId: null,
        active: 1,
        createdAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + 3 * 86400_000).toISOString(),
        canceledAt: null,
      })
      .execute();
    const token = await portal.sessionFor({
      role: 'SHARE',
      shareId,
      userId: patientId,
      username: shareId,
      protocolIds: [protocolId],
    });
    const res = await validate(token);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      username: shareId,
      countProtocols: 1,
      isUserType: false,
      isPhysicianType: false,
      isExternalType: false,
      isAdminType: false,
      isCompanyType: false,
      role: 'SHARE',
    });
    // The share names the sharing patient, but never speaks for his account.
    const mfa = await portal.app.inject({ method: 'GET', url: '/api/v2/auth/isMFAActivated', headers: bearer(token) });
    expect(mfa.statusCode).toBe(403);
  });

  it('keeps sessions across a restart of the server', async () => {
    const token = await signIn();
    const restarted = await startTestPortal({ reuse: { env: portal.env }, clock: portal.clock });
    try {
      const res = await restarted.app.inject({ method: 'GET', url: '/api/v2/auth/validate', headers: bearer(token) });
      expect(res.statusCode).toBe(200);
      expect(res.json().data.identifier).toBe(patientId);
    } finally {
      await restarted.close();
    }
  });
});
