import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createAccount } from '../modules/auth/auth.test-support.js';
import { makeUser } from '../modules/delivery/test-factories.js';
import { bearer } from '../test/helpers.js';
import {
  type ContractWorld,
  expectError,
  guestToken,
  ingestBody,
  ingestProtocol,
  login,
  startContractWorld,
} from '../test/contract-world.js';

/* Contract sections 5, 6, 7 and the delivery points of section 8, through the public calls. */

let world: ContractWorld;
const app = () => world.portal.app;
const apiKey = () => ({ 'x-api-key': world.institution.apiKey });

async function pdf(text: string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.addPage([200, 200]).drawText(text, { x: 20, y: 100 });
  return Buffer.from(await doc.save());
}

const exam = (key: string, extra: Record<string, unknown> = {}) => ({
  examKey: key,
  description: `Exame ${key}`,
  type: 'LAB',
  modalityCode: 'LAB',
  modalityName: 'Laboratorio',
  status: 'RELEASED',
  performedAt: '2026-11-18T11:00:00-03:00',
  ...extra,
});

async function upload(number: string, examKey: string, identifier: string, type: string, body: Buffer) {
  return app().inject({
    method: 'PUT',
    url: `/api/v2/delivery/ingest/protocols/${number}/exams/${examKey}/resources/${identifier}?type=${type}`,
    headers: { ...apiKey(), 'content-type': 'application/pdf' },
    payload: body,
  });
}

interface ExamAnswer {
  examKey: string;
  status: string | null;
  statusCode: string;
  isEnabled: boolean;
  resources: Array<{ identifier: string; type: string }>;
}

async function examsOf(token: string): Promise<ExamAnswer[]> {
  const list = await app().inject({
    method: 'GET',
    url: '/api/v2/delivery/dashboard/protocols',
    headers: bearer(token),
  });
  const requestId = list.json<{ data: { items: Array<{ requestId: string }> } }>().data.items[0]!.requestId;
  const res = await app().inject({
    method: 'GET',
    url: `/api/v2/delivery/dashboard/protocols/exams?request=${requestId}`,
    headers: bearer(token),
  });
  expect(res.statusCode).toBe(200);
  const data = res.json<{ data: ExamAnswer[] | { exams: ExamAnswer[] } }>().data;
  return Array.isArray(data) ? data : data.exams;
}

beforeAll(async () => {
  world = await startContractWorld({ env: { INGEST_MAX_BYTES: String(2 * 1024 * 1024) } });
});
afterAll(async () => world.portal.destroy());

