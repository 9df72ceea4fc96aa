import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseMigratedTo, institutionRow } from '../../test/helpers.js';
import type { DatabaseHandle } from '../database.js';
import { migrateToLatest } from '../migrate.js';

const NOW = '2026-11-20T12:00:00.000Z';

/**
 * Older physician accounts become vouched for by the institution that invited them, and the
 * requester licenses' day counts are split per institution, over data written before the migration.
 */
describe('migration 2026_11_26_0300: physicians vouched for per institution', () => {
  let handle: DatabaseHandle;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ handle, close } = await databaseMigratedTo('2026_11_23_0100_list_revisions'));
    const db = handle.db;
    for (const id of ['inst-a', 'inst-b']) {
      await db.insertInto('institutions').values(institutionRow(id, NOW)).execute();
    }
    const user = (id: string, type: string, institutionId: string | null) =>
      db
        .insertInto('users')
        .values({
          id,
          type,
          email: `${id}@mail.test`,
          name: id,
          active: 1,
          disabled: 0,
          mfaEnabled: 0,
          frequencyReceiveEmail: 'DEFAULT',
          language: 'pt-br',
          licenseNumber: type === 'PHYSICIAN' ? '55' : null,
          licenseState: type === 'PHYSICIAN' ? 'SP' : null,
          institutionId,
          createdAt: NOW,
          updatedAt: NOW,
        } as never)
        .execute();
    await user('dr-invited', 'PHYSICIAN', 'inst-a');
    await user('dr-without', 'PHYSICIAN', null);
    await user('staff', 'COMPANY', 'inst-b');
    for (const [id, institutionId, disabled] of [
      ['p1', 'inst-a', 0],
      ['p2', 'inst-b', 0],
      ['p3', 'inst-b', 0],
      ['p4', 'inst-b', 1],
    ] as const) {
      await db
        .insertInto('protocols')
        .values({
          id,
          institutionId,
          number: id,
          passwordHash: 'x',
          requestedAt: NOW,
          sortAt: NOW,
          patientName: 'P',
          patientNameSearch: 'p',
          patientExternalId: id,
          patientBirthDate: '1980-01-01',
          patientGender: 'F',
          disabled,
          createdAt: NOW,
          updatedAt: NOW,
        } as never)
        .execute();
      await db.insertInto('protocolRequesters').values({ protocolId: id, crm: '55', uf: 'SP', sortAt: NOW }).execute();
    }
    await migrateToLatest(handle);
  });
  afterAll(async () => {
    await close?.();
  });

  it('vouches for each physician by the institution that invited him, and for nobody else', async () => {
    const rows = await handle.db.selectFrom('physicianVouches').select(['userId', 'institutionId']).execute();
    expect(rows).toEqual([{ userId: 'dr-invited', institutionId: 'inst-a' }]);
  });

  it('counts the live protocols of a license per institution, and keeps counting them per institution', async () => {
    const counts = async () =>
      (
        await sql<{ scope: string; n: number }>`select scope, n from protocol_day_counts
          where scope like 'license:%' and n <> 0 order by scope`.execute(handle.db)
      ).rows.map((r) => ({ scope: r.scope, n: Number(r.n) }));
    expect(await counts()).toEqual([
      { scope: 'license:55/SP@inst-a', n: 1 },
      { scope: 'license:55/SP@inst-b', n: 2 },
    ]);
    await handle.db.updateTable('protocols').set({ disabled: 1 }).where('id', '=', 'p2').execute();
    await handle.db.updateTable('protocols').set({ disabled: 0 }).where('id', '=', 'p4').execute();
    await handle.db.deleteFrom('protocolRequesters').where('protocolId', '=', 'p1').execute();
    expect(await counts()).toEqual([{ scope: 'license:55/SP@inst-b', n: 2 }]);
  });
});
