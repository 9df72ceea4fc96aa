import type { ParsedMail } from 'mailparser';
import { MailSink } from '../../apps/server/src/test/mail-sink.js';

/** A real SMTP server on 127.0.0.1 that keeps what the portal sends, so journeys can follow mailed links. */
export type Mailbox = MailSink;

/** The journeys' mailbox, on `port` or one the system gives (0, the default). */
export function startMailbox(port = 0): Promise<Mailbox> {
  return new MailSink().start(port);
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
