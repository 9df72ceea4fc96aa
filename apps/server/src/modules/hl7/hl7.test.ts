import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../../test/helpers.js';
import { hashingStats, LOCKED_PASSWORD_HASH } from '../../lib/passwords.js';
import { guestToken, login, startContractWorld, type ContractWorld } from '../../test/contract-world.js';
import { createAccount } from '../auth/auth.test-support.js';
import { startMllpServer } from './mllp-server.js';
import {
  ackFields,
  batchMessage,
  latin1TextMessage,
  MllpClient,
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
    .orderBy('controlId')
    .execute();
}

/** The text of a PDF as pdftotext (poppler) reads it. */
async function pdfText(pdf: Buffer): Promise<string> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hl7-pdf-')), 'report.pdf');
  fs.writeFileSync(file, pdf);
  return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
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

  it('reads Latin-1 (8859/1), escape sequences, PV1-19 as the protocol and renders a text report with its comments', async () => {
    const [ack] = await sendMllp(port, [latin1TextMessage({ controlId: 'MSG-L1' })]);
    expect(ackFields(ack!, 'latin1').MSA![0]!.slice(1, 3)).toEqual(['AA', 'MSG-L1']);
    const token = await guestToken(world, 'ATD-2002', 'senha-hl7');
    const [protocol] = await protocolsOf(token);
    expect(JSON.stringify(protocol)).toContain('Maria José Conceição');
    const [exam] = await examsOf(token, protocol!.requestId);
    expect(exam).toMatchObject({ examKey: 'USG-77', description: 'Ultrassonografia de abdome total', statusCode: 'L' });
    expect(exam!.requester).toMatchObject({ name: 'Dr. Carlos Souza' });
    const row = await world.portal.ctx.db
      .selectFrom('protocols')
      .select([
        'patientName',
        'patientPreferredName',
        'patientCpf',
        'patientPhone',
        'patientGender',
        'patientBirthDate',
      ])
      .where('number', '=', 'ATD-2002')
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      patientName: 'Maria José Conceição',
      // PID-9, the alias, is the name she goes by.
      patientPreferredName: 'Zezé Conceição',
      patientCpf: '11144477735',
      patientPhone: '21998765432',
      patientGender: 'FEMALE',
      patientBirthDate: '1975-03-01',
    });
    const examRow = await world.portal.ctx.db
      .selectFrom('exams')
      .select(['requesterCrm', 'requesterUf', 'modalityCode', 'modalityName'])
      .where('examKey', '=', 'USG-77')
      .executeTakeFirstOrThrow();
    expect(examRow).toEqual({
      requesterCrm: '54321',
      requesterUf: 'RJ',
      modalityCode: 'US',
      modalityName: 'Ultrassonografia',
    });
    const pdf = await reportBytes(token, exam!.resources.find((r) => r.type === 'REPORT')!.identifier);
    const text = await pdfText(pdf);
    expect(text).toContain('Fígado de dimensões normais.');
    expect(text).toContain('Vesícula: sem cálculos | paredes finas.');
    expect(text).toContain('relação 1^2 & ecogenicidade preservada; caminho C:\\exames.');
    expect(text).toContain('Exame realizado em jejum de 8 horas.');
  });

  it('answers a batch (FHS/BHS) of two patients with a batch of ACKs and stores both, SN values included', async () => {
    const [ack] = await sendMllp(port, [batchMessage({ controlIds: ['B-1', 'B-2'] })]);
    const fields = ackFields(ack!);
    expect(fields.FHS).toHaveLength(1);
    expect(fields.BHS).toHaveLength(1);
    expect(fields.MSA!.map((m) => m.slice(1, 3))).toEqual([
      ['AA', 'B-1'],
      ['AA', 'B-2'],
    ]);
    expect(fields.BTS![0]![1]).toBe('2');
    const analytes = await world.portal.ctx.db
      .selectFrom('analytes as a')
      .innerJoin('exams as e', 'e.id', 'a.examId')
      .innerJoin('protocols as p', 'p.id', 'e.protocolId')
      .select([
        'p.number',
        'p.patientName',
        'a.code',
        'a.value',
        'a.valueNumber',
        'a.referenceMin',
        'a.referenceMax',
        'a.referenceText',
        'a.abnormalFlag',
        'e.requesterCrm',
        'e.requesterUf',
      ])
      .where('p.number', 'in', ['LOTE-1', 'LOTE-2'])
      .orderBy('p.number')
      .orderBy('a.position')
      .execute();
    expect(analytes).toEqual([
      {
        number: 'LOTE-1',
        patientName: 'Ana Pereira',
        code: 'TSH',
        value: '2.15',
        valueNumber: 2.15,
        referenceMin: 0.4,
        referenceMax: 4,
        referenceText: null,
        abnormalFlag: null,
        requesterCrm: '777',
        requesterUf: 'SP',
      },
      {
        number: 'LOTE-1',
        patientName: 'Ana Pereira',
        code: 'TIT',
        value: '1:160',
        valueNumber: null,
        referenceMin: null,
        referenceMax: null,
        referenceText: '<1:80',
        abnormalFlag: 'A',
        requesterCrm: '777',
        requesterUf: 'SP',
      },
      {
        number: 'LOTE-2',
        patientName: 'Beatriz Ramos',
        code: 'TSH',
        value: '<0.01',
        valueNumber: null,
        referenceMin: 0.4,
        referenceMax: 4,
        referenceText: null,
        abnormalFlag: null,
        requesterCrm: '777',
        requesterUf: 'SP',
      },
      {
        number: 'LOTE-2',
        patientName: 'Beatriz Ramos',
        code: 'TIT',
        value: '1:160',
        valueNumber: null,
        referenceMin: null,
        referenceMax: null,
        referenceText: '<1:80',
        abnormalFlag: 'A',
        requesterCrm: '777',
        requesterUf: 'SP',
      },
    ]);
  });

  it('takes ORM status updates, then the result: the exam goes from collected to in progress to released', async () => {
    const status = async () =>
      await world.portal.ctx.db
        .selectFrom('exams')
        .select(['status', 'statusCode'])
        .where('examKey', '=', 'TSH-9')
        .executeTakeFirstOrThrow();
    const acks = await sendMllp(port, [ormStatusMessage({ controlId: 'O-1', status: 'SC' })]);
    expect(ackFields(acks[0]!).MSA![0]![1]).toBe('AA');
    expect(await status()).toEqual({ status: 'PENDING', statusCode: 'P' });
    await sendMllp(port, [ormStatusMessage({ controlId: 'O-2', status: 'IP' })]);
    expect(await status()).toEqual({ status: 'IN_PROGRESS', statusCode: 'A' });
    await sendMllp(
      port,
      [ormStatusMessage({ controlId: 'O-3', status: 'CA' }).toString('utf8').replace('ORC|SC', 'ORC|CA')].map((t) =>
        Buffer.from(t),
      ),
    );
    expect(await status()).toEqual({ status: 'DISCARDED', statusCode: 'D' });
  });

  it('stores a message sent twice (same MSH-10) once, and acknowledges both; every message and ACK is kept', async () => {
    const message = utf8LabMessage({ controlId: 'MSG-DUP', protocol: 'PRT-DUP', password: 'dup-senha' });
    // One connection; the test clock moves between the two, so the trail's order is theirs.
    const client = await MllpClient.connect(port);
    const acks: Buffer[] = [];
    try {
      acks.push((await client.send(message))!);
      world.portal.clock.advance(1000);
      acks.push((await client.send(message))!);
    } finally {
      client.close();
    }
    expect(acks.map((a) => ackFields(a).MSA![0]!.slice(1, 3))).toEqual([
      ['AA', 'MSG-DUP'],
      ['AA', 'MSG-DUP'],
    ]);
    const rows = (await storedMessages()).filter((r) => r.controlId === 'MSG-DUP');
    expect(rows.map((r) => r.outcome)).toEqual(['STORED', 'REPEATED']);
    const kept = await world.portal.ctx.db
      .selectFrom('hl7Messages')
      .select(['message', 'ack'])
      .where('controlId', '=', 'MSG-DUP')
      .execute();
    for (const row of kept) {
      expect(row.message).toContain('MSG-DUP');
      expect(row.ack).toContain('MSA|AA|MSG-DUP');
    }
    const protocols = await world.portal.ctx.db
      .selectFrom('protocols')
      .select('id')
      .where('number', '=', 'PRT-DUP')
      .execute();
    expect(protocols).toHaveLength(1);
  });

  it('locks a new protocol sent without ZPW: no password opens it, and storing it hashes nothing', async () => {
    const runs = hashingStats().runs;
    const [ack] = await sendMllp(port, [utf8LabMessage({ controlId: 'LOCK-1', protocol: 'PRT-LOCK' })]);
    expect(ackFields(ack!).MSA![0]!.slice(1, 3)).toEqual(['AA', 'LOCK-1']);
    expect(hashingStats().runs).toBe(runs);
    const stored = await world.portal.ctx.db
      .selectFrom('protocols')
      .select('passwordHash')
      .where('number', '=', 'PRT-LOCK')
      .executeTakeFirstOrThrow();
    expect(stored.passwordHash).toBe(LOCKED_PASSWORD_HASH);

    // Protocol sign-in answers as for any wrong password, whatever is tried (the stored marker too).
    await sendMllp(port, [utf8LabMessage({ controlId: 'LOCK-REF', protocol: 'PRT-LOCK-REF', password: 'senha-ref' })]);
    const wrong = await login(world, { userName: 'PRT-LOCK-REF', password: 'not-its-password', appKey: 'login' });
    expect(wrong.statusCode).toBe(401);
    for (const password of [LOCKED_PASSWORD_HASH, 'senha-hl7', 'senha-ref']) {
      const res = await login(world, { userName: 'PRT-LOCK', password, appKey: 'login' });
      expect([res.statusCode, res.json()]).toEqual([wrong.statusCode, wrong.json()]);
    }

    // A later message with ZPW gives it a password; one without ZPW keeps it.
    await sendMllp(port, [utf8LabMessage({ controlId: 'LOCK-2', protocol: 'PRT-LOCK', password: 'senha-lock' })]);
    await sendMllp(port, [utf8LabMessage({ controlId: 'LOCK-3', protocol: 'PRT-LOCK' })]);
    const [protocol] = await protocolsOf(await guestToken(world, 'PRT-LOCK', 'senha-lock'));
    expect(protocol).toMatchObject({ number: 'PRT-LOCK' });
  });

  it('refuses unknown senders (AR), unreadable frames, missing PID or fields (AE), and stores nothing of them', async () => {
    const before = await world.portal.ctx.db.selectFrom('protocols').select('id').execute();
    const acks = await sendMllp(port, [
      utf8LabMessage({ controlId: 'X-1', facility: 'STRANGER', protocol: 'NOPE-1' }),
      Buffer.from('this is not HL7 at all'),
      Buffer.from('MSH|^~\\&|LIS|LABCENTRAL|PORTAL||20261118||ORU^R01|X-3|P|2.5.1\rOBR|1||A|GLI^Glicose'),
      Buffer.from(
        'MSH|^~\\&|LIS|LABCENTRAL|PORTAL||20261118||ORU^R01|X-4|P|2.5.1\rPID|1||1||Silva^Ana||19800101|F\rORC|RE||A|NOPE-4\rOBR|1||A|GLI^Glicose|||2026-11-18',
      ),
      Buffer.from('MSH|^~\\&|LIS|LABCENTRAL|PORTAL||20261118||ADT^A01|X-5|P|2.5.1\rPID|1||1||Silva^Ana||19800101|F'),
      Buffer.from(
        'MSH|^~\\&|LIS|LABCENTRAL|PORTAL||20261118||ORU^R01|X-6|P|2.5.1\rPID|1||1||Silva^Ana|||F\rORC|RE||A|NOPE-6\rOBR|1||A|GLI^Glicose',
      ),
      Buffer.from('MSH|^~\\&|LIS|LABCENTRAL|PORTAL||20261118||ORU^R01|X-7|P|2.5.1|||||BRA|UNICODE UTF-16\rPID|1'),
      Buffer.from('MSH|^~\\&|LIS|LABCENTRAL|PORTAL||20261118||ORU^R01|X-8|P|2.2\rPID|1'),
    ]);
    const msa = acks.map((a) => ackFields(a, 'latin1').MSA![0]!);
    const err = acks.map((a) => ackFields(a, 'latin1').ERR?.[0]);
    expect(msa.map((m) => m[1])).toEqual(['AR', 'AE', 'AE', 'AE', 'AR', 'AE', 'AE', 'AR']);
    expect(msa.map((m) => m[2])).toEqual(['X-1', '', 'X-3', 'X-4', 'X-5', 'X-6', 'X-7', 'X-8']);
    expect(msa[0]![3]).toContain('Unknown sending facility "STRANGER"');
    expect(err[0]!.slice(2, 5)).toEqual(['MSH^1^4', '204^Unknown key identifier^HL70357', 'E']);
    expect(msa[1]![3]).toContain('could not be read');
    expect(msa[2]![3]).toContain('OBR 1 comes before any PID');
    expect(msa[3]![3]).toContain('OBR-7: "2026-11-18" is not an HL7 date/time');
    expect(err[3]!.slice(2, 4)).toEqual(['OBR^1^7', '102^Data type error^HL70357']);
    expect(msa[4]![3]).toContain('ADT\\S\\A01 is not accepted');
    expect(msa[5]![3]).toContain('PID-7 (date of birth) is required');
    expect(err[5]!.slice(2, 4)).toEqual(['PID^1^7', '101^Required field missing^HL70357']);
    expect(msa[6]![3]).toContain('UNICODE UTF-16');
    expect(msa[7]![3]).toContain('version "2.2"');
    expect(await world.portal.ctx.db.selectFrom('protocols').select('id').execute()).toHaveLength(before.length);
    const outcomes = (await storedMessages()).filter((r) => r.controlId?.startsWith('X-') || r.controlId === null);
    expect(outcomes.map((r) => r.outcome)).toEqual(expect.arrayContaining(['REJECTED', 'ERROR']));
    expect(outcomes.every((r) => r.outcome === 'REJECTED' || r.outcome === 'ERROR')).toBe(true);
  });
});

