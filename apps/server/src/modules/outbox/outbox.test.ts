import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestPortal, type TestPortal } from '../../test/helpers.js';
import { MailSink } from '../../test/mail-sink.js';
import { queueMail, queueSms, retryDeadMessages } from './outbox.service.js';
import { smtpSender } from './outbox.transports.js';
import { claimMessage } from './outbox.repository.js';
import { expireMessages, OUTBOX_RETRY, processDueMessages, retryDelayMs, startOutboxWorker } from './outbox.worker.js';

const PUBLIC_URL = 'http://portal.test';
const POLL = { OUTBOX_POLL_MS: '20' };

// A bound, not a measure: the machine may be busy, so the limit is generous.
async function waitFor(check: () => boolean | Promise<boolean>, what: string, limitMs = 45_000): Promise<void> {
  const until = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`gave up waiting for ${what}`);
    await sleep(20);
  }
}

const lines = (text: string | false | undefined) => String(text || '').split(/\r?\n/);
const rows = (portal: TestPortal) => portal.ctx.db.selectFrom('outbox').selectAll().orderBy('createdAt').execute();

const portals: TestPortal[] = [];
async function portal(options: Parameters<typeof startTestPortal>[0] = {}): Promise<TestPortal> {
  const p = await startTestPortal(options);
  portals.push(p);
  return p;
}
afterEach(async () => {
  // Portals sharing a database: close them all first, then drop the database once.
  const all = portals.splice(0);
  await Promise.all(all.map((p) => p.close()));
  for (const p of all) await p.destroy();
});

