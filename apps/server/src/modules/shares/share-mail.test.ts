import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { MailSink } from '../../test/mail-sink.js';
import { makeInstitution, makeProtocol, makeUser } from '../accounts/test-factories.js';

/** Contract 4: the link stands alone on its line of the plain-text part, starting with PUBLIC_URL. */
function linkLine(mail: ParsedMail): URL {
  const line = String(mail.text ?? '')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l.startsWith('http://portal.test/'));
  if (!line) throw new Error(`no link line in: ${mail.text}`);
  expect(line).not.toContain(' ');
  return new URL(line);
}

describe('account and share mails through a real SMTP server', () => {
  let portal: TestPortal;
  const sink = new MailSink();

  beforeAll(async () => {
    await sink.start();
    portal = await startTestPortal({ outbox: true, env: { SMTP_URL: sink.url, OUTBOX_POLL_MS: '50' } });
  });
  afterAll(async () => {
    await portal?.destroy();
    await sink.close();
  });

  it('a recipient follows the share link of the mail and reaches the shared protocol', async () => {
    const institution = await makeInstitution(portal.ctx, { name: 'Clínica Norte' });
    const patient = await makeUser(portal.ctx, { email: 'sender@mail.test', name: 'Maria da Silva' });
    const protocol = await makeProtocol(portal.ctx, { institutionId: institution.id, patientUserId: patient.id });
    const token = await portal.sessionFor({ role: 'PATIENT', userId: patient.id, username: patient.email });
    const res = await portal.app.inject({
      method: 'POST',
      url: '/api/auth/protocol/share',
      headers: bearer(token),
      payload: { emails: ['friend@mail.test'], protocols: [protocol.id], message: 'Veja meus exames', period: 10 },
    });
    expect(res.statusCode).toBe(201);

    const mail = await sink.nthTo('friend@mail.test');
    expect(mail.text).toContain('Veja meus exames');
    const link = linkLine(mail);
    expect(link.pathname.startsWith('/landing/')).toBe(true);
    const session = await portal.app.inject({
      method: 'GET',
      url: '/api/v2/auth/validate',
      headers: bearer(link.pathname.slice('/landing/'.length)),
    });
    expect(session.statusCode).toBe(200);
    expect(session.json().data.countProtocols).toBe(1);
  });

  it('a new patient follows the activation link of the mail', async () => {
    const res = await portal.app.inject({
      method: 'POST',
      url: '/api/v2/auth/user/create',
      payload: {
        name: 'Rita Alves',
        login: 'rita@mail.test',
        password: 'Girassol#2026',
        confirmPassword: 'Girassol#2026',
        dateOfBirth: '02/03/1990',
        language: 'es',
      },
    });
    expect(res.statusCode).toBe(201);
    const mail = await sink.nthTo('rita@mail.test');
    const link = linkLine(mail);
    expect(link.pathname).toBe('/api/v2/auth/user/registerValidate');
    const follow = await portal.app.inject({ method: 'GET', url: `${link.pathname}${link.search}` });
    expect(follow.headers.location).toBe('/login?activeSuccess=true');
  });
});
