import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { makeProtocol, makeWorld } from './test-factories.js';

type World = Awaited<ReturnType<typeof makeWorld>>;

describe('results history', () => {
  let portal: TestPortal;
  let w: World;
  const get = (url: string, token: string | null) =>
    portal.app.inject({ method: 'GET', url, headers: token ? bearer(token) : {} });
  const range = 'initialDate=01/06/2026&finalDate=30/11/2026';

  beforeAll(async () => {
    portal = await startTestPortal();
    w = await makeWorld(portal.ctx, (i) => portal.sessionFor(i));
    await makeProtocol(portal.ctx, {
      institutionId: w.institution.id,
      patientUserId: w.users.owner.id,
      requestedAt: '2026-09-01T12:00:00.000Z',
      exams: [
        {
          description: 'Hemograma completo',
          analytes: [
            { code: 'HB', name: 'Hemoglobina', unit: 'g/dL', value: 12.1, min: 12, max: 16 },
            { code: 'OBS', name: 'Observacao', value: 'amostra hemolisada' },
          ],
        },
      ],
    });
    // Another patient's results never show up in the owner's history, nor the other way round.
    await makeProtocol(portal.ctx, {
      institutionId: w.institution.id,
      patientUserId: w.users.otherPatient.id,
      exams: [{ description: 'Hemograma completo', analytes: [{ code: 'HB', name: 'Hemoglobina', value: 9 }] }],
    });
  });
  afterAll(async () => portal?.destroy());

  it('is a patient feature over the patient’s own protocols', async () => {
    for (const caller of ['physician', 'external', 'guestA', 'share', 'admin'] as const) {
      expect((await get(`/api/delivery/examtypes/range?${range}`, w.tokens[caller])).statusCode, caller).toBe(403);
    }
    expect((await get(`/api/delivery/examtypes/range?${range}`, null)).statusCode).toBe(401);
  });

  it('answers exam types, attributes and the table of contract 8', async () => {
    const types = (await get(`/api/delivery/examtypes/range?${range}`, w.tokens.owner)).json().data;
    expect(types).toEqual([{ id: expect.any(String), name: 'Hemograma completo' }]);
    const typeId = types[0].id as string;
    const attributes = await get(
      `/api/delivery/history/attributes?examTypeInstitutionId=${typeId}&${range}`,
      w.tokens.owner,
    );
    expect(attributes.json().data).toEqual([
      { id: 'HB', name: 'Hemoglobina' },
      { id: 'OBS', name: 'Observacao' },
    ]);
    const history = await get(
      `/api/delivery/history?attributeId=HB&examTypeInstitutionId=${typeId}&${range}`,
      w.tokens.owner,
    );
    expect(history.json().data).toEqual({
      columns: ['Hemograma completo', '01/09/2026', '18/11/2026'],
      rows: [
        ['Hemoglobina (g/dL)', '12.1', '13.5'],
        ['Referência', '12 a 16', '12 a 16'],
      ],
      series: [
        {
          date: '2026-09-01T12:00:00.000Z',
          value: 12.1,
          unit: 'g/dL',
          referenceMin: 12,
          referenceMax: 16,
          abnormalFlag: null,
        },
        {
          date: '2026-11-18T13:00:00.000Z',
          value: 13.5,
          unit: 'g/dL',
          referenceMin: 12,
          referenceMax: 16,
          abnormalFlag: null,
        },
      ],
      // The printed history names the patient as the latest protocol gives him, and the institution.
      patient: { name: 'Ana Owner', birthDate: '1980-01-02' },
      institution: { id: w.institution.id, name: 'Clinica Alfa' },
    });
    const text = await get(
      `/api/delivery/history?attributeId=OBS&examTypeInstitutionId=${typeId}&${range}`,
      w.tokens.owner,
    );
    expect(text.json().data.series[0].value).toBe('amostra hemolisada');
    const audit = await portal.ctx.db
      .selectFrom('auditEvents')
      .selectAll()
      .where('event', '=', 'HISTORY_VIEWED')
      .where('systemUserId', '=', w.users.owner.id)
      .execute();
    expect(audit).toHaveLength(2);

    const other = await get(
      `/api/delivery/history?attributeId=HB&examTypeInstitutionId=${typeId}&${range}`,
      w.tokens.otherPatient,
    );
    expect(other.json().data.columns).toEqual(['Hemograma completo', '18/11/2026']);
    expect(other.json().data.rows[0]).toEqual(['Hemoglobina', '9']);
    const narrow = await get(
      `/api/delivery/examtypes/range?initialDate=01/01/2026&finalDate=31/01/2026`,
      w.tokens.owner,
    );
    expect(narrow.json().data).toEqual([]);
  });
});
