import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** The addresses a mail was sent to, in lower case. */
export function recipientsOf(mail: ParsedMail): string[] {
  const to = Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : [];
  return to.flatMap((a) => a.value.map((v) => (v.address ?? '').toLowerCase()));
}

/**
 * A real SMTP server on 127.0.0.1 that keeps every mail it accepts, parsed: the one place where
 * server tests and browser journeys receive what the portal sends.
 */
export class MailSink {
  readonly mails: ParsedMail[] = [];
  /**
   * Errors of conversations that ended badly, such as a sender killed in the middle of a mail
   * (ECONNRESET): kept and told when a wait fails, never thrown, since a sender may die while the
   * test goes on. smtp-server emits them on the server object, where an unheard error would end
   * the test's own process.
   */
  readonly errors: Error[] = [];
  /** While set, the sink holds each mail's DATA until the promise resolves. */
  hold?: Promise<void>;
  /** How many mails reached DATA, those held included. */
  dataStarted = 0;
  port = 0;
  private server?: SMTPServer;

  /** `refuse` answers 550 to the recipients it returns true for. */
  constructor(private readonly refuse?: (to: string) => boolean) {}

  /** Listens on `port`: the one it had before a `close`, or one the system gives. */
  async start(port = this.port): Promise<this> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      logger: false,
      onRcptTo: (address, _session, done) => {
        if (this.refuse?.(address.address)) {
          done(Object.assign(new Error('mailbox unavailable'), { responseCode: 550 }));
          return;
        }
        done();
      },
      onData: (stream, _session, done) => {
        this.dataStarted++;
        simpleParser(stream)
          .then(async (mail) => {
            await this.hold;
            this.mails.push(mail);
            done();
          })
          .catch((error: Error) => done(error));
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (error) => this.errors.push(error));
    this.server = server;
    this.port = (server.server.address() as AddressInfo).port;
    return this;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** The mails to an address so far, oldest first. */
  mailsTo(to: string): ParsedMail[] {
    const wanted = to.toLowerCase();
    return this.mails.filter((mail) => recipientsOf(mail).includes(wanted));
  }

  /** Waits for the newest mail to `to` among those that came after the first `after` mails. */
  waitFor(to: string, options: { after?: number; timeoutMs?: number } = {}): Promise<ParsedMail> {
    const wanted = to.toLowerCase();
    return this.until(
      () =>
        this.mails
          .slice(options.after ?? 0)
          .reverse()
          .find((mail) => recipientsOf(mail).includes(wanted)),
      `a mail to ${to}`,
      options.timeoutMs,
    );
  }

  /** Waits for the mail to `to` numbered `index` (0 for the first one). */
  nthTo(to: string, index = 0, timeoutMs?: number): Promise<ParsedMail> {
    return this.until(() => this.mailsTo(to)[index], `mail ${index + 1} to ${to}`, timeoutMs);
  }

  private async until(find: () => ParsedMail | undefined, what: string, timeoutMs = 45_000): Promise<ParsedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = find();
      if (found) return found;
      if (Date.now() > deadline) {
        const broken = this.errors.length
          ? `; conversations that ended badly: ${this.errors.map((e) => e.message).join(', ')}`
          : '';
        throw new Error(`${what} never arrived (${this.mails.length} mails in total${broken})`);
      }
      await sleep(25);
    }
  }
}
