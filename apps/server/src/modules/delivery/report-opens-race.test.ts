import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, TEST_DIALECT, type TestPortal } from '../../test/helpers.js';
import { makeInstitution, makeProtocol, makeResource, makeUser, pdfBytes } from './test-factories.js';

const IN_FLIGHT = 36;
const PATIENTS = 4;

interface Opener {
  userId: string;
  token: string;
  protocolId: string;
  examId: string;
  resourceId: string;
  stored: Buffer;
}

/**
 * A report opened many times at once (a double click, tabs restored, a retrying app): each opening
 * gets the file, the exam is marked read once for its reader, and every opening is traced. Read
 * marks and traces of calls in flight together are written in one grouped commit.
 */
describe(`report openings in flight together (${TEST_DIALECT})`, () => {
  let portal: TestPortal;
  let institutionId = '';

  /** A patient with a protocol of two exams, each with its own report. */
  const patientWithReports = async (name: string): Promise<Opener & { otherExamId: string }> => {
    const patient = await makeUser(portal.ctx, { type: 'PATIENT', name });
    const { protocol, exams } = await makeProtocol(portal.ctx, {
      institutionId,
      patientUserId: patient.id,
      patientName: name,
      exams: [{ description: 'Hemograma' }, { description: 'Glicemia' }],
    });
    const report = await makeResource(portal.ctx, {
      examId: exams[0]!.id,
      type: 'REPORT',
      bytes: await pdfBytes(`Laudo de ${name}`, 2),
    });
    await makeResource(portal.ctx, { examId: exams[1]!.id, type: 'REPORT', bytes: await pdfBytes(`Outro ${name}`) });
    return {
      userId: patient.id,
      token: await portal.sessionFor({ role: 'PATIENT', userId: patient.id, username: patient.email }),
      protocolId: protocol.id,
      examId: exams[0]!.id,
      otherExamId: exams[1]!.id,
      resourceId: report.id,
      stored: await portal.ctx.storage.read(report.storageKey),
    };
  };

  const open = (o: Opener) =>
    portal.app.inject({
      method: 'GET',
      url: `/api/v2/delivery/resource/report?resourceId=${o.resourceId}`,
      headers: bearer(o.token),
    });

  /** The exams of the patient's list (the patient app's dashboard), by id, as read or not. */
  const listed = async (o: Opener) => {
    const res = await portal.app.inject({
      method: 'GET',
      url: '/api/v2/delivery/dashboard/protocols',
      headers: bearer(o.token),
    });
    expect(res.statusCode).toBe(200);
    const items = res.json().data.items as Array<{
      requestId: string;
      examList: Array<{ id: string; examRead: boolean }>;
    }>;
    return items.map((i) => ({
      protocolId: i.requestId,
      exams: Object.fromEntries(i.examList.map((e) => [e.id, e.examRead])),
    }));
  };

  const readMarks = (examIds: string[]) =>
    portal.ctx.db
      .selectFrom('examReads')
      .select(['viewerKey', 'examId', 'readAt'])
      .where('examId', 'in', examIds)
      .execute();

  const viewTraces = (protocolIds: string[]) =>
    portal.ctx.db
      .selectFrom('auditEvents')
      .select(['requestId', 'systemUserId', 'protocolId', 'resource'])
      .where('event', '=', 'VIEW_REPORT')
      .where('protocolId', 'in', protocolIds)
      .execute();

  /** Error lines, and any unique-key refusal, logged so far. */
  const loggedErrors = () =>
    portal
      .logs()
      .split('\n')
      .filter((line) => /"level":(50|60)|duplicate key|UNIQUE constraint/i.test(line));

  beforeAll(async () => {
    portal = await startTestPortal();
    institutionId = (await makeInstitution(portal.ctx, { name: 'Clinica Corrida' })).id;
  });
  afterAll(async () => portal?.destroy());

  it(`gives the report to all ${IN_FLIGHT} openings at once, marks it read once and traces each`, async () => {
    const ana = await patientWithReports('Ana Pereira');
    // Listed once before, so a list kept in memory would have to notice the new mark.
    expect(await listed(ana)).toEqual([
      { protocolId: ana.protocolId, exams: { [ana.examId]: false, [ana.otherExamId]: false } },
    ]);

    const answers = await Promise.all(Array.from({ length: IN_FLIGHT }, () => open(ana)));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(IN_FLIGHT).fill(200));
    for (const a of answers) expect(a.rawPayload.equals(ana.stored)).toBe(true);

    const marks = await readMarks([ana.examId, ana.otherExamId]);
    expect(marks.map((m) => [m.viewerKey, m.examId])).toEqual([[ana.userId, ana.examId]]);
    expect(await listed(ana)).toEqual([
      { protocolId: ana.protocolId, exams: { [ana.examId]: true, [ana.otherExamId]: false } },
    ]);

    const traces = await viewTraces([ana.protocolId]);
    expect(traces).toHaveLength(IN_FLIGHT);
    expect(new Set(traces.map((t) => t.requestId))).toEqual(new Set(answers.map((a) => a.headers['x-request-id'])));
    for (const t of traces) {
      expect(t.systemUserId).toBe(ana.userId);
      expect(JSON.parse(t.resource ?? '{}').resources.map((r: { id: string }) => r.id)).toEqual([ana.resourceId]);
    }

    // Opened again, all at once, later: still one mark, with the first reading's time.
    portal.clock.advance(5 * 60_000);
    const again = await Promise.all(Array.from({ length: IN_FLIGHT }, () => open(ana)));
    expect(again.map((a) => a.statusCode)).toEqual(Array(IN_FLIGHT).fill(200));
    for (const a of again) expect(a.rawPayload.equals(ana.stored)).toBe(true);
    expect(await readMarks([ana.examId, ana.otherExamId])).toEqual(marks);
    expect(await viewTraces([ana.protocolId])).toHaveLength(2 * IN_FLIGHT);

    expect(loggedErrors()).toEqual([]);
  });

  it(`keeps each patient's read mark and trail apart when ${PATIENTS} patients open their reports at once`, async () => {
    const patients: Array<Opener & { otherExamId: string }> = [];
    for (let i = 0; i < PATIENTS; i++) patients.push(await patientWithReports(`Paciente ${i + 1}`));
    for (const p of patients) expect((await listed(p))[0]!.exams[p.examId]).toBe(false);

    // Interleaved: patient 1, 2, 3, 4, 1, 2, ... so every group of writes holds several readers.
    const calls = Array.from({ length: IN_FLIGHT }, (_, i) => patients[i % PATIENTS]!);
    const answers = await Promise.all(calls.map((p) => open(p)));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(IN_FLIGHT).fill(200));
    answers.forEach((a, i) => expect(a.rawPayload.equals(calls[i]!.stored)).toBe(true));

    const examIds = patients.flatMap((p) => [p.examId, p.otherExamId]);
    const marks = await readMarks(examIds);
    expect(new Set(marks.map((m) => `${m.viewerKey}|${m.examId}`))).toEqual(
      new Set(patients.map((p) => `${p.userId}|${p.examId}`)),
    );
    expect(marks).toHaveLength(PATIENTS);

    const traces = await viewTraces(patients.map((p) => p.protocolId));
    expect(traces).toHaveLength(IN_FLIGHT);
    for (const p of patients) {
      // Her own list shows her own report read, and only her protocol.
      expect(await listed(p)).toEqual([
        { protocolId: p.protocolId, exams: { [p.examId]: true, [p.otherExamId]: false } },
      ]);
      const own = traces.filter((t) => t.systemUserId === p.userId);
      const ownRequests = answers.filter((_, i) => calls[i] === p).map((a) => a.headers['x-request-id']);
      expect(own).toHaveLength(IN_FLIGHT / PATIENTS);
      expect(new Set(own.map((t) => t.requestId))).toEqual(new Set(ownRequests));
      for (const t of own) {
        expect(t.protocolId).toBe(p.protocolId);
        expect(JSON.parse(t.resource ?? '{}').resources.map((r: { id: string }) => r.id)).toEqual([p.resourceId]);
      }
    }

    expect(loggedErrors()).toEqual([]);
  });
});
