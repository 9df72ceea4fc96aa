import { setTimeout as sleep } from 'node:timers/promises';
import { MFA_CODE_TTL_MS } from '@portal/shared/limits';
import type { AppContext } from '../../context.js';
import {
  claimMessage,
  findDueMessages,
  findExpiredMessages,
  markExpired,
  markFailed,
  markSent,
  type OutboxChannel,
  type OutboxMessage,
} from './outbox.repository.js';
import {
  describeError,
  type MailMessage,
  PermanentDeliveryError,
  type SmsMessage,
  smsWebhookSender,
  smtpSender,
} from './outbox.transports.js';

export interface OutboxTransports {
  sendMail(message: { to: string; subject: string; text: string; html?: string }): Promise<void>;
  sendSms(message: { to: string; channel: string; text: string }): Promise<void>;
}

export interface OutboxWorker {
  /** Stops polling and waits for the send in flight (its result is recorded). */
  stop(): Promise<void>;
}

/** Retry policy: 5 s, 10 s, 20 s ... at most 15 minutes apart; given up after 20 attempts (~3.5 h). */
export const OUTBOX_RETRY = {
  firstDelayMs: 5_000,
  maxDelayMs: 15 * 60_000,
  maxAttempts: 20,
  batchSize: 20,
} as const;

/**
 * How often a sending worker looks for waiting messages whose secret died (the first poll does);
 * without any sender every poll does, as nothing else happens then.
 */
const EXPIRY_SWEEP_MS = 60_000;

/** Delay before the next attempt after `attempts` failures, with jitter so retries do not align. */
export function retryDelayMs(attempts: number, random: () => number = Math.random): number {
  const exponential = OUTBOX_RETRY.firstDelayMs * 2 ** Math.min(Math.max(attempts - 1, 0), 20);
  const capped = Math.min(exponential, OUTBOX_RETRY.maxDelayMs);
  // "Equal jitter": between half and the whole delay, never above the cap.
  return Math.round(capped / 2 + (capped / 2) * random());
}

interface Senders {
  mail?: (m: MailMessage) => Promise<void>;
  sms?: (m: SmsMessage) => Promise<void>;
  close(): void;
}

function resolveSenders(ctx: AppContext, injected: Partial<OutboxTransports>): Senders {
  const smtp = !injected.sendMail && ctx.config.smtpUrl ? smtpSender(ctx.config.smtpUrl, ctx.config.mailFrom) : null;
  const webhook = ctx.config.smsWebhookUrl;
  return {
    mail: injected.sendMail ?? smtp?.send,
    sms: injected.sendSms ?? (webhook ? smsWebhookSender(webhook) : undefined),
    close: () => smtp?.close(),
  };
}

/**
 * Sends what is due in the outbox, one row at a time: claim, send, mark sent. Returns how many
 * rows it looked at, so the caller knows whether more may be waiting.
 */
export async function processDueMessages(
  ctx: AppContext,
  senders: Pick<Senders, 'mail' | 'sms'>,
  shouldStop: () => boolean = () => false,
): Promise<number> {
  const channels: OutboxChannel[] = [];
  if (senders.mail) channels.push('EMAIL');
  if (senders.sms) channels.push('SMS');
  const now = ctx.clock.now();
  const rows = await findDueMessages(ctx.db, now.toISOString(), channels, OUTBOX_RETRY.batchSize);
  for (const row of rows) {
    if (shouldStop()) break;
    const claimedAt = ctx.clock.now();
    // A process that dies while sending leaves its claim: another takes the row over once it ends.
    const leaseUntil = new Date(claimedAt.getTime() + ctx.config.outboxLeaseMs).toISOString();
    if (!(await claimMessage(ctx.db, row.id, claimedAt.toISOString(), leaseUntil))) continue;
    await deliver(ctx, senders, row);
  }
  return rows.length;
}

async function deliver(ctx: AppContext, senders: Pick<Senders, 'mail' | 'sms'>, row: OutboxMessage): Promise<void> {
  try {
    const payload = JSON.parse(row.payload) as { text?: string; html?: string; channel?: string };
    // A one-time link or code that died before it could be sent would only confuse.
    if (row.expiresAt !== null && row.expiresAt <= ctx.clock.now().toISOString()) {
      throw new PermanentDeliveryError('expired before it could be sent');
    }
    if (row.channel === 'SMS') {
      // SMS carry MFA codes, dead after 10 minutes (rows queued before expiresAt existed).
      if (ctx.clock.now().getTime() - new Date(row.createdAt).getTime() > MFA_CODE_TTL_MS) {
        throw new PermanentDeliveryError('expired before it could be sent');
      }
      await senders.sms!({ to: row.recipient, channel: payload.channel ?? 'whatsapp', text: payload.text ?? '' });
    } else {
      await senders.mail!({
        id: row.id,
        to: row.recipient,
        subject: row.subject ?? '',
        text: payload.text ?? '',
        html: payload.html,
      });
    }
  } catch (error) {
    await recordFailure(ctx, row, error);
    return;
  }
  await recordSuccess(ctx, row);
}

/**
 * What a sent message keeps: its kind or channel, not its text. The text holds one-time links,
 * MFA codes and what patients wrote; once delivered, a copy in the database only adds risk.
 */
