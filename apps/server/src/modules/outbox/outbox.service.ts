import type { AppContext } from '../../context.js';
import type { Db } from '../../db/database.js';
import { newId } from '../../lib/ids.js';

/** Every mail of contract section 4, plus the result-ready notices. */
export type MailKind =
  | 'activation'
  | 'passwordRecovery'
  | 'physicianInvitation'
  | 'companyInvitation'
  | 'patientInvitation'
  | 'externalFirstPassword'
  | 'protocolShared'
  | 'resultReady'
  | 'resultDigest';

export interface MailRequest {
  kind: MailKind;
  to: string;
  language: string;
  /** The link the mail carries (absolute, starting with PUBLIC_URL), when it has one. */
  link?: string;
  /** Institution name for branding. */
  institutionName?: string | null;
  /** Free values the template uses (recipient name, sender name, message, expiry days, ...). */
  params?: Record<string, string | number | null | undefined>;
  /** When set, a second request with the same key queues nothing (idempotent producers). */
  dedupeKey?: string;
}

/**
 * Queues a mail in the durable outbox, in the caller's transaction when given: it is sent by the
 * worker, retried until the far end takes it, and never sent twice after a success.
 * (Placeholder body: the outbox module renders templates here.)
 */
export async function queueMail(ctx: AppContext, mail: MailRequest, db: Db = ctx.db): Promise<void> {
  const now = ctx.clock.now().toISOString();
  await db
    .insertInto('outbox')
    .values({
      id: newId(),
      channel: 'EMAIL',
      recipient: mail.to,
      subject: mail.kind,
      payload: JSON.stringify({ text: mail.link ?? '', params: mail.params ?? {} }),
      status: 'PENDING',
      attempts: 0,
      nextAttemptAt: now,
      lockedUntil: null,
      lastError: null,
      dedupeKey: mail.dedupeKey ?? null,
      createdAt: now,
      sentAt: null,
    })
    .onConflict((oc) => oc.column('dedupeKey').doNothing())
    .execute();
}

/** Queues an SMS or WhatsApp message (MFA codes) in the outbox; `to` is digits with country code. */
export async function queueSms(
  ctx: AppContext,
  sms: { to: string; channel: 'sms' | 'whatsapp'; text: string },
  db: Db = ctx.db,
): Promise<void> {
  const now = ctx.clock.now().toISOString();
  await db
    .insertInto('outbox')
    .values({
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
    })
    .execute();
}