/** An exam answer without the server's own ids, for comparing two ways in. */
function comparable(exam: ExamAnswer) {
  const { id: _id, identifierReport: _r, identifierImage: _i, resources, ...rest } = exam;
  return { ...rest, resources: resources.map((r) => r.type) };
}

describe('an HL7 result looks like the same result sent as JSON (contract 5)', () => {
  it('gives the same exams, history values and PDF', async () => {
    const pdf = await reportPdf('Glicose 92 mg/dL - comparado');
    const [ack] = await sendMllp(port, [
      utf8LabMessage({ controlId: 'CMP-1', protocol: 'CMP-HL7', pdf, password: 'senha-cmp' }),
    ]);
    expect(ackFields(ack!).MSA![0]![1]).toBe('AA');
    const requester = { identifier: 'CRM-SP-12345', name: 'Dra. Ana Silva', crm: '12345', uf: 'SP' };
    const lab = { modalityCode: 'LAB', modalityName: 'Laboratório', requester, status: 'RELEASED' };
    const when = { performedAt: '2026-11-18T09:00:00-03:00', deliveredAt: '2026-11-18T10:30:00-03:00' };
    const json = await app().inject({
      method: 'PUT',
      url: '/api/v2/delivery/ingest/protocols/CMP-JSON',
      headers: { 'x-api-key': world.institution.apiKey },
      payload: {
        password: 'senha-cmp',
        requestedAt: '2026-11-18T09:00:00-03:00',
        patient: {
          patientId: '77001',
          name: 'João Batista Conceição',
          birthDate: '1980-04-12',
          gender: 'MALE',
          email: 'joao.conceicao@example.com',
          phone: '11987654321',
          cpf: '52998224725',
        },
        exams: [
          {
            examKey: 'HMG-1',
            description: 'Hemograma completo',
            type: 'HMG',
            ...lab,
            ...when,
            analytes: [
              {
                code: 'HB',
                name: 'Hemoglobina',
                unit: 'g/dL',
                value: 13.5,
                referenceMin: 12,
                referenceMax: 16,
                abnormalFlag: 'N',
              },
              {
                code: 'HT',
                name: 'Hematócrito',
                unit: '%',
                value: '47,9',
                referenceMin: 36,
                referenceMax: 46,
                abnormalFlag: 'H',
              },
              {
                code: 'LEUCO',
                name: 'Leucócitos',
                unit: '/mm3',
                value: 3200,
                referenceMin: 4000,
                referenceMax: 11000,
                abnormalFlag: 'L',
              },
            ],
          },
          {
            examKey: 'GLI-1',
            description: 'Glicose',
            type: 'GLI',
            ...lab,
            ...when,
            analytes: [
              {
                code: 'GLI',
                name: 'Glicose',
                unit: 'mg/dL',
                value: 92,
                referenceMin: 70,
                referenceMax: 99,
                abnormalFlag: 'N',
              },
            ],
          },
        ],
      },
    });
    expect(json.statusCode).toBe(201);
    const db = world.portal.ctx.db;
    // The HL7 message's text report of the blood count, and its PDF, uploaded as an integrator would.
    const hl7Report = await db
      .selectFrom('resources as r')
      .innerJoin('exams as e', 'e.id', 'r.examId')
      .innerJoin('protocols as p', 'p.id', 'e.protocolId')
      .select(['r.identifier', 'e.examKey', 'r.storageKey'])
      .where('p.number', '=', 'CMP-HL7')
      .orderBy('e.examKey')
      .execute();
    for (const r of hl7Report) {
      const chunks: Buffer[] = [];
      for await (const chunk of await world.portal.ctx.storage.get(r.storageKey)) chunks.push(chunk as Buffer);
      const bytes = Buffer.concat(chunks);
      const up = await app().inject({
        method: 'PUT',
        url: `/api/v2/delivery/ingest/protocols/CMP-JSON/exams/${r.examKey}/resources/${r.identifier}?type=REPORT`,
        headers: { 'x-api-key': world.institution.apiKey, 'content-type': 'application/pdf' },
        payload: bytes,
      });
      expect(up.statusCode).toBe(201);
    }

    const viaHl7 = await guestToken(world, 'CMP-HL7', 'senha-cmp');
    const viaJson = await guestToken(world, 'CMP-JSON', 'senha-cmp');
    const [pHl7] = await protocolsOf(viaHl7);
    const [pJson] = await protocolsOf(viaJson);
    const strip = (p: Record<string, unknown>) => {
      const { requestId: _a, number: _b, examsIds: _c, resource: _d, examList, ...rest } = p;
      // Each row names its exams: the same words and codes, under ids of their own.
      const exams = (examList as Record<string, unknown>[]).map(({ id: _e, ...exam }) => exam);
      return { ...rest, examList: exams };
    };
    expect(strip(pHl7!)).toEqual(strip(pJson!));
    const eHl7 = await examsOf(viaHl7, pHl7!.requestId);
    const eJson = await examsOf(viaJson, pJson!.requestId);
    expect(eHl7.map(comparable)).toEqual(eJson.map(comparable));
    const glucose = (list: ExamAnswer[]) => list.find((e) => e.examKey === 'GLI-1')!.resources[0]!.identifier;
    expect(Buffer.compare(await reportBytes(viaHl7, glucose(eHl7)), pdf)).toBe(0);
    expect(Buffer.compare(await reportBytes(viaJson, glucose(eJson)), pdf)).toBe(0);

    // History: a patient account for each protocol; the same table and series.
    const history = async (number: string, email: string) => {
      const userId = await createAccount(world.portal.ctx, { type: 'PATIENT', email, password: 'Senha-forte-1' });
      const token = await world.portal.sessionFor({ role: 'PATIENT', userId, username: email });
      const bound = await app().inject({
        method: 'POST',
        url: '/api/v2/auth/user/bindProtocol',
        headers: bearer(token),
        payload: { protocol: number, password: 'senha-cmp', patientUserId: userId },
      });
      expect(bound.statusCode).toBe(200);
      const range = 'initialDate=01/11/2026&finalDate=30/11/2026';
      const get = async (url: string) => {
        const res = await app().inject({ method: 'GET', url, headers: bearer(token) });
        expect(res.statusCode).toBe(200);
        return res.json<{ data: unknown }>().data;
      };
      const types = (await get(`/api/delivery/examtypes/range?${range}`)) as Array<{ id: string; name: string }>;
      const blood = types.find((t) => t.name === 'Hemograma completo')!;
      const attrs = (await get(
        `/api/delivery/history/attributes?examTypeInstitutionId=${encodeURIComponent(blood.id)}&${range}`,
      )) as Array<{ id: string; name: string }>;
      const table = [];
      for (const attr of attrs) {
        table.push(
          await get(
            `/api/delivery/history?attributeId=${encodeURIComponent(attr.id)}&examTypeInstitutionId=${encodeURIComponent(blood.id)}&${range}`,
          ),
        );
      }
      return { types: types.map((t) => t.name).sort(), attrs, table };
    };
    const hHl7 = await history('CMP-HL7', 'hl7-history@paciente.test');
    const hJson = await history('CMP-JSON', 'json-history@paciente.test');
    expect(hHl7).toEqual(hJson);
    expect(hHl7.attrs.map((a) => a.name).sort()).toEqual(['Hematócrito', 'Hemoglobina', 'Leucócitos']);
    expect(hHl7.table[hHl7.attrs.findIndex((a) => a.name === 'Hematócrito')]).toMatchObject({
      rows: [
        ['Hematócrito (%)', '47,9'],
        ['Referência', '36 a 46'],
      ],
      series: [{ value: 47.9, unit: '%', referenceMin: 36, referenceMax: 46, abnormalFlag: 'H' }],
    });
  });
});

