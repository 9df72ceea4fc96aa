import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../../test/helpers.js';
import { guestToken, startContractWorld, type ContractWorld } from '../../test/contract-world.js';
import { createAccount } from '../auth/auth.test-support.js';
import {
  ackFields,
  batchMessage,
  latin1TextMessage,
  ormStatusMessage,
  reportPdf,
  sendMllp,
  utf8LabMessage,
} from './hl7.test-support.js';

let world: ContractWorld;
let port: number;
const app = () => world.portal.app;

interface ExamAnswer {
  examKey: string;
  description: string;
  status: string | null;
  statusCode: string;
  requester?: { identifier: string; name: string } | null;
  resources: Array<{ identifier: string; type: string }>;
  [key: string]: unknown;
}

async function protocolsOf(token: string) {
  const list = await app().inject({
    method: 'GET',
    url: '/api/v2/delivery/dashboard/protocols',
    headers: bearer(token),
  });
  expect(list.statusCode).toBe(200);
  return list.json<{ data: { items: Array<Record<string, unknown> & { requestId: string; number: string }> } }>().data
    .items;
}

async function examsOf(token: string, requestId: string): Promise<ExamAnswer[]> {
  const res = await app().inject({
    method: 'GET',
    url: `/api/v2/delivery/dashboard/protocols/exams?request=${requestId}`,
    headers: bearer(token),
  });
  expect(res.statusCode).toBe(200);
  const data = res.json<{ data: ExamAnswer[] | { exams: ExamAnswer[] } }>().data;
  return Array.isArray(data) ? data : data.exams;
}

async function reportBytes(token: string, resourceId: string): Promise<Buffer> {
  const res = await app().inject({
    method: 'GET',
    url: `/api/v2/delivery/resource/report?resourceId=${resourceId}`,
    headers: bearer(token),
  });
  expect(res.statusCode).toBe(200);
  return res.rawPayload;
}

async function storedMessages() {
  return world.portal.ctx.db
    .selectFrom('hl7Messages')
    .select(['controlId', 'outcome', 'ackCode', 'transport', 'sendingFacility', 'error'])
    .orderBy('receivedAt')
    .execute();
}

beforeAll(async () => {
  world = await startContractWorld({ env: { HL7_MLLP_PORT: '0' } });
  const mllp = await world.portal.startMllp();
  port = mllp!.port;
  const set = await app().inject({
    method: 'PUT',
    url: `/api/administrationbe/institution/${world.institution.id}`,
    headers: bearer(world.adminToken),
    payload: { hl7SendingFacilities: ['LabCentral', 'REGLAB-2'] },
  });
  expect(set.statusCode).toBe(200);
  expect(set.json().data.hl7SendingFacilities).toEqual(['LABCENTRAL', 'REGLAB-2']);
});
afterAll(async () => world.portal.destroy());

describe('HL7 v2 over MLLP', () => {
  it('stores a UTF-8 ORU^R01 with two OBR groups, values, flags and a base64 PDF, and answers AA after', async () => {
    const pdf = await reportPdf('Glicose 92 mg/dL - laudo assinado');
    const [ack] = await sendMllp(port, [utf8LabMessage({ controlId: 'MSG-U1', pdf, password: 'senha-utf8' })]);
    const fields = ackFields(ack!);
    expect(fields.MSA![0]!.slice(1, 3)).toEqual(['AA', 'MSG-U1']);
    expect(fields.MSH![0]![8]).toBe('ACK^R01^ACK');

    const token = await guestToken(world, 'PRT-1001', 'senha-utf8');
    const [protocol] = await protocolsOf(token);
    expect(protocol).toMatchObject({ number: 'PRT-1001' });
    const exams = await examsOf(token, protocol!.requestId);
    expect(exams.map((e) => [e.examKey, e.description, e.status, e.statusCode])).toEqual([
      ['HMG-1', 'Hemograma completo', 'RELEASED', 'L'],
      ['GLI-1', 'Glicose', 'RELEASED', 'L'],
    ]);
    const glucose = exams.find((e) => e.examKey === 'GLI-1')!;
    const report = glucose.resources.find((r) => r.type === 'REPORT')!;
    expect(Buffer.compare(await reportBytes(token, report.identifier), pdf)).toBe(0);
  });
});
