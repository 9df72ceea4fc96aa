import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { makeInstitution, makeProtocol, makeUser } from '../accounts/test-factories.js';

/** The mails a real SMTP server on 127.0.0.1 received, parsed. */
async function startMailSink() {
  const mails: ParsedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onData(stream, _session, done) {
      simpleParser(stream)
        .then((mail) => {
          mails.push(mail);
          done();
        })
        .catch(done);
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    async mailTo(address: string): Promise<ParsedMail> {
      const until = Date.now() + 20_000;
      for (;;) {
        const mail = mails.find((m) => JSON.stringify(m.to).includes(address));
        if (mail) return mail;
        if (Date.now() > until) throw new Error(`no mail reached ${address}`);
        await sleep(25);
      }
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

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
  let sink: Awaited<ReturnType<typeof startMailSink>>;

  beforeAll(async () => {
    sink = await startMailSink();
    portal = await startTestPortal({ outbox: true, env: { SMTP_URL: sink.url, OUTBOX_POLL_MS: '50' } });
  });
  afterAll(async () => {
    await portal?.destroy();
    await sink?.stop();
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

    const mail = await sink.mailTo('friend@mail.test');
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
    const mail = await sink.mailTo('rita@mail.test');
    const link = linkLine(mail);
    expect(link.pathname).toBe('/api/v2/auth/user/registerValidate');
    const follow = await portal.app.inject({ method: 'GET', url: `${link.pathname}${link.search}` });
    expect(follow.headers.location).toBe('/login?activeSuccess=true');
  });
});