function retainedPayload(row: { channel: string; payload: string }): string {
  try {
    const payload = JSON.parse(row.payload) as { kind?: string; channel?: string };
    return JSON.stringify(row.channel === 'SMS' ? { channel: payload.channel } : { kind: payload.kind });
  } catch {
    return '{}';
  }
}

async function recordSuccess(ctx: AppContext, row: OutboxMessage): Promise<void> {
  // The far end has the message: losing this write would send it again once the lease ends, so
  // it is retried a few times before giving up.
  for (let attempt = 1; ; attempt++) {
    try {
      await markSent(ctx.db, row.id, ctx.clock.now().toISOString(), retainedPayload(row));
      return;
    } catch (error) {
      if (attempt >= 5) {
        ctx.log.error({ outboxId: row.id, err: error }, 'outbox: message sent but not marked; it may be sent again');
        return;
      }
      await sleep(200 * attempt);
    }
  }
}

/** A message's mail kind (or SMS channel), for the log. */
function kindOf(row: { channel: string; payload: string }): string | null {
  const kept = JSON.parse(retainedPayload(row)) as { kind?: string; channel?: string };
  return kept.kind ?? kept.channel ?? null;
}

/**
 * Gives up the waiting messages whose one-time link or code has died, wiping their text: without
 * SMTP_URL or SMS_WEBHOOK_URL nothing sends them, and a reset link or MFA code must not lie in
 * the database in clear for ever. Answers how many.
 */
export async function expireMessages(ctx: AppContext): Promise<number> {
  let expired = 0;
  for (;;) {
    const rows = await findExpiredMessages(ctx.db, ctx.clock.now().toISOString(), OUTBOX_RETRY.batchSize);
    for (const row of rows) await markExpired(ctx.db, row.id, retainedPayload(row));
    expired += rows.length;
    if (rows.length < OUTBOX_RETRY.batchSize) return expired;
  }
}

async function recordFailure(ctx: AppContext, row: OutboxMessage, error: unknown): Promise<void> {
  const attempts = row.attempts + 1;
  const lastError = describeError(error, [ctx.config.smtpUrl, ctx.config.smsWebhookUrl]);
  const dead = error instanceof PermanentDeliveryError || attempts >= OUTBOX_RETRY.maxAttempts;
  const now = ctx.clock.now();
  await markFailed(ctx.db, row.id, {
    attempts,
    lastError,
    status: dead ? 'DEAD' : 'PENDING',
    nextAttemptAt: new Date(now.getTime() + (dead ? 0 : retryDelayMs(attempts))).toISOString(),
    // Given up, a message carrying a one-time link or code keeps its kind, not its text.
    ...(dead && row.expiresAt !== null ? { payload: retainedPayload(row) } : {}),
  });
  // The stored subject may name a patient (a share's): the log has the kind instead.
  const detail = { outboxId: row.id, channel: row.channel, to: row.recipient, kind: kindOf(row), attempts };
  if (dead) ctx.log.error({ ...detail, error: lastError }, 'outbox: message given up');
  else ctx.log.warn({ ...detail, error: lastError }, 'outbox: send failed, will retry');
}

/**
 * Polls the outbox every OUTBOX_POLL_MS and sends what is due: mails through SMTP_URL, SMS and
 * WhatsApp through SMS_WEBHOOK_URL (or the injected transports). A channel without a transport
 * is left alone: its rows wait in the outbox until one is configured.
 */
export function startOutboxWorker(ctx: AppContext, transports: Partial<OutboxTransports> = {}): OutboxWorker {
  const senders = resolveSenders(ctx, transports);
  if (!senders.mail) ctx.log.info('outbox: SMTP_URL is not set; mails wait in the outbox');
  if (!senders.sms) ctx.log.info('outbox: SMS_WEBHOOK_URL is not set; SMS and WhatsApp messages wait in the outbox');
  // Without any sender the worker only wipes the secrets of messages that died waiting.
  const sending = Boolean(senders.mail || senders.sms);
  let lastSweep = 0;

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  const schedule = (ms: number) => {
    timer = setTimeout(() => {
      running = pass().finally(() => (running = undefined));
    }, ms);
    // The HTTP server keeps the process alive; a pending poll alone must not.
    timer.unref();
  };

  let failedPolls = 0;
  const pass = async () => {
    let seen = 0;
    try {
      if (Date.now() - lastSweep >= EXPIRY_SWEEP_MS || !sending) {
        lastSweep = Date.now();
        await expireMessages(ctx);
      }
      if (sending) seen = await processDueMessages(ctx, senders, () => stopped);
      failedPolls = 0;
    } catch (error) {
      // A database that is away answers every poll the same: back off, up to a minute, to keep
      // the log readable.
      failedPolls++;
      ctx.log.error({ err: error, failedPolls }, 'outbox: poll failed');
    }
    if (stopped) return;
    if (failedPolls > 0) schedule(Math.min(ctx.config.outboxPollMs * 2 ** failedPolls, 60_000));
    else schedule(seen >= OUTBOX_RETRY.batchSize ? 0 : ctx.config.outboxPollMs);
  };

  schedule(0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      senders.close();
    },
  };
}
