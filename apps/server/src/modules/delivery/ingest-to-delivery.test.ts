import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { createInstitution } from '../institutions/institution.service.js';
import { makeUser, pdfBytes } from './test-factories.js';

/** The way in (ingest) and the way out (delivery) together, as an institution's system uses them. */
describe('from ingest to delivery', () => {
  let portal: TestPortal;
  let apiKey: string;
  let institutionId: string;

  beforeAll(async () => {
    portal = await startTestPortal();
    ({
      apiKey,
      institution: { id: institutionId },
    } = await createInstitution(portal.ctx, { code: 'LABX', name: 'Lab X', viewType: 1 }));
  });
  afterAll(async () => portal?.destroy());

  it('serves what an institution pushed to the requesting physician and to the protocol guest', async () => {
    const put = await portal.app.inject({
      method: 'PUT',
      url: '/api/v2/delivery/ingest/protocols/778899',
      headers: { 'x-api-key': apiKey },
      payload: {
        password: 'secret-1',
        requestedAt: '2026-11-19T10:00:00-03:00',
        tag: 'Parceiro A',
        patient: {
          patientId: 'X1',
          name: 'José Conceição',
          preferredName: 'Zeca',
          motherName: 'Maria da Conceição',
          cpf: '529.982.247-25',
          birthDate: '1975-05-06',
          gender: 'M',
        },
        exams: [
          {
            examKey: 'GLI',
            description: 'Glicemia',
            type: 'LAB',
            modalityCode: 'LAB',
            modalityName: 'Laboratório',
            requester: { identifier: 'R1', name: 'Dra. Ana', crm: '55501', uf: 'sp' },
            status: 'L',
            performedAt: '2026-11-19T11:00:00-03:00',
            analytes: [{ code: 'GLU', name: 'Glicose', unit: 'mg/dL', value: 92, referenceMin: 70, referenceMax: 99 }],
          },
        ],
      },
    });
    expect(put.statusCode).toBe(201);
    const requestId = put.json().data.requestId as string;
    const upload = await portal.app.inject({
      method: 'PUT',
      url: '/api/v2/delivery/ingest/protocols/778899/exams/GLI/resources/LAUDO-1?type=REPORT',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/pdf' },
      payload: await pdfBytes('glicemia', 2),
    });
    expect(upload.statusCode).toBe(201);

    const doctor = await makeUser(portal.ctx, {
      type: 'PHYSICIAN',
      crm: '55501',
      uf: 'SP',
      vouchedBy: [institutionId],
    });
    const physician = await portal.sessionFor({ role: 'PHYSICIAN', userId: doctor.id, username: doctor.email });
    const list = await portal.app.inject({
      url: '/api/delivery/persistence/protocols/physician?search=conceicao',
      headers: bearer(physician),
    });
    expect(list.json().data.items).toEqual([
      expect.objectContaining({ requestId, number: '778899', requestedAtFormated: '19/11/2026', hasTag: true }),
    ]);
    const exams = await portal.app.inject({
      url: `/api/v2/delivery/dashboard/protocols/exams?request=${requestId}`,
      headers: bearer(physician),
    });
    const [exam] = exams.json().data;
    expect(exam).toMatchObject({ examKey: 'GLI', statusCode: 'L', requesterName: 'Dra. Ana' });
    expect(exam.identifierReport).not.toBe('LAUDO-1');

    const guest = await portal.sessionFor({ role: 'GUEST', username: '778899', protocolIds: [requestId] });
    const report = await portal.app.inject({
      url: `/api/v2/delivery/resource/report?resourceId=${exam.identifierReport}`,
      headers: bearer(guest),
    });
    expect((await PDFDocument.load(report.rawPayload)).getPageCount()).toBe(2);
    // Spec 3: the trace of that view names the patient as the institution sent him.
    const [trace] = await portal.ctx.db
      .selectFrom('auditEvents')
      .select(['patients'])
      .where('event', '=', 'VIEW_REPORT')
      .where('protocolId', '=', requestId)
      .execute();
    expect(JSON.parse(trace?.patients ?? 'null')).toEqual([
      {
        id: 'X1',
        name: 'José Conceição',
        preferredName: 'Zeca',
        motherName: 'Maria da Conceição',
        document: '52998224725',
        birthDate: '1975-05-06',
      },
    ]);
    const zip = await portal.app.inject({
      method: 'POST',
      url: '/api/v2/delivery/resource/batchPrinting',
      headers: bearer(physician),
      payload: { requestIds: [requestId], isCompressed: true },
    });
    expect(zip.statusCode).toBe(200);
    // The CRC kept at ingest is the one the zip carries: unzip would refuse a wrong one.
    const stored = await portal.ctx.db.selectFrom('resources').select(['crc32', 'size']).executeTakeFirstOrThrow();
    expect(zip.rawPayload.readUInt32LE(14)).toBe(stored.crc32);
    expect(zip.rawPayload.readUInt32LE(22)).toBe(stored.size);
  });
});
