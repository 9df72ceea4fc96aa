import nodemailer from 'nodemailer';

/** A delivery the far end refused for good (unknown mailbox, malformed number): retrying is futile. */
export class PermanentDeliveryError extends Error {}

export interface MailMessage {
  /** The outbox row: a mail sent again (its sender died before marking it sent) keeps its Message-ID. */
  id?: string;
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export interface SmsMessage {
  to: string;
  channel: string;
  text: string;
}

// Well below the outbox lease, so a stuck server never lets a second process take the row.
const SMTP_TIMEOUTS = { connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 60_000 };
const WEBHOOK_TIMEOUT_MS = 30_000;

/** The domain of MAIL_FROM's address, for Message-IDs (`portal.invalid` when it has none). */
export function messageIdDomain(from: string): string {
  const address = /<([^>]*)>/.exec(from)?.[1] ?? from;
  const domain = address.split('@')[1]?.trim();
  return domain && /^[A-Za-z0-9.-]+$/.test(domain) ? domain : 'portal.invalid';
}

/** Sends through the SMTP server of SMTP_URL, as MAIL_FROM. */
export function smtpSender(smtpUrl: string, from: string) {
  const transport = nodemailer.createTransport({ url: smtpUrl, ...SMTP_TIMEOUTS }, { from });
  return {
    async send(message: MailMessage): Promise<void> {
      try {
        await transport.sendMail({
          ...(message.id ? { messageId: `<${message.id}@${messageIdDomain(from)}>` } : {}),
          to: message.to,
          subject: message.subject,
          text: message.text,
          html: message.html,
          // RFC 3834: out-of-office responders must not answer a robot's mail.
          headers: { 'Auto-Submitted': 'auto-generated' },
        });
      } catch (error) {
        const e = error as { code?: string; responseCode?: number; message?: string };
        if (e.code === 'EENVELOPE' && typeof e.responseCode === 'number' && e.responseCode >= 500) {
          throw new PermanentDeliveryError(`recipient refused: ${e.responseCode}`, { cause: error });
        }
        throw error;
      }
    },
    close: () => transport.close(),
  };
}

/** POSTs `{"to","channel","text"}` to SMS_WEBHOOK_URL (contract 1); any 2xx is a success. */
export function smsWebhookSender(url: string) {
  return async (message: SmsMessage): Promise<void> => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ to: message.to, channel: message.channel, text: message.text }),
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    });
    await response.body?.cancel();
    if (response.ok) return;
    const detail = `SMS webhook answered HTTP ${response.status}`;
    // 408 and 429 say "later"; other 4xx say the request itself is wrong.
    if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) {
      throw new PermanentDeliveryError(detail);
    }
    throw new Error(detail);
  };
}

/**
 * An error as it may be stored and logged: no credentials of SMTP_URL, no webhook address (its
 * query may hold a key), at most 500 characters.
 */
export function describeError(error: unknown, secrets: Array<string | undefined>): string {
  const e = error as { message?: unknown; code?: unknown; responseCode?: unknown };
  let text = typeof e?.message === 'string' ? e.message : String(error);
  if (typeof e?.code === 'string' && !text.includes(e.code)) text = `${e.code}: ${text}`;
  for (const secret of secrets) {
    if (!secret) continue;
    text = text.split(secret).join('[REDACTED]');
    try {
      const url = new URL(secret);
      for (const part of [url.password, url.username, url.search]) {
        if (part.length > 2)
          text = text.split(decodeURIComponent(part)).join('[REDACTED]').split(part).join('[REDACTED]');
      }
    } catch {
      /* not a URL */
    }
  }
  text = text.replace(/\/\/[^/\s@]+@/g, '//[REDACTED]@');
  return text.slice(0, 500);
}