describe('ingest (contract 5)', () => {
  test('PUT creates (201) then updates (200) with {requestId, number}; a wrong key is 401', async () => {
    const first = await ingestProtocol(world, '700001');
    expect(first.statusCode).toBe(201);
    const created = first.json<{ data: { requestId: string; number: string } }>().data;
    expect(created.number).toBe('700001');
    const second = await ingestProtocol(world, '700001');
    expect(second.statusCode).toBe(200);
    expect(second.json()).toEqual({ data: created });
    const stranger = await app().inject({
      method: 'PUT',
      url: '/api/v2/delivery/ingest/protocols/700001',
      headers: { 'x-api-key': 'not-a-key' },
      payload: ingestBody(),
    });
    expectError(stranger, 401);
  });

  test('statusCode beside status; unknown status kept and shown as NI; an exam no longer sent is disabled', async () => {
    const body = { exams: [exam('A', { status: 'RELEASED' }), exam('B', { status: 'WHATEVER' }), exam('C')] };
    expect((await ingestProtocol(world, '700002', body)).statusCode).toBe(201);
    const token = await guestToken(world, '700002');
    const exams = await examsOf(token);
    expect(exams.find((e) => e.examKey === 'A')).toMatchObject({ status: 'RELEASED', statusCode: 'L' });
    expect(exams.find((e) => e.examKey === 'B')).toMatchObject({ status: 'WHATEVER', statusCode: 'NI' });
    expect((await ingestProtocol(world, '700002', { exams: [exam('A'), exam('B')] })).statusCode).toBe(200);
    const row = await world.portal.ctx.db.selectFrom('exams').selectAll().where('examKey', '=', 'C').executeTakeFirst();
    expect(row).toBeDefined();
    const after = await examsOf(await guestToken(world, '700002'));
    const c = after.find((e) => e.examKey === 'C');
    if (c) expect(c.isEnabled).toBe(false);
  });

  test('resource upload 201 new, 200 replaced; identifiers in answers are the server’s; download is an attachment', async () => {
    expect((await ingestProtocol(world, '700003', { exams: [exam('R1')] })).statusCode).toBe(201);
    expect((await upload('700003', 'R1', 'LAUDO-1', 'REPORT', await pdf('v1'))).statusCode).toBe(201);
    expect((await upload('700003', 'R1', 'LAUDO-1', 'REPORT', await pdf('v2'))).statusCode).toBe(200);
    const signed = await app().inject({
      method: 'PUT',
      url: '/api/v2/delivery/ingest/protocols/700003/exams/R1/resources/LAUDO-1/signed?type=REPORT',
      headers: { ...apiKey(), 'content-type': 'application/pkcs7-signature' },
      payload: Buffer.from('3082000130', 'hex'),
    });
    expect(signed.statusCode).toBeLessThan(300);
    const token = await guestToken(world, '700003');
    const [r1] = await examsOf(token);
    const resource = r1!.resources.find((r) => r.type === 'REPORT')!;
    expect(resource.identifier).not.toBe('LAUDO-1');
    const report = await app().inject({
      method: 'GET',
      url: `/api/v2/delivery/resource/report?resourceId=${resource.identifier}`,
      headers: bearer(token),
    });
    expect(report.statusCode).toBe(200);
    expect(report.headers['content-type']).toContain('application/pdf');
    expect(report.headers['content-disposition']).toMatch(/^attachment; filename="[^"]+"/);
    expect(report.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    expect(report.headers['cache-control']).toBe('no-store');
    const signature = await app().inject({
      method: 'GET',
      url: `/api/v2/delivery/resource/signature?resourceId=${resource.identifier}`,
      headers: bearer(token),
    });
    expect(signature.statusCode).toBe(200);
    expect(signature.headers['content-disposition']).toMatch(/^attachment; filename="[^"]+"/);
  });

  test('uploads: the four file types, signed PAdES as PDF; another type 415; beyond the ingest limit 413', async () => {
    expect((await ingestProtocol(world, '700006', { exams: [exam('F1')] })).statusCode).toBe(201);
    const put = (identifier: string, type: string, contentType: string, body: Buffer, signed = false) =>
      app().inject({
        method: 'PUT',
        url: `/api/v2/delivery/ingest/protocols/700006/exams/F1/resources/${identifier}${signed ? '/signed' : ''}?type=${type}`,
        headers: { ...apiKey(), 'content-type': contentType },
        payload: body,
      });
    const png = Buffer.from(
      '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5b7c6e40000000049454e44ae426082',
      'hex',
    );
    expect((await put('IMG-1', 'IMAGE', 'image/png', png)).statusCode).toBe(201);
    expect((await put('DOC-1', 'ANALYSIS', 'application/pdf', await pdf('analise'))).statusCode).toBe(201);
    expect((await put('DOC-1', 'ANALYSIS', 'application/pdf', await pdf('assinado'), true)).statusCode).toBeLessThan(
      300,
    );
    expectError(await put('TXT-1', 'REPORT', 'text/plain', Buffer.from('hello')), 415);
    // Files are held to the ingest limit, not to the 1 MiB of JSON bodies.
    const middle = Buffer.concat([await pdf('media'), Buffer.alloc(1536 * 1024, 0x20)]);
    expect((await put('MID-1', 'REPORT', 'application/pdf', middle)).statusCode).toBe(201);
    const big = Buffer.concat([await pdf('grande'), Buffer.alloc(3 * 1024 * 1024, 0x20)]);
    expectError(await put('BIG-1', 'REPORT', 'application/pdf', big), 413);
  });

  test('a report awaiting rectification is 409', async () => {
    expect(
      (await ingestProtocol(world, '700004', { exams: [exam('X', { rectificationStatus: 'PENDING' })] })).statusCode,
    ).toBe(201);
    expect((await upload('700004', 'X', 'LAUDO-X', 'REPORT', await pdf('x'))).statusCode).toBe(201);
    const token = await guestToken(world, '700004');
    const [x] = await examsOf(token);
    // The list hides the report of a pending rectification, so the id comes from the store.
    expect(x!.resources.filter((r) => r.type === 'REPORT')).toEqual([]);
    const stored = await world.portal.ctx.db
      .selectFrom('resources')
      .select(['id'])
      .where('identifier', '=', 'LAUDO-X')
      .executeTakeFirstOrThrow();
    const res = await app().inject({
      method: 'GET',
      url: `/api/v2/delivery/resource/report?resourceId=${stored.id}`,
      headers: bearer(token),
    });
    expectError(res, 409, 'The report is awaiting rectification!');
  });

  test('DELETE disables the protocol and erases nothing', async () => {
    expect((await ingestProtocol(world, '700005')).statusCode).toBe(201);
    const del = await app().inject({
      method: 'DELETE',
      url: '/api/v2/delivery/ingest/protocols/700005',
      headers: apiKey(),
    });
    expect(del.statusCode).toBe(200);
    const row = await world.portal.ctx.db
      .selectFrom('protocols')
      .select(['disabled'])
      .where('number', '=', '700005')
      .executeTakeFirstOrThrow();
    expect(row.disabled).toBe(1);
  });
});

describe('results history (contract 8)', () => {
  test('exam types, attributes and the table with one DD/MM/YYYY column per date ascending', async () => {
    const lab = (key: string, performedAt: string, value: number | string) =>
      exam(key, {
        type: 'HEMO',
        description: 'Hemograma',
        performedAt,
        analytes: [{ code: 'HB', name: 'Hemoglobina', unit: 'g/dL', value, referenceMin: 12, referenceMax: 16 }],
      });
    const patient = await createAccount(world.portal.ctx, {
      type: 'PATIENT',
      email: 'historia@paciente.test',
      password: 'Senha-forte-1',
    });
    const token = await world.portal.sessionFor({
      role: 'PATIENT',
      userId: patient,
      username: 'historia@paciente.test',
    });
    await ingestProtocol(world, '710001', { exams: [lab('H2', '2026-10-10T09:00:00-03:00', '14,1')] });
    await ingestProtocol(world, '710002', { exams: [lab('H1', '2026-09-01T09:00:00-03:00', 13.5)] });
    for (const number of ['710001', '710002']) {
      const bound = await app().inject({
        method: 'POST',
        url: '/api/v2/auth/user/bindProtocol',
        headers: bearer(token),
        payload: { protocol: number, password: 'senha123', patientUserId: patient },
      });
      expect(bound.statusCode).toBe(200);
    }
    const range = 'initialDate=01/08/2026&finalDate=30/11/2026';
    const types = await app().inject({
      method: 'GET',
      url: `/api/delivery/examtypes/range?${range}`,
      headers: bearer(token),
    });
    expect(types.statusCode).toBe(200);
    const type = types.json<{ data: Array<{ id: string; name: string }> }>().data[0]!;
    expect(Object.keys(type).sort()).toEqual(['id', 'name']);
    expect(type.name).toBe('Hemograma');
    const attrs = await app().inject({
      method: 'GET',
      url: `/api/delivery/history/attributes?examTypeInstitutionId=${encodeURIComponent(type.id)}&${range}`,
      headers: bearer(token),
    });
    const attribute = attrs.json<{ data: Array<{ id: string; name: string }> }>().data[0]!;
    const history = await app().inject({
      method: 'GET',
      url: `/api/delivery/history?attributeId=${encodeURIComponent(attribute.id)}&examTypeInstitutionId=${encodeURIComponent(type.id)}&${range}`,
      headers: bearer(token),
    });
    expect(history.statusCode).toBe(200);
    const data = history.json<{
      data: { columns: string[]; rows: string[][]; series: Array<Record<string, unknown>> };
    }>().data;
    expect(data.columns.slice(1)).toEqual(['01/09/2026', '10/10/2026']);
    expect(data.rows[0]![0]).toBe('Hemoglobina (g/dL)');
    expect(data.rows[1]!.slice(1)).toEqual(['12 a 16', '12 a 16']);
    expect(data.series).toHaveLength(2);
    for (const key of ['date', 'value', 'unit', 'referenceMin', 'referenceMax'])
      expect(data.series[0]).toHaveProperty(key);
  });
});

describe('batch print (contract 7 and 8)', () => {
  test('0 and 51 protocols are 400 with the catalogue texts; guests 403; one protocol not his 404', async () => {
    const physician = await makeUser(world.portal.ctx, {
      type: 'PHYSICIAN',
      crm: '9999',
      uf: 'RJ',
      vouchedBy: [world.institution.id],
    });
    const token = await world.portal.sessionFor({ role: 'PHYSICIAN', userId: physician.id, username: physician.email });
    const print = (t: string, requestIds: string[], isCompressed = false) =>
      app().inject({
        method: 'POST',
        url: '/api/v2/delivery/resource/batchPrinting',
        headers: bearer(t),
        payload: { requestIds, isCompressed },
      });
    expectError(await print(token, []), 400, 'The list must have at least 1 protocol selected!');
    expectError(
      await print(
        token,
        Array.from({ length: 51 }, (_, i) => `r${i}`),
      ),
      400,
      'The list must have at most 50 protocols selected!',
    );
    const requester = { identifier: 'DR9999', name: 'Dr. Nove', crm: '9999', uf: 'RJ' };
    const mine = await ingestProtocol(world, '720001', { exams: [exam('P1', { requester })] });
    const theirs = await ingestProtocol(world, '720002', { exams: [exam('P2')] });
    await upload('720001', 'P1', 'L1', 'REPORT', await pdf('mine'));
    const mineId = mine.json<{ data: { requestId: string } }>().data.requestId;
    const theirsId = theirs.json<{ data: { requestId: string } }>().data.requestId;
    const ok = await print(token, [mineId]);
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toContain('application/pdf');
    expect(ok.headers['content-disposition']).toMatch(/^attachment; filename="[^"]+\.pdf"/);
    // No cover page: the one-page report is the whole document.
    expect((await PDFDocument.load(ok.rawPayload)).getPageCount()).toBe(1);
    const zip = await print(token, [mineId], true);
    expect(zip.headers['content-type']).toContain('application/zip');
    expect(zip.headers['cache-control']).toBe('no-store');
    expect(ok.headers['cache-control']).toBe('no-store');
    expect(zip.headers['content-disposition']).toMatch(/^attachment; filename="[^"]+\.zip"/);
    // The zip's central directory names a folder per protocol number.
    expect(zip.rawPayload.includes(Buffer.from('720001/'))).toBe(true);
    expectError(await print(token, [mineId, theirsId]), 404);
    expectError(await print(await guestToken(world, '720001'), [mineId]), 403);
  });
});

describe('the trail (contract 8)', () => {
  test('the trace of a protocol lists the server’s own audit events', async () => {
    expect((await ingestProtocol(world, '730001', { exams: [exam('T1')] })).statusCode).toBe(201);
    await upload('730001', 'T1', 'LT', 'REPORT', await pdf('t'));
    await login(world, { userName: '730001', password: 'errada' });
    const token = await guestToken(world, '730001');
    const [t1] = await examsOf(token);
    await app().inject({
      method: 'GET',
      url: `/api/v2/delivery/resource/report?resourceId=${t1!.resources[0]!.identifier}`,
      headers: bearer(token),
    });
    const trace = await app().inject({
      method: 'GET',
      url: '/api/administrationbe/trace?protocol=730001',
      headers: bearer(world.adminToken),
    });
    expect(trace.statusCode).toBe(200);
    const events = trace.json<{ data: { items: Array<{ event: string }> } }>().data.items.map((i) => i.event);
    for (const name of ['LOGIN', 'LOGIN_FAILED', 'VIEW_PROTOCOL', 'VIEW_REPORT']) expect(events).toContain(name);
  });
});
