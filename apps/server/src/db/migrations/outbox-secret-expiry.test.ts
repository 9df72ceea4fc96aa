import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseMigratedTo } from '../../test/helpers.js';
import type { DatabaseHandle } from '../database.js';
import { migrateToLatest } from '../migrate.js';

const CREATED = '2026-11-20T12:00:00.000Z';

/** Messages queued before secrets expired: given-up ones lose their text, waiting ones get a lifetime. */
describe('migration 2026_11_26_0302: secrets in the outbox', () => {
  let handle: DatabaseHandle;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ handle, close } = await databaseMigratedTo('2026_11_26_0301_call_rates'));
    const message = (id: string, channel: string, status: string, payload: object) =>
      handle.db
        .insertInto('outbox')
        .values({
          id,
          channel,
          recipient: `${id}@example.test`,
          subject: null,
          payload: JSON.stringify(payload),
          status,
          attempts: 1,
          nextAttemptAt: CREATED,
          lockedUntil: null,
          lastError: null,
          dedupeKey: null,
          createdAt: CREATED,
          sentAt: null,
        } as never)
        .execute();
    await message('dead-reset', 'EMAIL', 'DEAD', { kind: 'passwordRecovery', text: 'reset?token=old-secret' });
    await message('dead-notice', 'EMAIL', 'DEAD', { kind: 'resultReady', text: 'a new result' });
    await message('waiting-code', 'SMS', 'PENDING', { channel: 'sms', text: 'Código 445566' });
    await message('waiting-invite', 'EMAIL', 'PENDING', { kind: 'physicianInvitation', text: 'create?token=x' });
    await migrateToLatest(handle);
  });
  afterAll(async () => {
    await close?.();
  });

  it('wipes given-up secrets and dates the waiting ones', async () => {
    const rows = await handle.db
      .selectFrom('outbox')
      .select(['id', 'status', 'payload', 'expiresAt'])
      .orderBy('id')
      .execute();
    expect(rows.map((r) => ({ ...r, payload: JSON.parse(r.payload) }))).toEqual([
      { id: 'dead-notice', status: 'DEAD', payload: { kind: 'resultReady', text: 'a new result' }, expiresAt: null },
      {
        id: 'dead-reset',
        status: 'DEAD',
        payload: { kind: 'passwordRecovery' },
        expiresAt: '2026-11-21T12:00:00.000Z',
      },
      {
        id: 'waiting-code',
        status: 'PENDING',
        payload: { channel: 'sms', text: 'Código 445566' },
        expiresAt: '2026-11-20T12:10:00.000Z',
      },
      {
        id: 'waiting-invite',
        status: 'PENDING',
        payload: { kind: 'physicianInvitation', text: 'create?token=x' },
        expiresAt: '2026-11-27T12:00:00.000Z',
      },
    ]);
  });
});