describe('HL7 v2 over HTTPS (POST /api/v2/delivery/ingest/hl7)', () => {
  const post = (body: Buffer, apiKey = world.institution.apiKey) =>
    app().inject({
      method: 'POST',
      url: '/api/v2/delivery/ingest/hl7',
      headers: { 'x-api-key': apiKey, 'content-type': 'x-application/hl7-v2+er7' },
      payload: body,
    });

  it('answers the ACK, stores once on a resend, reads Latin-1, and refuses a wrong key', async () => {
    const message = latin1TextMessage({ controlId: 'H-1', protocol: 'HTTPS-1', password: 'senha-https' });
    const first = await post(message);
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toContain('x-application/hl7-v2+er7');
    expect(ackFields(first.rawPayload, 'latin1').MSA![0]!.slice(1, 3)).toEqual(['AA', 'H-1']);
    world.portal.clock.advance(1000);
    const again = await post(message);
    expect(ackFields(again.rawPayload, 'latin1').MSA![0]!.slice(1, 3)).toEqual(['AA', 'H-1']);
    const rows = (await storedMessages()).filter((r) => r.controlId === 'H-1');
    expect(rows.map((r) => [r.outcome, r.transport])).toEqual([
      ['STORED', 'HTTPS'],
      ['REPEATED', 'HTTPS'],
    ]);
    const token = await guestToken(world, 'HTTPS-1', 'senha-https');
    const [protocol] = await protocolsOf(token);
    expect(JSON.stringify(protocol)).toContain('Maria José Conceição');

    const missingPid = await post(Buffer.from('MSH|^~\\&|LIS|X|PORTAL||20261118||ORU^R01|H-2|P|2.5.1\rOBX|1|NM|A||1'));
    expect(missingPid.statusCode).toBe(200);
    expect(ackFields(missingPid.rawPayload).MSA![0]!.slice(1, 3)).toEqual(['AE', 'H-2']);

    const stranger = await post(message, 'not-a-key');
    expect(stranger.statusCode).toBe(401);
    expect(stranger.json()).toEqual({ message: 'Invalid API key.' });
  });
});

