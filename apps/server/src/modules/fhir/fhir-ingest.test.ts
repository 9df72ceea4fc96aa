import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Bundle } from '@medplum/fhirtypes';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, countRows, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { createInstitution } from '../institutions/institution.service.js';
import { makeUser, pdfBytes } from '../delivery/test-factories.js';
import { labBundle } from './test-bundles.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const EXAMPLE = path.resolve(here, '../../../../../docs/integration/examples/lab-report-bundle.json');

describe('FHIR R4 ingest', () => {
  let portal: TestPortal;
  let apiKey: string;
  let institutionId: string;
  let pdf: string;
  let physicianPdf: string;

  const post = (body: unknown, key: string | null = apiKey) =>
    portal.app.inject({
      method: 'POST',
      url: '/api/fhir/R4',
      headers: { 'content-type': 'application/fhir+json', ...(key ? { 'x-api-key': key } : {}) },
      payload: JSON.stringify(body),
    });
  const count = (table: 'protocols' | 'exams' | 'analytes' | 'resources') => countRows(portal.ctx.db, table);
  /** Rows of protocols, exams, analytes and files. */
  const counts = () => Promise.all([count('protocols'), count('exams'), count('analytes'), count('resources')]);
  /** The answer to a new protocol: every entry created but the Practitioner (kept as the requester). */
  const createdStatuses = (entries: number) => [
    '201 Created',
    '200 OK',
    ...Array<string>(entries - 2).fill('201 Created'),
  ];

  beforeAll(async () => {
    portal = await startTestPortal();
    const created = await createInstitution(portal.ctx, { code: 'LABFHIR', name: 'Laboratório Exemplo', viewType: 1 });
    ({ apiKey } = created);
    institutionId = created.institution.id;
    pdf = Buffer.from(await pdfBytes('Laudo de glicemia', 2)).toString('base64');
    physicianPdf = Buffer.from(await pdfBytes('Laudo medico', 1)).toString('base64');
  });
  afterAll(async () => portal?.destroy());

  it('answers its CapabilityStatement without a sign-in', async () => {
    const res = await portal.app.inject({ url: '/api/fhir/R4/metadata' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/fhir\+json/);
    const cs = res.json();
    expect(cs).toMatchObject({ resourceType: 'CapabilityStatement', fhirVersion: '4.0.1', kind: 'instance' });
    expect(cs.rest[0].resource.map((r: { type: string }) => r.type)).toEqual([
      'Patient',
      'ServiceRequest',
      'DiagnosticReport',
      'Observation',
      'DocumentReference',
      'Binary',
    ]);
  });

  it('refuses a Bundle without the institution key', async () => {
    const res = await post(labBundle({ pdf }), null);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({
      resourceType: 'OperationOutcome',
      issue: [{ severity: 'error', code: 'login' }],
    });
    expect((await post(labBundle({ pdf }), 'wrong-key')).statusCode).toBe(401);
  });

  it('stores a lab report transaction, answers a transaction-response, and a resend changes nothing', async () => {
    const bundle = labBundle({ pdf, physicianPdf });
    const first = await post(bundle);
    expect(first.statusCode, first.body).toBe(200);
    const answer = first.json() as Bundle;
    expect(answer.type).toBe('transaction-response');
    const statuses = answer.entry!.map((e) => e.response!.status);
    expect(statuses).toEqual(createdStatuses(8));
    const locations = answer.entry!.map((e) => e.response!.location ?? '');
    expect(locations[2]).toMatch(/^ServiceRequest\/.+/);
    expect(locations[3]).toMatch(/^DiagnosticReport\/.+/);
    expect(locations[4]).toMatch(/^Observation\/.+/);
    expect(locations[6]).toMatch(/^DocumentReference\/.+/);
    expect(locations[7]).toBe(locations[6]!.replace('DocumentReference', 'Binary'));

    const before = await counts();
    const stamp = await portal.ctx.db.selectFrom('exams').select(['updatedAt']).executeTakeFirstOrThrow();
    portal.clock.advance(60_000);
    const again = await post(bundle);
    expect(again.statusCode).toBe(200);
    const second = again.json() as Bundle;
    expect(second.entry!.map((e) => e.response!.status).every((s) => s === '200 OK')).toBe(true);
    expect(second.entry!.map((e) => e.response!.location ?? '')).toEqual(locations);
    expect(await counts()).toEqual(before);
    expect(before).toEqual([1, 1, 2, 2]);
    expect((await portal.ctx.db.selectFrom('exams').select(['updatedAt']).executeTakeFirstOrThrow()).updatedAt).toBe(
      stamp.updatedAt,
    );

    // The same protocol sent as conditional updates (PUT Type?identifier=) is still the same protocol.
    const put = await post(labBundle({ pdf, physicianPdf, conditionalPut: true, status: 'amended', glucose: 98 }));
    expect(put.statusCode, put.body).toBe(200);
    expect((put.json() as Bundle).entry![2]!.response!.location).toBe(locations[2]);
    const exam = await portal.ctx.db.selectFrom('exams').selectAll().executeTakeFirstOrThrow();
    expect(exam).toMatchObject({ status: 'FINISHED_RETIFICATION', statusCode: 'RF' });
    const glucose = await portal.ctx.db
      .selectFrom('analytes')
      .selectAll()
      .where('code', '=', '2345-7')
      .executeTakeFirstOrThrow();
    expect(glucose).toMatchObject({ value: '98', valueNumber: 98, unit: 'mg/dL', referenceMin: 70, referenceMax: 99 });
    expect(await count('exams')).toBe(1);

    // ifNoneExist: an existing report is left as it is.
    const createOnly = await post(labBundle({ pdf, status: 'preliminary' }));
    expect(createOnly.statusCode).toBe(200);
    expect((await portal.ctx.db.selectFrom('exams').selectAll().executeTakeFirstOrThrow()).status).toBe(
      'FINISHED_RETIFICATION',
    );
  });

  it('shows what came through FHIR in the portal as it shows the JSON ingest: protocol, exams, PDFs, history', async () => {
    await post(labBundle({ number: 'FH-2001', examKey: 'FH-2001-GLI', pdf, physicianPdf, password: 'abc-2001' }));
    // A guest signs in with the protocol number and the password the ServiceRequest carried.
    const login = await portal.app.inject({
      method: 'POST',
      url: '/api/v2/auth/login',
      payload: { userName: 'FH-2001', password: 'abc-2001', dateOfBirth: '14/03/1971', appKey: 'login' },
    });
    expect(login.statusCode, login.body).toBe(200);
    const guest = login.json().data.accessToken as string;
    const list = await portal.app.inject({ url: '/api/v2/delivery/dashboard/protocols', headers: bearer(guest) });
    const [item] = list.json().data.items;
    expect(item).toMatchObject({
      number: 'FH-2001',
      requestedAt: expect.stringMatching(/^2026-11-24T10:40:00/),
      patient: { name: 'João Conceição da Silva', patientId: 'PAC-884422', birthDate: '1971-03-14', gender: 'MALE' },
    });
    const exams = await portal.app.inject({
      url: `/api/v2/delivery/dashboard/protocols/exams?request=${item.requestId}`,
      headers: bearer(guest),
    });
    const [exam] = exams.json().data;
    expect(exam).toMatchObject({
      examKey: 'FH-2001-GLI',
      description: 'Glicemia e colesterol',
      type: 'LAB',
      modalityCode: 'LAB',
      modalityName: 'Laboratório',
      requester: { identifier: 'CRM-SP-123456', name: 'Dra. Ana Beatriz Souza' },
      status: 'RELEASED',
      statusCode: 'L',
    });
    expect(exam.resources.map((r: { type: string }) => r.type).sort()).toEqual(['REPORT', 'REPORT_PHYSICIAN']);
    const report = await portal.app.inject({
      url: `/api/v2/delivery/resource/report?resourceId=${exam.identifierReport}`,
      headers: bearer(guest),
    });
    expect(report.statusCode).toBe(200);
    expect(report.headers['content-type']).toBe('application/pdf');
    expect((await PDFDocument.load(report.rawPayload)).getPageCount()).toBe(2);

    // The requesting physician (CRM 123456/SP), vouched for by the laboratory, sees it in his list.
    const doctor = await makeUser(portal.ctx, {
      type: 'PHYSICIAN',
      crm: '123456',
      uf: 'SP',
      vouchedBy: [institutionId],
    });
    const physician = await portal.sessionFor({ role: 'PHYSICIAN', userId: doctor.id, username: doctor.email });
    const physicianList = await portal.app.inject({
      url: '/api/delivery/persistence/protocols/physician?initialDate=01/11/2026&finalDate=30/11/2026',
      headers: bearer(physician),
    });
    expect(physicianList.json().data.items.map((p: { number: string }) => p.number)).toContain('FH-2001');

    // A patient links the protocol with its password and reads the analytes in the history.
    const owner = await makeUser(portal.ctx, { type: 'PATIENT', name: 'João Conceição da Silva' });
    const patient = await portal.sessionFor({ role: 'PATIENT', userId: owner.id, username: owner.email });
    const bind = await portal.app.inject({
      method: 'POST',
      url: '/api/v2/auth/user/bindProtocol',
      headers: bearer(patient),
      payload: { protocol: 'FH-2001', password: 'abc-2001', patientUserId: owner.id },
    });
    expect(bind.statusCode, bind.body).toBeLessThan(300);
    const range = 'initialDate=01/11/2026&finalDate=30/11/2026';
    const types = (
      await portal.app.inject({ url: `/api/delivery/examtypes/range?${range}`, headers: bearer(patient) })
    ).json().data;
    expect(types).toEqual([{ id: expect.any(String), name: 'Glicemia e colesterol' }]);
    const attributes = (
      await portal.app.inject({
        url: `/api/delivery/history/attributes?examTypeInstitutionId=${types[0].id}&${range}`,
        headers: bearer(patient),
      })
    ).json().data;
    expect(attributes).toEqual([
      { id: 'COLT', name: 'Colesterol total' },
      { id: '2345-7', name: 'Glicose' },
    ]);
    const history = (
      await portal.app.inject({
        url: `/api/delivery/history?attributeId=2345-7&examTypeInstitutionId=${types[0].id}&${range}`,
        headers: bearer(patient),
      })
    ).json().data;
    expect(history.rows).toEqual([
      ['Glicose (mg/dL)', '104'],
      ['Referência', '70 a 99'],
    ]);
  });

  it('takes an ImagingStudy without a report as an exam of its modality', async () => {
    const bundle = labBundle({ number: 'IMG-1', examKey: 'IMG-1-LAB', pdf });
    bundle.entry!.push({
      fullUrl: 'urn:uuid:5d1c9a4e-0c8a-4b0e-9d5c-0000000000a1',
      request: { method: 'POST', url: 'ImagingStudy' },
      resource: {
        resourceType: 'ImagingStudy',
        identifier: [
          {
            type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0203', code: 'ACSN' }] },
            value: 'ACC-77001',
          },
        ],
        status: 'available',
        modality: [{ system: 'http://dicom.nema.org/resources/ontology/DCM', code: 'CT' }],
        subject: { reference: 'urn:uuid:5d1c9a4e-0c8a-4b0e-9d5c-000000000001' },
        basedOn: [{ reference: 'urn:uuid:5d1c9a4e-0c8a-4b0e-9d5c-000000000003' }],
        started: '2026-11-24T09:00:00-03:00',
        description: 'Tomografia de tórax',
      },
    });
    const res = await post(bundle);
    expect(res.statusCode, res.body).toBe(200);
    const exam = await portal.ctx.db
      .selectFrom('exams')
      .selectAll()
      .where('examKey', '=', 'ACC-77001')
      .executeTakeFirstOrThrow();
    expect(exam).toMatchObject({
      description: 'Tomografia de tórax',
      modalityCode: 'CT',
      modalityName: 'Tomografia computadorizada',
      statusCode: 'A',
    });
  });

  describe('refusals name the element at fault and store nothing', () => {
    const refused = async (bundle: unknown, status = 400) => {
      const before = await counts();
      const res = await post(bundle);
      expect(res.statusCode, res.body).toBe(status);
      expect(res.headers['content-type']).toMatch(/^application\/fhir\+json/);
      const outcome = res.json();
      expect(outcome.resourceType).toBe('OperationOutcome');
      expect(await counts()).toEqual(before);
      return outcome.issue as Array<{ code: string; expression?: string[]; details: { text: string } }>;
    };

    it('an Observation the base R4 definitions refuse', async () => {
      const bundle = labBundle({ number: 'BAD-1', pdf });
      (bundle.entry![4]!.resource as unknown as { valueQuantity: { value: unknown } }).valueQuantity.value =
        '104 mg/dL';
      const issues = await refused(bundle);
      expect(issues).toContainEqual(
        expect.objectContaining({ expression: ['Bundle.entry[4].resource.value[x].value'] }),
      );
    });

    it('an element R4 does not define, and a malformed date', async () => {
      const bundle = labBundle({ number: 'BAD-2', pdf });
      Object.assign(bundle.entry![0]!.resource!, { birthDate: '14/03/1971', nickname: 'Jão' });
      const issues = await refused(bundle);
      const at = issues.flatMap((i) => i.expression ?? []);
      expect(at).toContain('Bundle.entry[0].resource.birthDate');
      expect(at).toContain('Bundle.entry[0].resource.nickname');
    });

    it('a report without an identifier', async () => {
      const bundle = labBundle({ number: 'BAD-3', pdf });
      const report = bundle.entry![3]!;
      delete (report.resource as { identifier?: unknown }).identifier;
      report.request = { method: 'POST', url: 'DiagnosticReport' };
      const issues = await refused(bundle);
      expect(issues).toContainEqual(
        expect.objectContaining({ code: 'required', expression: ['Bundle.entry[3].resource.identifier'] }),
      );
    });

    it('a reference to nothing in the Bundle', async () => {
      const bundle = labBundle({ number: 'BAD-4', pdf });
      (bundle.entry![3]!.resource as { result: Array<{ reference: string }> }).result[1]!.reference =
        'urn:uuid:00000000-0000-0000-0000-00000000dead';
      const issues = await refused(bundle, 422);
      expect(issues).toContainEqual(
        expect.objectContaining({ code: 'processing', expression: ['Bundle.entry[3].resource.result[1].reference'] }),
      );
    });

    it('a resource type R4 does not know, and one the portal does not take', async () => {
      const bundle = labBundle({ number: 'BAD-5', pdf });
      bundle.entry!.push({ request: { method: 'POST', url: 'Foo' }, resource: { resourceType: 'Foo' } as never });
      bundle.entry!.push({
        request: { method: 'POST', url: 'MedicationRequest' },
        resource: {
          resourceType: 'MedicationRequest',
          status: 'active',
          intent: 'order',
          subject: { reference: 'urn:uuid:5d1c9a4e-0c8a-4b0e-9d5c-000000000001' },
          medicationCodeableConcept: { text: 'Dipirona' },
        },
      });
      const issues = await refused(bundle);
      expect(issues).toContainEqual(
        expect.objectContaining({ code: 'invalid', expression: ['Bundle.entry[6].resource.resourceType'] }),
      );
      expect(issues).toContainEqual(
        expect.objectContaining({ code: 'not-supported', expression: ['Bundle.entry[7].resource.resourceType'] }),
      );
    });

    it('a new protocol without its password, an invalid CPF, a conditional URL of another identifier', async () => {
      const bundle = labBundle({ number: 'BAD-6', pdf, cpf: '11111111112' });
      delete (bundle.entry![2]!.resource as { extension?: unknown }).extension;
      bundle.entry![3]!.request!.ifNoneExist = 'identifier=other|x';
      const issues = await refused(bundle);
      const at = issues.flatMap((i) => i.expression ?? []);
      expect(at).toContain('Bundle.entry[0].resource.identifier[1].value');
      expect(at).toContain('Bundle.entry[3].request.ifNoneExist');
      // The missing password is found when writing (the protocol may exist and keep its own).
      bundle.entry![0]!.resource = {
        ...bundle.entry![0]!.resource!,
        identifier: [{ system: 'x', value: 'P-BAD6' }],
      } as never;
      bundle.entry![0]!.request = { method: 'POST', url: 'Patient' };
      delete bundle.entry![3]!.request!.ifNoneExist;
      const issues2 = await refused(bundle);
      expect(issues2[0]!.details.text).toMatch(/password/);
    });

    it('something that is not a transaction or batch Bundle', async () => {
      expect((await refused({ resourceType: 'Patient' }))[0]!.expression).toEqual(['Bundle']);
      expect((await refused({ resourceType: 'Bundle', type: 'collection', entry: [] }))[0]!.expression).toEqual([
        'Bundle.type',
      ]);
    });
  });

  it('answers a batch entry by entry: a wrong protocol does not stop a good one', async () => {
    const good = labBundle({ number: 'BATCH-OK', examKey: 'BATCH-OK-1', pdf, type: 'batch' });
    const bad = labBundle({ number: 'BATCH-BAD', examKey: 'BATCH-BAD-1', pdf, type: 'batch' });
    // Separate fullUrls for the second protocol's entries.
    const rewritten = JSON.parse(JSON.stringify(bad).replaceAll('-0000000000', '-1111111111')) as Bundle;
    (rewritten.entry![4]!.resource as { valueQuantity: { value: unknown } }).valueQuantity.value = 'alto';
    const batch: Bundle = { resourceType: 'Bundle', type: 'batch', entry: [...good.entry!, ...rewritten.entry!] };
    const res = await post(batch);
    expect(res.statusCode, res.body).toBe(200);
    const answer = res.json() as Bundle;
    expect(answer.type).toBe('batch-response');
    const statuses = answer.entry!.map((e) => e.response!.status);
    expect(statuses.slice(0, 6)).toEqual(createdStatuses(6));
    expect(statuses.slice(6).every((s) => s === '400')).toBe(true);
    expect(answer.entry![10]!.response!.outcome!.issue![0]!.expression).toEqual([
      'Bundle.entry[10].resource.value[x].value',
    ]);
    const numbers = (await portal.ctx.db.selectFrom('protocols').select('number').execute()).map((p) => p.number);
    expect(numbers).toContain('BATCH-OK');
    expect(numbers).not.toContain('BATCH-BAD');
  });

  it('keeps every report when 30 Bundles of one protocol arrive at once (resends and different reports)', async () => {
    const keys = ['CC-1-GLI', 'CC-1-HEM', 'CC-1-TSH'];
    const bundles = keys.map((examKey, i) => labBundle({ number: 'CC-1', examKey, pdf, glucose: 90 + i }));
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => post(bundles[i % 3])));
    for (const res of answers) expect(res.statusCode, res.body).toBe(200);
    const protocols = await portal.ctx.db.selectFrom('protocols').selectAll().where('number', '=', 'CC-1').execute();
    expect(protocols).toHaveLength(1);
    const exams = await portal.ctx.db
      .selectFrom('exams')
      .selectAll()
      .where('protocolId', '=', protocols[0]!.id)
      .orderBy('examKey')
      .execute();
    expect(exams.map((e) => [e.examKey, e.isEnabled])).toEqual([...keys].sort().map((k) => [k, 1]));
    const analytes = await portal.ctx.db
      .selectFrom('analytes')
      .select(['examId', 'code', 'value'])
      .where(
        'examId',
        'in',
        exams.map((e) => e.id),
      )
      .execute();
    expect(analytes).toHaveLength(6);
    const resources = await portal.ctx.db
      .selectFrom('resources')
      .select('examId')
      .where(
        'examId',
        'in',
        exams.map((e) => e.id),
      )
      .execute();
    expect(resources).toHaveLength(3);
    const requesters = await portal.ctx.db
      .selectFrom('protocolRequesters')
      .select(['crm', 'uf'])
      .where('protocolId', '=', protocols[0]!.id)
      .execute();
    expect(requesters).toEqual([{ crm: '123456', uf: 'SP' }]);
  });

  it('accepts the example Bundle of docs/integration as it is', async () => {
    const example = JSON.parse(fs.readFileSync(EXAMPLE, 'utf8')) as Bundle;
    const res = await post(example);
    expect(res.statusCode, res.body).toBe(200);
    expect((res.json() as Bundle).type).toBe('transaction-response');
  });
});
