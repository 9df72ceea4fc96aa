import { MFA_CODE_TTL_MS, TOKEN_TTL_MS } from '@portal/shared/limits';
import type { AppContext } from '../../context.js';
import type { Db } from '../../db/database.js';
import { newId } from '../../lib/ids.js';
import { renderMail } from './mail-render.js';
import { insertMessage, requeueDeadMessages } from './outbox.repository.js';

/** Every mail of contract section 4, plus the result-ready notices. */
export type MailKind =
  | 'activation'
  | 'passwordRecovery'
  | 'physicianInvitation'
  | 'companyInvitation'
  | 'adminInvitation'
  | 'patientInvitation'
  | 'externalFirstPassword'
  | 'protocolShared'
  | 'resultReady'
  | 'resultDigest'
  | 'accessAlert';

export interface MailRequest {
  kind: MailKind;
  to: string;
  language: string;
  /** The link the mail carries (absolute, starting with PUBLIC_URL), when it has one. */
  link?: string;
  /** Institution name for branding. */
  institutionName?: string | null;
  /** The institution the mail is sent for, counted as its in the console (null: the portal's own). */
  institutionId?: string | null;
  /**
   * Values the templates use: `name` (recipient), `senderName`, `message` and `days` (share expiry)
   * for protocolShared; `days` or `hours` (link validity, default 24 h for activation and reset,
   * 7 days for invitations); `count` and `period` (`DAY` or `WEEK`) for resultDigest; `tag`.
   */
  params?: Record<string, string | number | null | undefined>;
  /** When set, a second request with the same key queues nothing (idempotent producers). */
  dedupeKey?: string;
}

const DAY_MS = 24 * 3600_000;

/** How long the one-time link of each kind of mail lives (kinds absent carry no secret). */
const LINK_LIFETIME_MS: Partial<Record<MailKind, number>> = {
  activation: TOKEN_TTL_MS.activation,
  passwordRecovery: TOKEN_TTL_MS.reset,
  physicianInvitation: TOKEN_TTL_MS.invitation,
  companyInvitation: TOKEN_TTL_MS.invitation,
  adminInvitation: TOKEN_TTL_MS.invitation,
  patientInvitation: TOKEN_TTL_MS.invitation,
  externalFirstPassword: TOKEN_TTL_MS.invitation,
  protocolShared: 30 * DAY_MS,
};

/**
 * When the secret a mail carries dies, or null: the share's own expiry, the link validity the mail
 * states (`days`, `hours`), else the lifetime of its kind of link.
 */
function linkExpiry(mail: MailRequest, now: number): string | null {
  const lifetime = LINK_LIFETIME_MS[mail.kind];
  if (lifetime === undefined) return null;
  const { expiresAt, days, hours } = mail.params ?? {};
  if (typeof expiresAt === 'string' && !Number.isNaN(Date.parse(expiresAt))) return expiresAt;
  const stated = typeof hours === 'number' ? hours * 3600_000 : typeof days === 'number' ? days * DAY_MS : lifetime;
  return new Date(now + stated).toISOString();
}

/**
 * Queues a mail in the durable outbox, in the caller's transaction when given: it is rendered now
 * (subject, text and HTML in the request's language), sent by the worker, retried until the far
 * end takes it, and never sent twice after a success.
 */
export async function queueMail(ctx: AppContext, mail: MailRequest, db: Db = ctx.db): Promise<void> {
  const rendered = renderMail(mail, ctx.config.publicUrl);
  const at = ctx.clock.now();
  const now = at.toISOString();
  const inserted = await insertMessage(db, {
    id: newId(),
    channel: 'EMAIL',
    recipient: mail.to,
    subject: rendered.subject,
    payload: JSON.stringify({ kind: mail.kind, text: rendered.text, html: rendered.html }),
    status: 'PENDING',
    attempts: 0,
    nextAttemptAt: now,
    lockedUntil: null,
    lastError: null,
    dedupeKey: mail.dedupeKey ?? null,
    createdAt: now,
    sentAt: null,
    expiresAt: linkExpiry(mail, at.getTime()),
    institutionId: mail.institutionId ?? null,
  });
  if (!inserted) return;
  // Outside a demo the log names the recipient and the subject without the names of people in it
  // (a share's subject names the patient who shared).
  const subject = rendered.loggedSubject;
  if (ctx.config.smtpUrl) {
    ctx.log.debug({ to: mail.to, subject }, 'mail queued');
  } else if (ctx.config.demoData) {
    // Only a demo prints the text: its links are what a person trying the demo needs to follow,
    // so they also come on their own, free of the JSON escapes around them in the text.
    const links = rendered.text.split('\n').filter((line) => line.startsWith(ctx.config.publicUrl));
    ctx.log.info(
      { to: mail.to, subject: rendered.subject, links, text: rendered.text },
      'mail waits in the outbox (no SMTP_URL)',
    );
  } else {
    // The text holds one-time links that open accounts: without a demo it never reaches the log.
    ctx.log.info({ to: mail.to, subject }, 'mail waits in the outbox (no SMTP_URL)');
  }
}

/** Queues an SMS or WhatsApp message (MFA codes) in the outbox; `to` is digits with country code. */
export async function queueSms(
  ctx: AppContext,
  sms: { to: string; channel: 'sms' | 'whatsapp'; text: string },
  db: Db = ctx.db,
): Promise<void> {
  const at = ctx.clock.now();
  const now = at.toISOString();
  await insertMessage(db, {
    id: newId(),
    channel: 'SMS',
    recipient: sms.to,
    subject: null,
    payload: JSON.stringify({ channel: sms.channel, text: sms.text }),
    status: 'PENDING',
    attempts: 0,
    nextAttemptAt: now,
    lockedUntil: null,
    lastError: null,
    dedupeKey: null,
    createdAt: now,
    sentAt: null,
    // An MFA code dies after its lifetime: unsent by then, its text is wiped.
    expiresAt: new Date(at.getTime() + MFA_CODE_TTL_MS).toISOString(),
    // An MFA code is the account's, not an institution's.
    institutionId: null,
  });
  if (ctx.config.smsWebhookUrl) {
    ctx.log.debug({ to: sms.to, channel: sms.channel }, 'message queued');
  } else if (ctx.config.demoData) {
    ctx.log.info(
      { to: sms.to, channel: sms.channel, text: sms.text },
      'message waits in the outbox (no SMS_WEBHOOK_URL)',
    );
  } else {
    // The text is an MFA code: a secret, kept out of the log.
    ctx.log.info({ to: sms.to, channel: sms.channel }, 'message waits in the outbox (no SMS_WEBHOOK_URL)');
  }
}

/**
 * For operators, once the cause is fixed (a wrong SMTP_URL, a webhook that was down): messages
 * given up on are sent again from the start. Answers how many went back in line.
 */
export async function retryDeadMessages(ctx: AppContext): Promise<number> {
  const count = await requeueDeadMessages(ctx.db, ctx.clock.now().toISOString());
  if (count > 0) ctx.log.info({ count }, 'outbox: given-up messages queued again');
  return count;
}
