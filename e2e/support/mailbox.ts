import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface Mailbox {
  url: string;
  mails: ParsedMail[];
  /**
   * Errors of conversations that ended badly, such as a sender killed mid-mail (ECONNRESET): kept
   * and told when a wait fails, never thrown, since a sender may die while the journey goes on.
   */
  errors: Error[];
  /** Waits for a mail to `to` (and matching `subjectPart` when given), newest first. */
  waitFor: (to: string, options?: { after?: number; timeoutMs?: number }) => Promise<ParsedMail>;
  close: () => Promise<void>;
}

function recipients(mail: ParsedMail): string[] {
  const to = Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : [];
  return to.flatMap((a) => a.value.map((v) => (v.address ?? '').toLowerCase()));
}

/**
 * A real SMTP server on 127.0.0.1 that keeps what the portal sends, so journeys can follow mailed
 * links; on `port`, or one the system gives (0, the default).
 */
export async function startMailbox(port = 0): Promise<Mailbox> {
  const mails: ParsedMail[] = [];
  const errors: Error[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, done) {
      simpleParser(stream)
        .then((mail) => {
          mails.push(mail);
          done();
        })
        .catch((error: Error) => done(error));
    },
  });
  // smtp-server emits a socket error inside a mail transaction on the server; with no listener
  // there, a sender's process dying mid-mail would end the journey's own process.
  server.on('error', (error) => errors.push(error));
  const listening = await new Promise<number>((resolve) => {
    server.listen(port, '127.0.0.1', () => {
      const address = server.server.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    });
  });

  const waitFor: Mailbox['waitFor'] = async (to, options = {}) => {
    const deadline = Date.now() + (options.timeoutMs ?? 20_000);
    const wanted = to.toLowerCase();
    for (;;) {
      const found = mails
        .slice(options.after ?? 0)
        .reverse()
        .find((mail) => recipients(mail).includes(wanted));
      if (found) return found;
      if (Date.now() > deadline) {
        const broken = errors.length
          ? `; conversations that ended badly: ${errors.map((e) => e.message).join(', ')}`
          : '';
        throw new Error(`no mail to ${to} arrived (${mails.length} mails in total${broken})`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  return {
    url: `smtp://127.0.0.1:${listening}`,
    mails,
    errors,
    waitFor,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Contract 4: every link of a mail stands alone on its line of the plain-text part. */
export function linkIn(mail: ParsedMail, baseUrl: string, pathPart: string): string {
  const line = (mail.text ?? '')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l.startsWith(baseUrl) && l.includes(pathPart));
  if (!line) throw new Error(`no ${pathPart} link in the mail "${mail.subject}":\n${mail.text}`);
  return line;
}
