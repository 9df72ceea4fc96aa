import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { makeInstitution, makeProtocol, makeResource, makeUser, pdfBytes } from './test-factories.js';

/**
 * Spec 3: an exam's readable files are its REPORT, a REPORT_PHYSICIAN beside it and its ANALYSIS
 * files; each is named in the exam's resources and opens through resource/report, which marks the
 * exam read. A pending rectification withholds both reports but not the analyses.
 */
describe('every readable file of an exam opens', () => {
  let portal: TestPortal;
  let token: string;
  let other: string;
  let requestId: string;
  const stored = new Map<string, Buffer>();

  beforeAll(async () => {
    portal = await startTestPortal();
    const ctx = portal.ctx;
    const institution = await makeInstitution(ctx);
    const owner = await makeUser(ctx, { type: 'PATIENT' });
    const stranger = await makeUser(ctx, { type: 'PATIENT' });
    const { protocol, exams } = await makeProtocol(ctx, {
      institutionId: institution.id,
      patientUserId: owner.id,
      exams: [{ description: 'Tomografia' }, { description: 'Biópsia', rectificationStatus: 'PENDING' }],
    });
    requestId = protocol.id;
    for (const [i, exam] of exams.entries()) {
      for (const type of ['REPORT', 'REPORT_PHYSICIAN', 'ANALYSIS'] as const) {
        const bytes = await pdfBytes(`${type} ${i}`);
        stored.set((await makeResource(ctx, { examId: exam.id, type, bytes })).id, bytes);
      }
    }
    token = await portal.sessionFor({ role: 'PATIENT', userId: owner.id, username: owner.email });
    other = await portal.sessionFor({ role: 'PATIENT', userId: stranger.id, username: stranger.email });
  });
  afterAll(async () => portal.close());

  const get = (url: string, as = token) => portal.app.inject({ method: 'GET', url, headers: bearer(as) });
  const examsNow = async () =>
    (await get(`/api/v2/delivery/dashboard/protocols/exams?request=${requestId}`)).json().data as Array<{
      description: string;
      examRead: boolean;
      resources: Array<{ type: string; identifier: string }>;
    }>;

  it('names and serves the report, the physician report and the analysis; the analysis also while rectifying', async () => {
    const [tomography, biopsy] = await examsNow();
    expect(tomography!.resources.map((r) => r.type).sort()).toEqual(['ANALYSIS', 'REPORT', 'REPORT_PHYSICIAN']);
    expect(biopsy!.resources.map((r) => r.type)).toEqual(['ANALYSIS']);
    for (const resource of tomography!.resources) {
      // Someone else's file is "not found", like a missing one.
      expect((await get(`/api/v2/delivery/resource/report?resourceId=${resource.identifier}`, other)).statusCode).toBe(
        404,
      );
      const res = await get(`/api/v2/delivery/resource/report?resourceId=${resource.identifier}`);
      expect(res.statusCode, resource.type).toBe(200);
      expect(res.headers['content-type']).toBe('application/pdf');
      expect(Buffer.compare(res.rawPayload, stored.get(resource.identifier)!)).toBe(0);
    }
    const analysis = await get(`/api/v2/delivery/resource/report?resourceId=${biopsy!.resources[0]!.identifier}`);
    expect(analysis.statusCode).toBe(200);
    expect((await examsNow()).map((e) => e.examRead)).toEqual([true, true]);
  });
});
