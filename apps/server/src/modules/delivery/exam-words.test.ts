import { zProtocolPage } from '@portal/shared/schemas/delivery';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { makeInstitution, makeProtocol, makeResource, makeUser, pdfBytes } from './test-factories.js';

/** A list row names its exams and where each stands, so the screen can say it in words. */
describe('exams named in list rows', () => {
  let portal: TestPortal;
  let token: string;
  let protocolId: string;
  let examIds: string[];
  let reportId: string;
  const list = async () => {
    const res = await portal.app.inject({
      method: 'GET',
      url: '/api/v2/delivery/dashboard/protocols?page=1&size=10',
      headers: bearer(token),
    });
    expect(res.statusCode).toBe(200);
    expect(zProtocolPage.safeParse(res.json()).success).toBe(true);
    return res.json().data.items[0];
  };

  beforeAll(async () => {
    portal = await startTestPortal();
    const institution = await makeInstitution(portal.ctx, {});
    const patient = await makeUser(portal.ctx, { type: 'PATIENT' });
    token = await portal.sessionFor({ role: 'PATIENT', userId: patient.id, username: patient.email });
    const made = await makeProtocol(portal.ctx, {
      institutionId: institution.id,
      patientUserId: patient.id,
      exams: [
        // A name holding the characters a list's own separators and SQL might trip on.
        { description: "Hemograma | completo; 'jejum' \u00e9 \u00e7", status: 'RELEASED' },
        { description: 'Ultrassom de abdome', status: 'RELEASED', rectificationStatus: 'PENDING' },
        { description: 'Cultura de urina', status: 'PARTIAL_REPORT' },
        { description: 'Glicemia', status: 'IN_PROGRESS' },
        { description: 'Colesterol', status: 'SOMETHING_ELSE' },
      ],
    });
    protocolId = made.protocol.id;
    examIds = made.exams.map((e) => e.id);
    reportId = (await makeResource(portal.ctx, { examId: examIds[0]!, type: 'REPORT', bytes: await pdfBytes('A') })).id;
  });
  afterAll(async () => portal?.destroy());

  it('answers each exam’s name, display code, rectification and read mark, in order', async () => {
    const item = await list();
    expect(item.examList).toEqual([
      {
        id: examIds[0],
        description: "Hemograma | completo; 'jejum' \u00e9 \u00e7",
        statusCode: 'L',
        rectificationStatus: null,
        examRead: false,
      },
      {
        id: examIds[1],
        description: 'Ultrassom de abdome',
        statusCode: 'L',
        rectificationStatus: 'PENDING',
        examRead: false,
      },
      { id: examIds[2], description: 'Cultura de urina', statusCode: 'LP', rectificationStatus: null, examRead: false },
      { id: examIds[3], description: 'Glicemia', statusCode: 'A', rectificationStatus: null, examRead: false },
      { id: examIds[4], description: 'Colesterol', statusCode: 'NI', rectificationStatus: null, examRead: false },
    ]);
  });

  it('marks an exam read once its report was opened, in the list and in the detail alike', async () => {
    const report = await portal.app.inject({
      method: 'GET',
      url: `/api/v2/delivery/resource/report?resourceId=${reportId}`,
      headers: bearer(token),
    });
    expect(report.statusCode).toBe(200);
    const item = await list();
    expect(item.examList.map((e: { examRead: boolean }) => e.examRead)).toEqual([true, false, false, false, false]);
    const detail = await portal.app.inject({
      method: 'GET',
      url: `/api/delivery/persistence/dashboard/protocol/byId?id=${protocolId}`,
      headers: bearer(token),
    });
    expect(detail.json().data.examList).toEqual(item.examList);
  });
});
