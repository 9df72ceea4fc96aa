import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { makeInstitution, makeProtocol, makeTag, makeUser } from './test-factories.js';

const RANGE = 'initialDate=01/11/2026&finalDate=20/11/2026';

/**
 * Spec 2.7: the physician's advanced filters (date, protocol, patient, institution) run on the
 * server, so the total and the pages count only what matches; his "external exams" variant lists
 * what his institution groups bring him, apart from the protocols his license opens.
 */
describe('physician lists: advanced filters and external exams', () => {
  let portal: TestPortal;
  let doctor: string;
  let partner: string;
  const DOCTOR = { crm: '5511', uf: 'SP' };

  beforeAll(async () => {
    portal = await startTestPortal();
    const ctx = portal.ctx;
    const lucas = await makeInstitution(ctx, { name: 'Hospital São Lucas' });
    const artemis = await makeInstitution(ctx, { name: 'Clínica Ártemis' });
    const physician = await makeUser(ctx, { type: 'PHYSICIAN', ...DOCTOR, vouchedBy: [lucas.id, artemis.id] });
    const external = await makeUser(ctx, { type: 'EXTERNAL' });
    const tag = await makeTag(ctx, lucas.id, [physician.id, external.id], 'Parceiros');
    const mine = { requester: DOCTOR };
    // Twelve protocols of Maria Lopes at São Lucas, one a day, requested by the physician.
    for (let day = 1; day <= 12; day++) {
      await makeProtocol(ctx, {
        institutionId: lucas.id,
        number: `ML-${String(day).padStart(2, '0')}`,
        patientName: 'Maria Lopes',
        requestedAt: `2026-11-${String(day).padStart(2, '0')}T15:00:00.000Z`,
        exams: [{ description: 'Hemograma', ...mine }],
      });
    }
    await makeProtocol(ctx, {
      institutionId: artemis.id,
      number: 'ART-77',
      patientName: 'João Ávila',
      requestedAt: '2026-11-14T15:00:00.000Z',
      exams: [{ description: 'Ultrassom', ...mine }],
    });
    // Brought by the group only: another physician asked for these.
    for (const [number, day] of [
      ['TAG-1', '13'],
      ['TAG-2', '15'],
    ] as const) {
      await makeProtocol(ctx, {
        institutionId: lucas.id,
        number,
        tagId: tag.id,
        patientName: 'Paula Grupo',
        requestedAt: `2026-11-${day}T15:00:00.000Z`,
        exams: [{ description: 'Raio X', requester: { crm: '999', uf: 'RJ' } }],
      });
    }
    doctor = await portal.sessionFor({ role: 'PHYSICIAN', userId: physician.id, username: physician.email });
    partner = await portal.sessionFor({ role: 'EXTERNAL', userId: external.id, username: external.email });
  });
  afterAll(async () => portal.close());

  const page = async (url: string, token: string) => {
    const res = await portal.app.inject({ method: 'GET', url, headers: bearer(token) });
    expect(res.statusCode, url).toBe(200);
    const data = res.json().data as { items: Array<{ number: string }>; total: number };
    return { numbers: data.items.map((p) => p.number), total: data.total };
  };
  const physicianList = (query: string) =>
    page(`/api/delivery/persistence/protocols/physician?${RANGE}&${query}`, doctor);

  it('counts and pages only the protocols that match the patient filter', async () => {
    expect((await physicianList('')).total).toBe(15);
    const first = await physicianList('patient=MARIA lopes&page=1&size=10');
    expect(first.total).toBe(12);
    expect(first.numbers).toHaveLength(10);
    expect(first.numbers[0]).toBe('ML-12');
    const second = await physicianList('patient=maria&page=2&size=10');
    expect(second).toEqual({ numbers: ['ML-02', 'ML-01'], total: 12 });
  });

  it('filters by protocol number, patient and institution with accents and case aside', async () => {
    expect(await physicianList('protocol=ml-0')).toEqual({
      numbers: ['ML-09', 'ML-08', 'ML-07', 'ML-06', 'ML-05', 'ML-04', 'ML-03', 'ML-02', 'ML-01'],
      total: 9,
    });
    expect(await physicianList('patient=joao avila')).toEqual({ numbers: ['ART-77'], total: 1 });
    expect(await physicianList('institution=artemis')).toEqual({ numbers: ['ART-77'], total: 1 });
    expect(await physicianList('institution=S%C3%83O LUCAS&patient=paula')).toEqual({
      numbers: ['TAG-2', 'TAG-1'],
      total: 2,
    });
    // Filters combine with the day of the advanced date filter (a one-day range).
    const day = (d: string, q: string) =>
      page(`/api/delivery/persistence/protocols/physician?initialDate=${d}&finalDate=${d}&${q}`, doctor);
    expect(await day('14/11/2026', 'institution=lucas')).toEqual({ numbers: [], total: 0 });
    expect(await day('14/11/2026', 'institution=artemis')).toEqual({ numbers: ['ART-77'], total: 1 });
    expect(await physicianList('institution=Nenhuma Clinica')).toEqual({ numbers: [], total: 0 });
    // Wildcards typed by a person are plain text.
    expect(await physicianList('protocol=%25')).toEqual({ numbers: [], total: 0 });
  });

  it("lists a physician's external exams by his groups alone, apart from his own list", async () => {
    const byTags = await page(`/api/v2/delivery/protocols/listedByTags?${RANGE}&size=10`, doctor);
    expect(byTags).toEqual({ numbers: ['TAG-2', 'TAG-1'], total: 2 });
    // The external user of the same group sees the same, and the advanced filters apply there too.
    expect(await page(`/api/v2/delivery/protocols/listedByTags?${RANGE}`, partner)).toEqual(byTags);
    expect(await page(`/api/v2/delivery/protocols/listedByTags?${RANGE}&protocol=tag-1`, doctor)).toEqual({
      numbers: ['TAG-1'],
      total: 1,
    });
  });
});