describe('mails through a real SMTP server', () => {
  const sink = new MailSink();
  beforeAll(() => sink.start());
  afterAll(() => sink.close());

  it('delivers mails in pt-br, es and en with a text part holding the link alone on its line and an HTML part', async () => {
    sink.mails.length = 0;
    const p = await portal({
      outbox: true,
      env: { ...POLL, SMTP_URL: sink.url, MAIL_FROM: 'Resultados <resultados@clinica.test>' },
    });
    const reset = `${PUBLIC_URL}/password/reset?token=abc123&language=pt-br`;
    const invite = `${PUBLIC_URL}/physician/create?code=DEMO&token=tok456&language=es`;
    const share = `${PUBLIC_URL}/landing/share-token-789`;
    await queueMail(p.ctx, { kind: 'passwordRecovery', to: 'ana@paciente.test', language: 'pt-br', link: reset });
    await queueMail(p.ctx, {
      kind: 'physicianInvitation',
      to: 'dr.luis@medico.test',
      language: 'ES',
      link: invite,
      institutionName: 'Clínica Demonstração',
      params: { name: 'Luis' },
    });
    await queueMail(p.ctx, {
      kind: 'protocolShared',
      to: 'friend@example.test',
      language: 'en',
      link: share,
      params: { senderName: 'Maria Silva', message: 'Please look at my MRI', days: 7 },
    });
    await waitFor(() => sink.mails.length === 3, 'three mails');

    const byTo = (to: string) => sink.mails.find((m) => m.to && !Array.isArray(m.to) && m.to.text === to)!;
    const pt = byTo('ana@paciente.test');
    const es = byTo('dr.luis@medico.test');
    const en = byTo('friend@example.test');
    expect(pt.subject).toBe('Redefinição de senha');
    expect(es.subject).toBe('Invitación para médicos: portal de resultados - Clínica Demonstração');
    expect(en.subject).toBe('Maria Silva shared exam results with you');
    expect(pt.from?.text).toContain('resultados@clinica.test');
    expect(pt.headers.get('auto-submitted')).toBe('auto-generated');

    for (const [mail, link] of [
      [pt, reset],
      [es, invite],
      [en, share],
    ] as const) {
      expect(lines(mail.text)).toContain(link);
      // Every line that starts with the public address is exactly a link.
      for (const line of lines(mail.text).filter((l) => l.startsWith(PUBLIC_URL))) expect(line).toBe(link);
      expect(mail.html).toContain(`href="${link.replace(/&/g, '&amp;')}"`);
    }
    expect(pt.text).toContain('Mensagens podem levar alguns minutos para chegar');
    expect(pt.html).toContain('lang="pt-BR"');
    expect(es.text).toContain('Hola, Luis.');
    expect(es.html).toContain('Clínica Demonstração');
    expect(en.text).toContain('Message: "Please look at my MRI"');
    expect(en.text).toContain('available for 7 days');

    // The server has the last mail a moment before the outbox records it as sent.
    await waitFor(async () => (await rows(p)).every((r) => r.status !== 'PENDING'), 'the sends recorded');
    const stored = await rows(p);
    expect(stored.map((r) => r.status)).toEqual(['SENT', 'SENT', 'SENT']);
    expect(stored.every((r) => r.sentAt !== null && r.lockedUntil === null)).toBe(true);
    // Once delivered, the one-time links are not kept in the database.
    expect(stored.map((r) => r.payload).join()).not.toMatch(/abc123|tok456|share-token-789/);
    // Each mail's Message-ID names its outbox row, so a mail sent again after a crash is recognisable.
    const idOf = new Map(stored.map((r) => [r.recipient, r.id]));
    expect(pt.messageId).toBe(`<${idOf.get('ana@paciente.test')}@clinica.test>`);
    expect(en.messageId).toBe(`<${idOf.get('friend@example.test')}@clinica.test>`);
  });

  it('a message held by a process that died is sent by another once the hold (OUTBOX_LEASE_MS) ends', async () => {
    sink.mails.length = 0;
    const p = await portal({ env: { ...POLL, SMTP_URL: sink.url, OUTBOX_LEASE_MS: '30000' } });
    await queueMail(p.ctx, { kind: 'resultReady', to: 'held@example.test', language: 'pt-br' });
    const [row] = await rows(p);
    // The dead process's claim, as it left it.
    const now = p.clock.now();
    expect(
      await claimMessage(p.ctx.db, row!.id, now.toISOString(), new Date(now.getTime() + 30_000).toISOString()),
    ).toBe(true);
    const smtp = smtpSender(sink.url, p.ctx.config.mailFrom);
    try {
      expect(await processDueMessages(p.ctx, { mail: smtp.send })).toBe(0);
      p.clock.advance(30_001);
      expect(await processDueMessages(p.ctx, { mail: smtp.send })).toBe(1);
    } finally {
      smtp.close();
    }
    expect(sink.mails.map((m) => m.messageId)).toEqual([`<${row!.id}@localhost>`]);
    expect((await rows(p)).map((r) => r.status)).toEqual(['SENT']);
  });

  it('stops polling on stop(), after recording the send in flight', async () => {
    sink.mails.length = 0;
    sink.dataStarted = 0;
    let release!: () => void;
    sink.hold = new Promise((resolve) => (release = resolve));
    const p = await portal({ env: { ...POLL, SMTP_URL: sink.url } });
    const worker = startOutboxWorker(p.ctx);
    try {
      await queueMail(p.ctx, { kind: 'resultReady', to: 'first@example.test', language: 'pt-br' });
      await waitFor(() => sink.dataStarted === 1, 'the send in flight');
      const stopping = worker.stop();
      release();
      await stopping;
    } finally {
      sink.hold = undefined;
    }
    expect((await rows(p)).map((r) => r.status)).toEqual(['SENT']);
    await queueMail(p.ctx, { kind: 'resultReady', to: 'second@example.test', language: 'pt-br' });
    await sleep(200);
    expect(sink.mails).toHaveLength(1);
    expect((await rows(p)).map((r) => r.status).sort()).toEqual(['PENDING', 'SENT']);
  });

  it('queues the same dedupe key once', async () => {
    const p = await portal();
    const mail = { kind: 'resultReady', to: 'ana@paciente.test', language: 'pt-br', dedupeKey: 'exam-1' } as const;
    await queueMail(p.ctx, mail);
    await queueMail(p.ctx, mail);
    const stored = await rows(p);
    expect(stored).toHaveLength(1);
    expect(JSON.parse(stored[0]!.payload).text).toContain(`\n${PUBLIC_URL}/login\n`);
  });

  it('never sends a row twice when two processes share the database', async () => {
    sink.mails.length = 0;
    const env = { ...POLL, SMTP_URL: sink.url };
    const first = await portal({ env });
    const second = await portal({ env, reuse: { env: first.env }, clock: first.clock });
    const count = 30;
    for (let i = 0; i < count; i++) {
      await queueMail(first.ctx, { kind: 'resultReady', to: `patient${i}@example.test`, language: 'pt-br' });
    }
    const workers = [startOutboxWorker(first.ctx), startOutboxWorker(second.ctx), startOutboxWorker(second.ctx)];
    try {
      await waitFor(async () => (await rows(first)).every((r) => r.status === 'SENT'), 'every row sent');
      // A few more polls: nothing may go out again.
      await sleep(200);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
    const recipients = sink.mails.map((m) => (m.to && !Array.isArray(m.to) ? m.to.text : ''));
    expect(recipients).toHaveLength(count);
    expect(new Set(recipients).size).toBe(count);
  });
});

describe('retries', () => {
  it('keeps mails while the SMTP server is down and delivers each exactly once when it is back', async () => {
    const sink = new MailSink();
    await sink.start();
    await sink.close();
    // Credentials in SMTP_URL must never reach the stored error.
    const p = await portal({
      outbox: true,
      env: { ...POLL, SMTP_URL: `smtp://mailer:s3cr3t-pw@127.0.0.1:${sink.port}` },
    });
    for (const to of ['a@example.test', 'b@example.test', 'c@example.test']) {
      await queueMail(p.ctx, {
        kind: 'activation',
        to,
        language: 'pt-br',
        link: `${PUBLIC_URL}/api/v2/auth/x?token=1`,
      });
    }
    await waitFor(async () => (await rows(p)).every((r) => r.attempts >= 1), 'a failed attempt on every row');
    const failed = await rows(p);
    for (const row of failed) {
      expect(row.status).toBe('PENDING');
      expect(row.lastError).toBeTruthy();
      expect(row.lastError).not.toContain('s3cr3t-pw');
      expect(row.nextAttemptAt > p.clock.now().toISOString()).toBe(true);
    }
    expect(p.logs()).toContain('send failed, will retry');

    try {
      await sink.start(sink.port);
      p.clock.advance(OUTBOX_RETRY.maxDelayMs);
      await waitFor(async () => (await rows(p)).every((r) => r.status === 'SENT'), 'every row sent');
      p.clock.advance(OUTBOX_RETRY.maxDelayMs);
      await sleep(200);
      expect(sink.mails.map((m) => (m.to && !Array.isArray(m.to) ? m.to.text : '')).sort()).toEqual([
        'a@example.test',
        'b@example.test',
        'c@example.test',
      ]);
    } finally {
      await p.close();
      await sink.close();
    }
  });

  it('gives a mail up after the last attempt, and at once when the server refuses the mailbox', async () => {
    const sink = new MailSink((to) => to.startsWith('nobody'));
    await sink.start();
    const p = await portal();
    const smtp = smtpSender(sink.url, 'Resultados <r@clinica.test>');
    const down = smtpSender('smtp://127.0.0.1:9', 'Resultados <r@clinica.test>');
    try {
      await queueMail(p.ctx, { kind: 'resultReady', to: 'nobody@example.test', language: 'en' });
      await processDueMessages(p.ctx, { mail: smtp.send });
      const [refused] = await rows(p);
      expect(refused).toMatchObject({ status: 'DEAD', attempts: 1 });

      await queueMail(p.ctx, { kind: 'resultReady', to: 'later@example.test', language: 'en' });
      for (let i = 0; i < OUTBOX_RETRY.maxAttempts; i++) {
        await processDueMessages(p.ctx, { mail: down.send });
        p.clock.advance(OUTBOX_RETRY.maxDelayMs);
      }
      const later = (await rows(p)).find((r) => r.recipient === 'later@example.test');
      expect(later).toMatchObject({ status: 'DEAD', attempts: OUTBOX_RETRY.maxAttempts });
      expect(p.logs()).toContain('message given up');
      expect(sink.mails).toHaveLength(0);

      // Once the cause is fixed, an operator sends them again.
      expect(await retryDeadMessages(p.ctx)).toBe(2);
      await processDueMessages(p.ctx, { mail: smtp.send });
      expect(sink.mails.map((m) => (m.to && !Array.isArray(m.to) ? m.to.text : ''))).toEqual(['later@example.test']);
      const statuses = Object.fromEntries((await rows(p)).map((r) => [r.recipient, r.status]));
      expect(statuses).toEqual({ 'nobody@example.test': 'DEAD', 'later@example.test': 'SENT' });
    } finally {
      smtp.close();
      down.close();
      await sink.close();
    }
  });

  it('waits longer after each failure, never more than 15 minutes', () => {
    expect(retryDelayMs(1, () => 1)).toBe(5_000);
    expect(retryDelayMs(2, () => 1)).toBe(10_000);
    expect(retryDelayMs(3, () => 0)).toBe(10_000);
    expect(retryDelayMs(30, () => 1)).toBe(15 * 60_000);
  });
});

describe('SMS and WhatsApp through the webhook', () => {
  it('POSTs {to, channel, text} as JSON and retries after a failure', async () => {
    const received: Array<{ contentType?: string; body: unknown }> = [];
    let answers = [500, 204];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push({ contentType: req.headers['content-type'], body: JSON.parse(body) });
        res.statusCode = answers.shift() ?? 200;
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sms?key=hook-secret`;
    try {
      const p = await portal({ outbox: true, env: { ...POLL, SMS_WEBHOOK_URL: url } });
      await queueSms(p.ctx, { to: '5511987654321', channel: 'whatsapp', text: 'Seu código: 123456' });
      await waitFor(async () => (await rows(p))[0]?.attempts === 1, 'the failed attempt');
      expect((await rows(p))[0]!.lastError).not.toContain('hook-secret');
      p.clock.advance(60_000);
      await waitFor(async () => (await rows(p))[0]?.status === 'SENT', 'the SMS sent');
      expect(received).toHaveLength(2);
      expect(received[1]).toEqual({
        contentType: 'application/json',
        body: { to: '5511987654321', channel: 'whatsapp', text: 'Seu código: 123456' },
      });
      answers = [];
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('without SMTP_URL or SMS_WEBHOOK_URL', () => {
  it('keeps messages in the outbox and logs only recipient and subject', async () => {
    const p = await portal({ outbox: true, env: POLL });
    const link = `${PUBLIC_URL}/patient/create?token=secret-invite-token&language=pt-br`;
    await queueMail(p.ctx, { kind: 'patientInvitation', to: 'ana@paciente.test', language: 'pt-br', link });
    await queueSms(p.ctx, { to: '5511987654321', channel: 'sms', text: 'Código 654321' });
    await sleep(100);
    expect((await rows(p)).map((r) => r.status)).toEqual(['PENDING', 'PENDING']);
    const log = p.logs();
    expect(log).toContain('ana@paciente.test');
    expect(log).toContain('Seus resultados de exames online');
    expect(log).toContain('5511987654321');
    expect(log).not.toContain('secret-invite-token');
    expect(log).not.toContain('Código 654321');
  });

  it('with DEMO_DATA=true also logs the text, so the links can be followed', async () => {
    const p = await portal({ env: POLL });
    const demo = { ...p.ctx, config: { ...p.ctx.config, demoData: true } };
    const link = `${PUBLIC_URL}/api/v2/auth/user/registerValidate?token=demo-activation-token`;
    await queueMail(demo, { kind: 'activation', to: 'ana@paciente.test', language: 'pt-br', link });
    await queueSms(demo, { to: '5511987654321', channel: 'sms', text: 'Código 654321' });
    expect(p.logs()).toContain(`"links":["${link}"]`);
    expect(p.logs()).toContain('Código 654321');
    expect((await rows(p)).map((r) => r.status)).toEqual(['PENDING', 'PENDING']);
  });
});

describe('secrets in the outbox', () => {
  const payloadOf = async (p: TestPortal, to: string) =>
    (await rows(p))
      .filter((r) => r.recipient === to)
      .map((r) => ({ status: r.status, payload: JSON.parse(r.payload) }));

  it('wipes the link of a mail given up, keeps a notice to send again, and sends again only that', async () => {
    const sink = new MailSink((to) => to.startsWith('nobody'));
    await sink.start();
    const p = await portal();
    const smtp = smtpSender(sink.url, 'Resultados <r@clinica.test>');
    try {
      const link = `${PUBLIC_URL}/password/reset?token=given-up-reset-token`;
      await queueMail(p.ctx, { kind: 'passwordRecovery', to: 'nobody@example.test', language: 'pt-br', link });
      await queueMail(p.ctx, { kind: 'resultReady', to: 'nobody.too@example.test', language: 'pt-br' });
      await processDueMessages(p.ctx, { mail: smtp.send });
      expect(await payloadOf(p, 'nobody@example.test')).toEqual([
        { status: 'DEAD', payload: { kind: 'passwordRecovery' } },
      ]);
      const notice = await payloadOf(p, 'nobody.too@example.test');
      expect(notice[0]).toMatchObject({ status: 'DEAD', payload: { kind: 'resultReady', text: expect.any(String) } });
      const stored = JSON.stringify(await rows(p));
      expect(stored).not.toContain('given-up-reset-token');
      // The failure's log names the kind, not the subject.
      expect(p.logs()).toContain('"kind":"passwordRecovery"');
      expect(await retryDeadMessages(p.ctx)).toBe(1);
    } finally {
      smtp.close();
      await sink.close();
    }
  });

  it('wipes unsent MFA codes and links once they die, even with no sender configured', async () => {
    const p = await portal({ env: POLL });
    const link = `${PUBLIC_URL}/password/reset?token=unsent-reset-token`;
    await queueMail(p.ctx, { kind: 'passwordRecovery', to: 'waiting@example.test', language: 'pt-br', link });
    await queueMail(p.ctx, { kind: 'resultReady', to: 'notice@example.test', language: 'pt-br' });
    await queueSms(p.ctx, { to: '5511987654321', channel: 'sms', text: 'Código 112233' });
    expect(await expireMessages(p.ctx)).toBe(0);
    p.clock.advance(11 * 60_000);
    expect(await expireMessages(p.ctx)).toBe(1);
    expect(await payloadOf(p, '5511987654321')).toEqual([{ status: 'DEAD', payload: { channel: 'sms' } }]);
    p.clock.advance(24 * 3600_000);
    // The worker without senders does the same by itself.
    const worker = startOutboxWorker(p.ctx);
    try {
      await waitFor(async () => (await payloadOf(p, 'waiting@example.test'))[0]?.status === 'DEAD', 'the link to die');
    } finally {
      await worker.stop();
    }
    expect(await payloadOf(p, 'waiting@example.test')).toEqual([
      { status: 'DEAD', payload: { kind: 'passwordRecovery' } },
    ]);
    // A notice carries no secret: it waits for a sender.
    expect((await payloadOf(p, 'notice@example.test'))[0]).toMatchObject({ status: 'PENDING' });
    const stored = JSON.stringify(await rows(p));
    expect(stored).not.toContain('unsent-reset-token');
    expect(stored).not.toContain('112233');
  });

  it('never sends a link that died waiting', async () => {
    const sink = new MailSink();
    await sink.start();
    const p = await portal();
    const smtp = smtpSender(sink.url, 'Resultados <r@clinica.test>');
    try {
      const link = `${PUBLIC_URL}/api/v2/auth/user/registerValidate?token=late-token`;
      await queueMail(p.ctx, { kind: 'activation', to: 'late@example.test', language: 'pt-br', link });
      p.clock.advance(25 * 3600_000);
      await processDueMessages(p.ctx, { mail: smtp.send });
      expect(sink.mails).toHaveLength(0);
      expect(await payloadOf(p, 'late@example.test')).toEqual([{ status: 'DEAD', payload: { kind: 'activation' } }]);
    } finally {
      smtp.close();
      await sink.close();
    }
  });

  it('logs a share mail without the name of the patient who shared, outside a demo', async () => {
    const p = await portal();
    await queueMail(p.ctx, {
      kind: 'protocolShared',
      to: 'medica@example.test',
      language: 'pt-br',
      link: `${PUBLIC_URL}/landing/share-token`,
      params: { senderName: 'Ana Sigilosa', days: 3, institution: 'Clínica Alfa' },
    });
    const log = p.logs();
    expect(log).toContain('medica@example.test');
    expect(log).toContain('compartilhou resultados de exames com você - Clínica Alfa');
    expect(log).not.toContain('Sigilosa');
    // The mail itself still names her.
    expect((await rows(p))[0]!.subject).toContain('Ana Sigilosa');
  });
});
