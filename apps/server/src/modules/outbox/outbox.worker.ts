import type { AppContext } from '../../context.js';

export interface OutboxTransports {
  sendMail(message: { to: string; subject: string; text: string; html?: string }): Promise<void>;
  sendSms(message: { to: string; channel: string; text: string }): Promise<void>;
}

export interface OutboxWorker {
  stop(): Promise<void>;
}

/** Placeholder until the outbox module lands. */
export function startOutboxWorker(_ctx: AppContext, _transports?: Partial<OutboxTransports>): OutboxWorker {
  return { stop: async () => {} };
}
