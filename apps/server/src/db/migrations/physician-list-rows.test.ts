import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Viewer } from '../../modules/delivery/delivery.policy.js';
import { listProtocols, type ListFilter } from '../../modules/delivery/protocol-list.repository.js';
import { databaseMigratedTo, institutionRow } from '../../test/helpers.js';
import { shownRow } from '../../modules/delivery/test-factories.js';
import type { DatabaseHandle } from '../database.js';
import { migrateToLatest } from '../migrate.js';

const NOW = '2026-11-20T12:00:00.000Z';
const PLAIN: ListFilter = { from: '2026-11-01T03:00:00.000Z', orderBy: 'date', offset: 0, limit: 10 };
const VIEWER: Viewer = {
  role: 'PHYSICIAN',
  userId: 'dr',
  sessionId: 's',
  sessionProtocolIds: new Set(),
  license: { crm: '55', uf: 'SP', institutionIds: ['inst-a'] },
  tagIds: new Set(),
};

/**
 * Requester rows written before the migration get their protocol's list row, state and
 * institution, so a physician's list reads the same protocols, exams and read marks as before it;
 * the day counts stay as they were.
 */
describe('migration 2026_11_29_0100: list rows on the requester rows', () => {
  let handle: DatabaseHandle;
  let close: () => Promise<void>;
  const counts = async () =>
    (
      await sql<{ scope: string; day: string; n: number }>`select scope, day, n from protocol_day_counts
      order by scope, day`.execute(handle.db)
    ).rows.map((r) => ({ ...r, n: Number(r.n) }));
  let countsBefore: Awaited<ReturnType<typeof counts>>;

  beforeAll(async () => {
    ({ handle, close } = await databaseMigratedTo('2026_11_27_1700_stamped_copies'));
    const db = handle.db;
    await db.insertInto('institutions').values(institutionRow('inst-a', NOW)).execute();
    for (const [id, day, disabled] of [
      ['p1', '10', 0],
      ['p2', '12', 0],
      ['p3', '14', 1],
    ] as const) {
      const at = `2026-11-${day}T12:00:00.000Z`;
      await db
        .insertInto('protocols')
        .values({
          id,
          institutionId: 'inst-a',
          number: `N-${id}`,
          passwordHash: 'x',
          requestedAt: at,
          sortAt: at,
          patientName: `Paciente ${id}`,
          patientNameSearch: `paciente ${id}`,
          patientExternalId: id,
          patientBirthDate: '1980-01-01',
          patientGender: 'F',
          patientEmail: id === 'p1' ? null : `${id}@mail.test`,
          disabled,
          createdAt: NOW,
          updatedAt: NOW,
        } as never)
        .execute();
      await db.insertInto('protocolRequesters').values({ protocolId: id, crm: '55', uf: 'SP', sortAt: at }).execute();
      for (const [position, enabled] of [
        [0, 1],
        [1, 0],
        [2, 1],
      ] as const) {
        await db
          .insertInto('exams')
          .values({
            id: `${id}-e${position}`,
            protocolId: id,
            examKey: `${id}-${position}`,
            description: `Exame ${position}`,
            type: 'LAB',
            modalityCode: 'LAB',
            modalityName: 'Laboratory',
            status: 'RELEASED',
            statusCode: 'L',
            isEnabled: enabled,
            position,
            createdAt: NOW,
            updatedAt: NOW,
          } as never)
          .execute();
      }
    }
    await db.insertInto('examReads').values({ viewerKey: 'dr', examId: 'p2-e2', readAt: NOW }).execute();
    countsBefore = await counts();
    await migrateToLatest(handle);
  });
  afterAll(async () => {
    await close?.();
  });

  it("gives every requester row its protocol's list row, and the list reads the same as from the protocols", async () => {
    const rows = await handle.db
      .selectFrom('protocolRequesters')
      .select(['protocolId', 'institutionId', 'disabled', 'listing'])
      .orderBy('protocolId')
      .execute();
    expect(rows.map((r) => [r.protocolId, r.institutionId, r.disabled])).toEqual([
      ['p1', 'inst-a', 0],
      ['p2', 'inst-a', 0],
      ['p3', 'inst-a', 1],
    ]);
    const p1 = JSON.parse(rows[0]!.listing!) as unknown[];
    expect(p1.slice(0, 3)).toEqual(['p1', 'inst-a', 'N-p1']);
    expect(p1[9]).toBeNull();
    expect((p1[12] as string).split('\u001f').map((e) => e.split('\u001e')[0])).toEqual(['p1-e0', 'p1-e2']);

    const plain = await listProtocols(handle.reader, VIEWER, PLAIN);
    const joined = await listProtocols(handle.reader, VIEWER, { ...PLAIN, institutionIds: ['inst-a'] });
    expect(plain.rows.map((r) => r.id)).toEqual(['p2', 'p1']);
    expect(plain.total).toBe(2);
    // The same rows, read marks and all, as the protocols give them.
    expect(plain.rows.map(shownRow)).toEqual(joined.rows.map(shownRow));
    expect(joined.rows[0]!.exams).toContain('p2-e2\u001eLAB\u001e\u001e8');
  });

  it('leaves the day counts as they were', async () => {
    expect(await counts()).toEqual(countsBefore);
  });
});