describe('sending facilities in the administration API', () => {
  it('creates, reads and updates them; one facility names one institution only', async () => {
    const created = await app().inject({
      method: 'POST',
      url: '/api/administrationbe/institution',
      headers: bearer(world.adminToken),
      payload: { code: 'HOSP2', name: 'Hospital Dois', viewType: 2, hl7SendingFacilities: ['hosp2-lis', 'HOSP2-RIS'] },
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().data.id as string;
    const read = await app().inject({
      method: 'GET',
      url: `/api/administrationbe/institution/${id}`,
      headers: bearer(world.adminToken),
    });
    expect(read.json().data.hl7SendingFacilities).toEqual(['HOSP2-LIS', 'HOSP2-RIS']);
    const taken = await app().inject({
      method: 'PUT',
      url: `/api/administrationbe/institution/${id}`,
      headers: bearer(world.adminToken),
      payload: { hl7SendingFacilities: ['HOSP2-LIS', 'labcentral'] },
    });
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toEqual({
      message: 'The HL7 sending facility is already in use by another institution!',
      data: { hl7SendingFacilities: ['LABCENTRAL'] },
    });
    const duplicate = await app().inject({
      method: 'PUT',
      url: `/api/administrationbe/institution/${id}`,
      headers: bearer(world.adminToken),
      payload: { hl7SendingFacilities: ['A', 'a'] },
    });
    expect(duplicate.statusCode).toBe(400);
    const cleared = await app().inject({
      method: 'PUT',
      url: `/api/administrationbe/institution/${id}`,
      headers: bearer(world.adminToken),
      payload: { hl7SendingFacilities: [] },
    });
    expect(cleared.json().data.hl7SendingFacilities).toEqual([]);
    // The facility now free answers AR, as any unknown sender.
    const [ack] = await sendMllp(port, [utf8LabMessage({ controlId: 'F-1', facility: 'HOSP2-LIS', protocol: 'F-1' })]);
    expect(ackFields(ack!).MSA![0]![1]).toBe('AR');
  });
});

/** A CA, a server certificate for 127.0.0.1 and client certificates, made with openssl. */
function makeCertificates(clients: string[]): { dir: string; file: (name: string) => string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hl7-tls-'));
  const file = (name: string) => path.join(dir, name);
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run('req', '-x509', ...key, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=Portal Test CA');
  const issue = (name: string, cn: string, ext: string) => {
    run('req', ...key, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`);
    fs.writeFileSync(file(`${name}.ext`), ext);
    run(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.crt`,
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
    );
  };
  issue('server', '127.0.0.1', 'subjectAltName=IP:127.0.0.1\n');
  for (const cn of clients) issue(cn, cn, 'extendedKeyUsage=clientAuth\n');
  return { dir, file };
}

describe('MLLP over TLS with client certificates', () => {
  it('takes a sender whose certificate names its facility, refuses one that names another (AR) and one without', async () => {
    const certs = makeCertificates(['LABCENTRAL', 'OUTROLAB']);
    const server = await startMllpServer(world.portal.ctx, {
      host: '127.0.0.1',
      port: 0,
      tls: { certFile: certs.file('server.crt'), keyFile: certs.file('server.key'), caFile: certs.file('ca.crt') },
    });
    try {
      const client = (name: string) => ({
        tls: {
          ca: fs.readFileSync(certs.file('ca.crt')),
          cert: fs.readFileSync(certs.file(`${name}.crt`)),
          key: fs.readFileSync(certs.file(`${name}.key`)),
        },
      });
      const [ok] = await sendMllp(
        server.port,
        [utf8LabMessage({ controlId: 'TLS-1', protocol: 'TLS-1' })],
        client('LABCENTRAL'),
      );
      expect(ackFields(ok!).MSA![0]!.slice(1, 3)).toEqual(['AA', 'TLS-1']);
      const [other] = await sendMllp(
        server.port,
        [utf8LabMessage({ controlId: 'TLS-2', protocol: 'TLS-2' })],
        client('OUTROLAB'),
      );
      expect(ackFields(other!).MSA![0]![1]).toBe('AR');
      expect(ackFields(other!).MSA![0]![3]).toContain('client certificate does not name the sending facility');
      await expect(
        sendMllp(server.port, [utf8LabMessage({ controlId: 'TLS-3', protocol: 'TLS-3' })], {
          tls: { ca: fs.readFileSync(certs.file('ca.crt')) },
        }),
      ).rejects.toThrow();
      const rows = (await storedMessages()).filter((r) => r.controlId?.startsWith('TLS-'));
      expect(rows.map((r) => [r.controlId, r.outcome, r.transport])).toEqual([
        ['TLS-1', 'STORED', 'MLLP_TLS'],
        ['TLS-2', 'REJECTED', 'MLLP_TLS'],
      ]);
    } finally {
      await server.close();
      fs.rmSync(certs.dir, { recursive: true, force: true });
    }
  });
});

describe('the integration guide (docs/integration/hl7v2.md)', () => {
  it('its sample ORU^R01, sent with its node script, is stored and acknowledged AA', async () => {
    const created = await app().inject({
      method: 'POST',
      url: '/api/administrationbe/institution',
      headers: bearer(world.adminToken),
      payload: { code: 'LABEXEMPLO', name: 'Laboratório Exemplo', viewType: 2, hl7SendingFacilities: ['LABEXEMPLO'] },
    });
    expect(created.statusCode).toBe(201);
    const docs = fileURLToPath(new URL('../../../../../docs/integration/examples', import.meta.url));
    // Asynchronously: the listener runs in this very process.
    const { stdout: output } = await promisify(execFile)(process.execPath, [
      path.join(docs, 'send-mllp.mjs'),
      path.join(docs, 'oru-r01.hl7'),
      '127.0.0.1',
      String(port),
    ]);
    expect(output).toMatch(/^MSH\|\^~\\&\|RESULTS-PORTAL\|PORTAL\|LIS\|LABEXEMPLO\|\d{14}-0300\|\|ACK\^R01\^ACK\|/);
    expect(output).toContain('MSA|AA|EX-0001');
    const token = await guestToken(world, 'PROT-2026-0001', 'senha-do-protocolo');
    const [protocol] = await protocolsOf(token);
    expect(JSON.stringify(protocol)).toContain('João Batista Conceição');
  });
});
