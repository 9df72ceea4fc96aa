import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations work on the raw schema */
type Db = Kysely<any>;

const HOUR = 3600_000;
/** The messages that carry a one-time link or code, and how long it lived when this was written. */
const SECRET_LIFETIME_MS: Record<string, number> = {
  activation: 24 * HOUR,
  passwordRecovery: 24 * HOUR,
  physicianInvitation: 7 * 24 * HOUR,
  companyInvitation: 7 * 24 * HOUR,
  patientInvitation: 7 * 24 * HOUR,
  externalFirstPassword: 7 * 24 * HOUR,
  // A share link lives as long as its share: at most 30 days and the grace after it.
  protocolShared: 60 * 24 * HOUR,
};
const SMS_LIFETIME_MS = 10 * 60_000;

/*
 * Outbox messages carrying a one-time link or an MFA code get the time their secret dies
 * (`expires_at`): unsent by then, or given up, their text is wiped. Messages already given up lose
 * their text now; those still waiting get the lifetime their secret had.
 */
export async function up(db: Db): Promise<void> {
  await db.schema.alterTable('outbox').addColumn('expires_at', 'text').execute();
  await db.schema.createIndex('outbox_expires').on('outbox').columns(['expires_at']).execute();
  const rows = await db
    .selectFrom('outbox')
    .select(['id', 'channel', 'status', 'payload', 'created_at as createdAt'])
    .where('status', 'in', ['PENDING', 'DEAD'])
    .execute();
  for (const row of rows) {
    let payload: { kind?: string; channel?: string } = {};
    try {
      payload = JSON.parse(String(row.payload)) as typeof payload;
    } catch {
      // an unreadable payload is treated as carrying a secret
    }
    const lifetime = row.channel === 'SMS' ? SMS_LIFETIME_MS : SECRET_LIFETIME_MS[payload.kind ?? ''];
    if (lifetime === undefined) continue;
    const expiresAt = new Date(Date.parse(String(row.createdAt)) + lifetime).toISOString();
    const retained = JSON.stringify(row.channel === 'SMS' ? { channel: payload.channel } : { kind: payload.kind });
    await db
      .updateTable('outbox')
      .set(row.status === 'DEAD' ? { expires_at: expiresAt, payload: retained } : { expires_at: expiresAt })
      .where('id', '=', row.id)
      .execute();
  }
}
