import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { createInstitution } from '../institutions/institution.service.js';
import { makeTag, makeUser } from './test-factories.js';

const INGEST = '/api/v2/delivery/ingest/protocols';

/**
 * Lists tell their exact total from per-day counts kept by triggers (protocol_day_counts): the
 * counts must equal a fresh count of the protocols after every kind of write, and every list's
 * total must equal the protocols it actually lists.
 */
describe('per-day counts behind the list totals', () => {
  let portal: TestPortal;
  let apiKey: string;
  let institutionId: string;

  beforeAll(async () => {
    portal = await startTestPortal();
    ({
      apiKey,
      institution: { id: institutionId },
    } = await createInstitution(portal.ctx, { code: 'CNT', name: 'Contagem', viewType: 2 }));
  });
  afterAll(async () => portal?.destroy());

  const ingest = async (
    number: string,
    body: { requestedAt?: string; tag?: string; requesters?: string[] },
    key = apiKey,
  ) => {
    const res = await portal.app.inject({
      method: 'PUT',
      url: `${INGEST}/${number}`,
      headers: { 'x-api-key': key },
      payload: {
        password: 'senha-1',
        requestedAt: body.requestedAt,
        tag: body.tag,
        patient: { patientId: `P-${number}`, name: `Paciente ${number}`, birthDate: '1980-01-01', gender: 'F' },
        exams: (body.requesters ?? ['100/SP']).map((license, i) => {
          const [crm, uf] = license.split('/');
          return {
            examKey: `E${i}`,
            description: 'Exame',
            type: 'LAB',
            modalityCode: 'LAB',
            modalityName: 'Laboratorio',
            requester: { identifier: `R${i}`, name: 'Dr', crm, uf },
            status: 'RELEASED',
          };
        }),
      },
    });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json().data.requestId as string;
  };

  /** What the counts must be: live protocols per scope and GMT-3 day, counted afresh. */
  const recounted = async () => {
    const day = (column: string) =>
      portal.ctx.database.dialect === 'sqlite'
        ? `date(${column}, '-180 minutes')`
        : `to_char((${column})::timestamptz at time zone 'UTC' - interval '3 hours', 'YYYY-MM-DD')`;
    const rows = await sql<{ scope: string; day: string; n: number }>`
      select scope, day, count(*) as n from (
        select 'patient:' || patient_user_id as scope, ${sql.raw(day('sort_at'))} as day from protocols
          where disabled = 0 and patient_user_id is not null
        union all
        select 'tag:' || tag_id, ${sql.raw(day('sort_at'))} from protocols where disabled = 0 and tag_id is not null
        union all
        select 'license:' || pr.crm || '/' || pr.uf || '@' || p.institution_id, ${sql.raw(day('pr.sort_at'))}
          from protocol_requesters pr join protocols p on p.id = pr.protocol_id where p.disabled = 0
      ) live group by scope, day order by scope, day`.execute(portal.ctx.db);
    return rows.rows.map((r) => ({ ...r, n: Number(r.n) }));
  };
  const stored = async () =>
    (
      await portal.ctx.db
        .selectFrom('protocolDayCounts')
        .select(['scope', 'day', 'n'])
        .where('n', '<>', 0)
        .orderBy('scope')
        .orderBy('day')
        .execute()
    ).map((r) => ({ ...r, n: Number(r.n) }));
  const expectCountsRight = async (step: string) => expect(await stored(), step).toEqual(await recounted());

  it('equal a fresh count after every kind of write', async () => {
    const patient = await makeUser(portal.ctx, { type: 'PATIENT', name: 'Paula' });
    const p1 = await ingest('C-1', { requestedAt: '2026-11-10T12:00:00Z', tag: 'Parceiro', requesters: ['100/SP'] });
    await ingest('C-2', { requestedAt: '2026-11-10T02:30:00Z', tag: 'Parceiro', requesters: ['100/SP', '200/RJ'] });
    const p3 = await ingest('C-3', { requesters: ['200/RJ'] });
    await expectCountsRight('after creating three protocols');
    // 02:30 UTC is still the evening before in Brazil.
    expect(await stored()).toEqual(
      expect.arrayContaining([
        { scope: `license:100/SP@${institutionId}`, day: '2026-11-09', n: 1 },
        { scope: `license:100/SP@${institutionId}`, day: '2026-11-10', n: 1 },
      ]),
    );

    await ingest('C-1', { requestedAt: '2026-10-01T12:00:00Z', tag: 'Outro', requesters: ['200/RJ'] });
    await expectCountsRight('after another date, tag and requester for a protocol');

    await portal.ctx.db
      .updateTable('protocols')
      .set({ patientUserId: patient.id })
      .where('id', 'in', [p1, p3])
      .execute();
    await expectCountsRight('after linking two protocols to an account');

    const disabled = await portal.app.inject({
      method: 'DELETE',
      url: `${INGEST}/C-2`,
      headers: { 'x-api-key': apiKey },
    });
    expect(disabled.statusCode).toBeLessThan(300);
    await expectCountsRight('after the institution disables a protocol');

    await portal.ctx.db.updateTable('protocols').set({ disabled: 0 }).where('number', '=', 'C-2').execute();
    await expectCountsRight('after the protocol is enabled again');

    await portal.ctx.db.deleteFrom('protocolRequesters').where('protocolId', '=', p3).execute();
    await portal.ctx.db
      .updateTable('protocolRequesters')
      .set({ sortAt: '2026-11-20T10:00:00.000Z' })
      .where('protocolId', '=', p1)
      .execute();
    await portal.ctx.db
      .updateTable('protocols')
      .set({ sortAt: '2026-11-19T10:00:00.000Z', tagId: null })
      .where('id', '=', p1)
      .execute();
    await expectCountsRight('after requester rows and protocol fields are written directly');

    await portal.ctx.db.updateTable('protocols').set({ disabled: 1 }).where('id', '=', p3).execute();
    await portal.ctx.db
      .insertInto('protocolRequesters')
      .values({ protocolId: p3, crm: '300', uf: 'MG', sortAt: '2026-11-01T10:00:00.000Z' })
      .execute();
    await expectCountsRight('after a requester is added to a disabled protocol');

    // Requester rows carry their protocol's date whatever writes it: the physician's list walks them.
    await portal.ctx.db.updateTable('protocols').set({ disabled: 0, sortAt: '2026-08-01T10:00:00.000Z' }).execute();
    await portal.ctx.db
      .insertInto('protocolRequesters')
      .values({ protocolId: p1, crm: '400', uf: 'BA', sortAt: '2020-01-01T00:00:00.000Z' })
      .execute();
    const dates = await portal.ctx.db
      .selectFrom('protocolRequesters as pr')
      .innerJoin('protocols as p', 'p.id', 'pr.protocolId')
      .select(['pr.sortAt as requester', 'p.sortAt as protocol'])
      .execute();
    expect(dates.length).toBeGreaterThan(3);
    expect(dates.filter((d) => d.requester !== d.protocol)).toEqual([]);
    await expectCountsRight('after protocols are enabled and moved at once, and a requester written with another date');
  });

  it('stay right, and every call succeeds, when protocols are ingested at once with swapped dates and licenses', async () => {
    const dates = ['2026-09-01T15:00:00Z', '2026-09-02T15:00:00Z'];
    for (let round = 0; round < 4; round++) {
      const calls = [0, 1, 2, 3].map((i) => {
        const swap = (i + round) % 2 === 1;
        return ingest(`D-${i % 2}`, {
          requestedAt: dates[swap ? 1 : 0],
          tag: 'Troca',
          requesters: swap ? ['500/SP', '600/RJ'] : ['600/RJ', '500/SP'],
        });
      });
      await Promise.all(calls);
    }
    await expectCountsRight('after concurrent ingests');
  });

  describe('list totals', () => {
    const tokens: Record<string, string> = {};
    // 25 protocols over 40 days before the test clock (2026-11-20T12:00Z), at hours that fall on
    // both sides of Brazil's midnight, for one patient, one tag and one requester license.
    beforeAll(async () => {
      const patient = await makeUser(portal.ctx, { type: 'PATIENT', name: 'Lia' });
      const physician = await makeUser(portal.ctx, {
        type: 'PHYSICIAN',
        name: 'Dr Luz',
        crm: '777',
        uf: 'SP',
        vouchedBy: [institutionId],
      });
      const external = await makeUser(portal.ctx, { type: 'EXTERNAL', name: 'Ext' });
      await makeTag(portal.ctx, institutionId, [external.id], 'Lista');
      for (let i = 0; i < 25; i++) {
        const at = new Date(Date.parse('2026-11-20T12:00:00Z') - i * 38 * 3600_000 - (i % 3) * 3600_000 * 4);
        const id = await ingest(`L-${i}`, { requestedAt: at.toISOString(), tag: 'Lista', requesters: ['777/SP'] });
        await portal.ctx.db.updateTable('protocols').set({ patientUserId: patient.id }).where('id', '=', id).execute();
      }
      await portal.ctx.db.updateTable('protocols').set({ disabled: 1 }).where('number', 'in', ['L-3', 'L-4']).execute();
      // Another clinic's protocols under the same license: they count only for an account that
      // clinic vouches for (Dr Luz is vouched for by the first clinic alone, Dr Sol by both).
      const other = await createInstitution(portal.ctx, { code: 'CNT2', name: 'Outra', viewType: 2 });
      for (let i = 0; i < 6; i++) {
        const at = new Date(Date.parse('2026-11-19T23:30:00Z') - i * 50 * 3600_000);
        await ingest(`O-${i}`, { requestedAt: at.toISOString(), requesters: ['777/SP'] }, other.apiKey);
      }
      const both = await makeUser(portal.ctx, {
        type: 'PHYSICIAN',
        name: 'Dr Sol',
        crm: '777',
        uf: 'SP',
        vouchedBy: [institutionId, other.institution.id],
      });
      tokens.bothClinics = await portal.sessionFor({ role: 'PHYSICIAN', userId: both.id, username: both.email });
      tokens.patient = await portal.sessionFor({ role: 'PATIENT', userId: patient.id, username: patient.email });
      tokens.physician = await portal.sessionFor({
        role: 'PHYSICIAN',
        userId: physician.id,
        username: physician.email,
      });
      tokens.external = await portal.sessionFor({ role: 'EXTERNAL', userId: external.id, username: external.email });
    });

    const get = async (url: string, token: string) => {
      const res = await portal.app.inject({ method: 'GET', url, headers: bearer(token) });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data as { items: Array<{ number: string }>; total: number };
    };

    const lists = [
      ['patient', '/api/v2/delivery/dashboard/protocols'],
      ['physician', '/api/delivery/persistence/protocols/physician'],
      ['external', '/api/v2/delivery/protocols/listedByTags'],
    ] as const;
    const ranges = [
      '',
      'initialDate=01/11/2026&finalDate=20/11/2026',
      'initialDate=15/11/2026&finalDate=15/11/2026',
      'initialDate=16/11/2026',
      'finalDate=10/11/2026',
      'initialDate=01/01/2026&finalDate=31/12/2026',
    ];

    it.each(lists)('the %s list tells, on a one-row page, how many protocols it lists in all', async (role, url) => {
      for (const range of ranges) {
        const all = await get(`${url}?${range}&size=100`, tokens[role]!);
        const onePage = await get(`${url}?${range}&size=1`, tokens[role]!);
        expect(onePage.total, `${role} ${range}`).toBe(all.items.length);
        expect(all.items.map((i) => i.number)).not.toContain('L-3');
      }
      const year = await get(`${url}?${ranges[5]}&size=1`, tokens[role]!);
      expect(year.total).toBe(23);
    });

    it('counts, for a physician vouched for by two clinics, the protocols of both', async () => {
      const url = '/api/delivery/persistence/protocols/physician';
      for (const range of ranges) {
        const all = await get(`${url}?${range}&size=100`, tokens.bothClinics!);
        const onePage = await get(`${url}?${range}&size=1`, tokens.bothClinics!);
        expect(onePage.total, range).toBe(all.items.length);
      }
      const year = await get(`${url}?${ranges[5]}&size=100`, tokens.bothClinics!);
      expect(year.total).toBe(29);
      expect(year.items.filter((i) => i.number.startsWith('O-'))).toHaveLength(6);
      // Dr Luz, the same license vouched for by the first clinic only, still counts 23 there.
      expect((await get(`${url}?${ranges[5]}&size=1`, tokens.physician!)).total).toBe(23);
    });
  });
});
