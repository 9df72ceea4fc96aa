import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { createAccount, createInstitution, createProtocol, postLogin, shutDown } from './auth.test-support.js';

// Each test signs in from its own address, so the per-address ceiling of one never touches another.
let nextAddress = 1;
const address = () => `10.1.0.${nextAddress++}`;

describe('sign-in: every way in and every catalogue answer', () => {
  let portal: TestPortal;
  let labA: string;
  let labB: string;
  let patientId: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    portal = await startTestPortal();
    const ctx = portal.ctx;
    labA = await createInstitution(ctx, 'LABA');
    labB = await createInstitution(ctx, 'LABB');
    const companyLab = await createInstitution(ctx, 'COMP');
    patientId = await createAccount(ctx, {
      type: 'PATIENT',
      email: 'maria@example.com',
      password: 'patient-pass',
      name: 'Maria da Silva',
      cpf: '52998224725',
      birth: '1980-05-17',
    });
    ids.physician = await createAccount(ctx, { type: 'PHYSICIAN', email: 'dr@example.com', password: 'doctor-pass' });
    ids.external = await createAccount(ctx, {
      type: 'EXTERNAL',
      email: 'partner@example.com',
      password: 'partner-pass',
    });
    await createAccount(ctx, { type: 'PATIENT', email: 'new@example.com', password: 'new-pass', active: false });
    await createAccount(ctx, { type: 'ADMIN', email: 'admin@example.com', password: 'admin-pass' });
    ids.company = await createAccount(ctx, {
      type: 'COMPANY',
      email: 'staff@example.com',
      password: 'staff-pass',
      institutionId: companyLab,
    });
    // Linked to the patient: counted by her session.
    await createProtocol(ctx, { institutionId: labA, number: 'L-1', password: 'linked', patientUserId: patientId });
    ids.p100 = await createProtocol(ctx, {
      institutionId: labA,
      number: '100200',
      password: 'proto-pass',
      birthDate: '1975-03-09',
    });
    // The same number in two institutions, with different passwords.
    ids.sharedA = await createProtocol(ctx, { institutionId: labA, number: 'X-77', password: 'same-pass' });
    ids.sharedB = await createProtocol(ctx, { institutionId: labB, number: 'X-77', password: 'same-pass' });
    await createProtocol(ctx, { institutionId: labA, number: 'OFF-1', password: 'off-pass', disabled: true });
    // Unique login: two protocols of one patient e-mail with one password, a third with another.
    ids.u1 = await createProtocol(ctx, {
      institutionId: labA,
      number: 'U-1',
      password: 'uniq',
      email: 'ana@example.com',
    });
    ids.u2 = await createProtocol(ctx, {
      institutionId: labB,
      number: 'U-2',
      password: 'uniq',
      email: 'ana@example.com',
    });
    await createProtocol(ctx, { institutionId: labB, number: 'U-3', password: 'other', email: 'ana@example.com' });
    // A number made of 11 digits that is a valid CPF of no account: a protocol number.
    ids.digits = await createProtocol(ctx, { institutionId: labA, number: '11144477735', password: 'digits-pass' });
  });
  afterAll(async () => portal && shutDown(portal));

  const validate = (token: string) =>
    portal.app.inject({ method: 'GET', url: '/api/v2/auth/validate', headers: bearer(token) });

  it('signs a patient in by e-mail with the session user of spec 3', async () => {
    const res = await postLogin(portal.app, { userName: 'Maria@Example.com', password: 'patient-pass' }, address());
    expect(res.statusCode).toBe(200);
    const { accessToken, user } = res.json().data;
    expect(accessToken.split('.')).toHaveLength(3);
    expect(user).toEqual({
      identifier: patientId,
      username: 'maria@example.com',
      name: 'Maria da Silva',
      birthdate: '1980-05-17',
      personalInfo: '529.***.**7-25',
      isUserType: true,
      isPhysicianType: false,
      isExternalType: false,
      isAdminType: false,
      isCompanyType: false,
      adminInstitutionID: null,
      countProtocols: 1,
      role: 'PATIENT',
    });
    const claims = JSON.parse(Buffer.from(accessToken.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ sub: patientId, role: 'PATIENT' });
    expect(claims.exp).toBeGreaterThan(claims.iat);

    const me = await validate(accessToken);
    expect(me.statusCode).toBe(200);
    expect(me.json().data).toEqual(user);
  });

  it('signs physicians and external users in with their flags', async () => {
    const dr = await postLogin(portal.app, { userName: 'dr@example.com', password: 'doctor-pass' }, address());
    expect(dr.statusCode).toBe(200);
    expect(dr.json().data.user).toMatchObject({ isPhysicianType: true, isUserType: false, role: 'PHYSICIAN' });
    const ext = await postLogin(portal.app, { userName: 'partner@example.com', password: 'partner-pass' }, address());
    expect(ext.statusCode).toBe(200);
    expect(ext.json().data.user).toMatchObject({ isExternalType: true, role: 'EXTERNAL' });
  });

  it('answers one text for a wrong password and 404 for an e-mail nobody has', async () => {
    const wrong = await postLogin(portal.app, { userName: 'maria@example.com', password: 'nope-nope' }, address());
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ message: 'Invalid username or password!' });
    const unknown = await postLogin(portal.app, { userName: 'ghost@example.com', password: 'whatever' }, address());
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().message).toBe('Protocol or e-mail does not exists!');
  });

  it('refuses an account that is not activated, only once the password is right', async () => {
    const res = await postLogin(portal.app, { userName: 'new@example.com', password: 'new-pass' }, address());
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe('The account is not activated!');
    const wrong = await postLogin(portal.app, { userName: 'new@example.com', password: 'bad-pass' }, address());
    expect(wrong.statusCode).toBe(401);
  });

  it('sends admin and company users to the administration interface', async () => {
    for (const [userName, password] of [
      ['admin@example.com', 'admin-pass'],
      ['staff@example.com', 'staff-pass'],
    ] as const) {
      const res = await postLogin(portal.app, { userName, password, appKey: 'login' }, address());
      expect(res.statusCode).toBe(403);
      expect(res.json().message).toBe('This login needs to use admin interface!');
    }
    const admin = await postLogin(
      portal.app,
      { userName: 'admin@example.com', password: 'admin-pass', appKey: 'admin' },
      address(),
    );
    expect(admin.statusCode).toBe(200);
    expect(admin.json().data.user).toMatchObject({ isAdminType: true, role: 'ADMIN' });
    const patientAsAdmin = await postLogin(
      portal.app,
      { userName: 'maria@example.com', password: 'patient-pass', appKey: 'admin' },
      address(),
    );
    expect(patientAsAdmin.statusCode).toBe(403);
    const company = await postLogin(
      portal.app,
      { userName: 'staff@example.com', password: 'staff-pass', appKey: 'admin' },
      address(),
    );
    expect(company.statusCode).toBe(200);
    expect(company.json().data.user).toMatchObject({ isCompanyType: true, adminInstitutionID: expect.any(String) });
    const claims = JSON.parse(Buffer.from(company.json().data.accessToken.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ role: 'COMPANY', code: 'COMP', sub: ids.company });
  });

  it('opens a protocol as a guest, with the birth date in either separator', async () => {
    for (const dateOfBirth of ['', '09/03/1975', '09-03-1975']) {
      const res = await postLogin(portal.app, { userName: '100200', password: 'proto-pass', dateOfBirth }, address());
      expect(res.statusCode).toBe(200);
      const { user, accessToken } = res.json().data;
      expect(user).toMatchObject({
        username: '100200',
        countProtocols: 1,
        isUserType: false,
        isPhysicianType: false,
        isExternalType: false,
        isAdminType: false,
        isCompanyType: false,
        role: 'GUEST',
      });
      const claims = JSON.parse(Buffer.from(accessToken.split('.')[1], 'base64url').toString());
      expect(claims).toMatchObject({ role: 'GUEST', code: 'LABA' });
      const me = await validate(accessToken);
      expect(me.json().data).toMatchObject({ username: '100200', countProtocols: 1, isUserType: false });
    }
  });

  it('answers the protocol catalogue texts', async () => {
    const wrongDate = await postLogin(
      portal.app,
      { userName: '100200', password: 'proto-pass', dateOfBirth: '10/03/1975' },
      address(),
    );
    expect(wrongDate.statusCode).toBe(404);
    expect(wrongDate.json().message).toBe('The protocol was not found with date informed!');

    const unknown = await postLogin(portal.app, { userName: 'NO-SUCH', password: 'x' }, address());
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().message).toBe('Protocol or e-mail does not exists!');

    const wrong = await postLogin(portal.app, { userName: '100200', password: 'not-it' }, address());
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().message).toBe('Passwords are not the same!');

    const disabled = await postLogin(portal.app, { userName: 'OFF-1', password: 'off-pass' }, address());
    expect(disabled.statusCode).toBe(403);
    expect(disabled.json().message).toBe('Protocol or e-mail disabled!');
  });

  it('opens every institution whose protocol matches, unless the branded page names one', async () => {
    const both = await postLogin(portal.app, { userName: 'X-77', password: 'same-pass' }, address());
    expect(both.statusCode).toBe(200);
    expect(both.json().data.user.countProtocols).toBe(2);

    const onlyB = await postLogin(
      portal.app,
      { userName: 'X-77', password: 'same-pass', customLogin: 'LABB' },
      address(),
    );
    expect(onlyB.statusCode).toBe(200);
    expect(onlyB.json().data.user.countProtocols).toBe(1);
    const claims = JSON.parse(Buffer.from(onlyB.json().data.accessToken.split('.')[1], 'base64url').toString());
    expect(claims.code).toBe('LABB');

    const elsewhere = await postLogin(
      portal.app,
      { userName: '100200', password: 'proto-pass', customLogin: 'LABB' },
      address(),
    );
    expect(elsewhere.statusCode).toBe(404);
    expect(elsewhere.json().message).toBe('Protocol or e-mail does not exists!');
  });

  it('opens a unique-login guest session over every protocol of the patient e-mail with that password', async () => {
    const res = await postLogin(portal.app, { userName: 'ana@example.com', password: 'uniq' }, address());
    expect(res.statusCode).toBe(200);
    const { user, accessToken } = res.json().data;
    expect(user.countProtocols).toBe(2);
    expect(user.role).toBe('GUEST');
    const me = await validate(accessToken);
    expect(me.statusCode).toBe(200);
    expect(me.json().data.username).not.toContain('@');
    expect(me.json().data).toMatchObject({ countProtocols: 2, isUserType: false, isExternalType: false });

    const wrong = await postLogin(portal.app, { userName: 'ana@example.com', password: 'nope' }, address());
    expect(wrong.statusCode).toBe(404);
    expect(wrong.json().message).toBe('Protocol or e-mail does not exists!');
  });

  it('signs in by CPF in the mask or as 11 bare digits, and tells CPF problems apart', async () => {
    const masked = await postLogin(portal.app, { userName: '529.982.247-25', password: 'patient-pass' }, address());
    expect(masked.statusCode).toBe(200);
    expect(masked.json().data.user.identifier).toBe(patientId);
    const bare = await postLogin(portal.app, { userName: '52998224725', password: 'patient-pass' }, address());
    expect(bare.statusCode).toBe(200);

    const malformed = await postLogin(portal.app, { userName: '529.982.247-26', password: 'patient-pass' }, address());
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().message).toBe('CPF invalid. Must be have 11 numbers.');

    const nobody = await postLogin(portal.app, { userName: '111.444.777-35', password: 'patient-pass' }, address());
    expect(nobody.statusCode).toBe(404);
    expect(nobody.json().message).toBe('Not found the number of document informed.');

    const wrong = await postLogin(portal.app, { userName: '529.982.247-25', password: 'not-hers' }, address());
    expect(wrong.statusCode).toBe(401);

    // 11 digits that are a valid CPF of nobody: a protocol number after all.
    const protocol = await postLogin(portal.app, { userName: '11144477735', password: 'digits-pass' }, address());
    expect(protocol.statusCode).toBe(200);
    expect(protocol.json().data.user).toMatchObject({ username: '11144477735', role: 'GUEST' });
  });

  it('takes the same inputs as query parameters on externalLogin, and keeps them out of the log', async () => {
    const ok = await portal.app.inject({
      method: 'GET',
      url: '/api/v2/auth/externalLogin?username=100200&password=proto-pass&birthdate=09%2F03%2F1975&tokenMFA=&customLogin=LABA&hint=',
      remoteAddress: address(),
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data.user.username).toBe('100200');
    const account = await portal.app.inject({
      method: 'GET',
      url: '/api/v2/auth/externalLogin?username=partner%40example.com&password=partner-pass',
      remoteAddress: address(),
    });
    expect(account.statusCode).toBe(200);
    expect(account.json().data.user.isExternalType).toBe(true);
    const wrong = await portal.app.inject({
      method: 'GET',
      url: '/api/v2/auth/externalLogin?username=100200&password=wrong-one',
      remoteAddress: address(),
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().message).toBe('Passwords are not the same!');
    expect(portal.logs()).not.toContain('proto-pass');
    expect(portal.logs()).not.toContain('partner-pass');
  });

  it('traces LOGIN and LOGIN_FAILED without any password', async () => {
    await postLogin(portal.app, { userName: '100200', password: 'secret-guess-1' }, address());
    const events = await portal.ctx.db.selectFrom('auditEvents').selectAll().orderBy('occurredAt').execute();
    const logins = events.filter((e) => e.event === 'LOGIN');
    const failures = events.filter((e) => e.event === 'LOGIN_FAILED');
    expect(logins.some((e) => e.systemUserId === patientId)).toBe(true);
    expect(logins.some((e) => e.protocolId === ids.p100)).toBe(true);
    expect(failures.some((e) => e.protocolId === ids.p100 && e.ip?.startsWith('10.1.0.'))).toBe(true);
    const everything = JSON.stringify(events);
    for (const secret of ['secret-guess-1', 'proto-pass', 'patient-pass', 'same-pass']) {
      expect(everything).not.toContain(secret);
    }
  });

  it('rejects a body without user name or password with the fields in data', async () => {
    const res = await portal.app.inject({
      method: 'POST',
      url: '/api/v2/auth/login',
      payload: { userName: '', appKey: 'login' },
      remoteAddress: address(),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().data).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'password' })]));
  });
});
