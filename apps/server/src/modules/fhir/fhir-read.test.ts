import type { Bundle, DiagnosticReport, Observation } from '@medplum/fhirtypes';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { makeProtocol, makeUser, makeWorld } from '../delivery/test-factories.js';

type World = Awaited<ReturnType<typeof makeWorld>>;
const CALLERS = [
  'owner',
  'otherPatient',
  'physician',
  'otherPhysician',
  'external',
  'otherExternal',
  'guestA',
  'guestB',
  'share',
  'admin',
  'company',
  'anonymous',
] as const;
type Caller = (typeof CALLERS)[number];

/** Spec 6 over the FHIR read API: what each caller may read of the world's protocols A, B and C. */
describe('FHIR R4 read API per role', () => {
  let portal: TestPortal;
  let w: World;
  let hbId: string;
  let old: Awaited<ReturnType<typeof makeProtocol>>;
  let company: string;

  const get = (url: string, caller: Caller, accept = 'application/fhir+json') =>
    portal.app.inject({
      url,
      headers: {
        accept,
        ...(caller === 'anonymous' ? {} : bearer(caller === 'company' ? company : w.tokens[caller])),
      },
    });

  beforeAll(async () => {
    portal = await startTestPortal();
    w = await makeWorld(portal.ctx, (i) => portal.sessionFor(i));
    // A company user of the very institution of the protocols: the administration console's, not a reader.
    const companyUser = await makeUser(portal.ctx, { type: 'COMPANY', institutionId: w.institution.id });
    company = await portal.sessionFor({ role: 'COMPANY', userId: companyUser.id, username: companyUser.email });
    hbId = (await portal.ctx.db.selectFrom('analytes').select('id').where('code', '=', 'HB').executeTakeFirstOrThrow())
      .id;
    old = await makeProtocol(portal.ctx, {
      institutionId: w.institution.id,
      patientUserId: w.users.owner.id,
      requestedAt: '2025-03-10T12:00:00.000Z',
      exams: [
        {
          description: 'Glicemia',
          analytes: [{ code: '2345-7', name: 'Glicose', unit: 'mg/dL', value: 120, min: 70, max: 99 }],
        },
        { description: 'Ultrassom', type: 'US' },
        { description: 'TSH' },
      ],
    });
  });
  afterAll(async () => portal?.destroy());

  /** Per caller: the status of reading each of A's resources, B's protocol and C's protocol. */
  const expected: Record<Caller, { a: number; obs: number; b: number; c: number; self: number }> = {
    owner: { a: 200, obs: 200, b: 404, c: 404, self: 200 },
    otherPatient: { a: 404, obs: 404, b: 200, c: 404, self: 404 },
    physician: { a: 200, obs: 404, b: 404, c: 404, self: 404 },
    otherPhysician: { a: 404, obs: 404, b: 404, c: 404, self: 404 },
    external: { a: 404, obs: 404, b: 404, c: 200, self: 404 },
    otherExternal: { a: 404, obs: 404, b: 404, c: 404, self: 404 },
    guestA: { a: 200, obs: 404, b: 404, c: 404, self: 404 },
    guestB: { a: 404, obs: 404, b: 200, c: 404, self: 404 },
    share: { a: 200, obs: 404, b: 404, c: 404, self: 404 },
    admin: { a: 403, obs: 403, b: 403, c: 403, self: 403 },
    company: { a: 403, obs: 403, b: 403, c: 403, self: 403 },
    anonymous: { a: 401, obs: 401, b: 401, c: 401, self: 401 },
  };

  it('reads by id exactly what spec 6 lets each caller see, 404 for the rest', async () => {
    for (const caller of CALLERS) {
      const e = expected[caller];
      const reads: Array<[string, number]> = [
        [`ServiceRequest/${w.a.protocol.id}`, e.a],
        [`DiagnosticReport/${w.a.exams[0]!.id}`, e.a],
        [`DocumentReference/${w.resources.reportA.id}`, e.a],
        [`Binary/${w.resources.reportA.id}`, e.a],
        [`Observation/${hbId}`, e.obs],
        [`ServiceRequest/${w.b.protocol.id}`, e.b],
        [`DiagnosticReport/${w.b.exams[0]!.id}`, e.b],
        [`Binary/${w.resources.reportB.id}`, e.b],
        [`ServiceRequest/${w.c.protocol.id}`, e.c],
        [`DocumentReference/${w.resources.reportC.id}`, e.c],
        [`Patient/${w.users.owner.id}`, e.self],
        ['ServiceRequest/does-not-exist', e.a === 200 || e.b === 200 || e.c === 200 ? 404 : e.a],
      ];
      for (const [path, status] of reads) {
        const res = await get(`/api/fhir/R4/${path}`, caller);
        expect(res.statusCode, `${caller} ${path}`).toBe(status);
        if (status !== 200 && !path.startsWith('Binary')) {
          expect(res.json().resourceType, `${caller} ${path}`).toBe('OperationOutcome');
        }
      }
    }
  });

  it('searches only over the caller’s reach: nothing of another protocol leaks', async () => {
    const numbersOf = (bundle: Bundle) =>
      new Set(
        (bundle.entry ?? []).map(
          (e) => (e.resource as { identifier?: Array<{ value: string }> }).identifier?.[0]?.value,
        ),
      );
    for (const caller of CALLERS) {
      const res = await get('/api/fhir/R4/ServiceRequest', caller);
      const e = expected[caller];
      if (e.a >= 401 && e.a < 404) {
        expect(res.statusCode, caller).toBe(e.a);
        continue;
      }
      expect(res.statusCode, caller).toBe(200);
      const seen = numbersOf(res.json());
      expect(seen.has(w.a.protocol.number), caller).toBe(e.a === 200);
      expect(seen.has(w.b.protocol.number), caller).toBe(e.b === 200);
      expect(seen.has(w.c.protocol.number), caller).toBe(e.c === 200);
      // Results (history values) are a patient feature: no other role finds an Observation.
      const observations = (await get('/api/fhir/R4/Observation', caller)).json() as Bundle;
      expect((observations.total ?? 0) > 0, caller).toBe(
        caller === 'owner' || caller === 'otherPatient' ? caller === 'owner' : false,
      );
      const patients = (await get('/api/fhir/R4/Patient', caller)).json() as Bundle;
      expect(patients.total, caller).toBe(caller === 'owner' || caller === 'otherPatient' ? 1 : 0);
    }
  });

  it('maps exams, analytes and files as the portal shows them', async () => {
    const report = (await get(`/api/fhir/R4/DiagnosticReport/${w.a.exams[0]!.id}`, 'owner')).json() as DiagnosticReport;
    expect(report).toMatchObject({
      resourceType: 'DiagnosticReport',
      status: 'final',
      basedOn: [{ reference: `ServiceRequest/${w.a.protocol.id}` }],
      subject: { reference: `Patient/${w.users.owner.id}` },
      code: { text: 'Hemograma completo' },
      result: [{ reference: `Observation/${hbId}` }],
      presentedForm: [{ contentType: 'application/pdf', url: `Binary/${w.resources.reportA.id}` }],
    });
    // The physician sees the report but not the history values, and no Patient reference.
    const forPhysician = (await get(`/api/fhir/R4/DiagnosticReport/${w.a.exams[0]!.id}`, 'physician')).json();
    expect(forPhysician.result).toBeUndefined();
    expect(forPhysician.subject.reference).toBeUndefined();

    const hb = (await get(`/api/fhir/R4/Observation/${hbId}`, 'owner')).json() as Observation;
    expect(hb).toMatchObject({
      valueQuantity: { value: 13.5, unit: 'g/dL' },
      referenceRange: [{ low: { value: 12 }, high: { value: 16 } }],
      interpretation: [{ coding: [{ code: 'N' }] }],
    });
    const high = (await get('/api/fhir/R4/Observation?code=http://loinc.org|2345-7', 'owner')).json() as Bundle;
    expect(high.total).toBe(1);
    expect((high.entry![0]!.resource as Observation).interpretation![0]!.coding![0]!.code).toBe('H');

    const pdf = await get(`/api/fhir/R4/Binary/${w.resources.reportA.id}`, 'owner', 'application/pdf');
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect((await PDFDocument.load(pdf.rawPayload)).getPageCount()).toBe(2);
    const asResource = (await get(`/api/fhir/R4/Binary/${w.resources.reportA.id}`, 'owner')).json();
    expect(asResource).toMatchObject({ resourceType: 'Binary', contentType: 'application/pdf' });
    expect(Buffer.from(asResource.data, 'base64').equals(pdf.rawPayload)).toBe(true);
  });

  it('searches by date, code, category and _lastUpdated, and pages with links', async () => {
    const search = async (query: string) => {
      const res = await get(`/api/fhir/R4/DiagnosticReport?${query}`, 'owner');
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as Bundle;
    };
    expect((await search('')).total).toBe(5);
    expect((await search('date=2025')).total).toBe(3);
    expect((await search('date=ge2026-01-01')).total).toBe(2);
    expect((await search('date=2025-03-10&date=lt2025-03-11')).total).toBe(3);
    expect((await search(`patient=Patient/${w.users.owner.id}`)).total).toBe(5);
    expect((await search(`patient=${w.users.otherPatient.id}`)).total).toBe(0);
    expect((await search('code=US')).total).toBe(1);
    expect((await search('category=LAB')).total).toBe(5);
    expect((await search('_lastUpdated=ge2000-01-01')).total).toBe(5);
    expect((await search('_lastUpdated=lt2000-01-01')).total).toBe(0);

    const first = await search('_count=2');
    expect(first.entry).toHaveLength(2);
    const next = first.link!.find((l) => l.relation === 'next')!.url;
    expect(next).toContain('_offset=2');
    const second = (await get(next.replace('http://portal.test', ''), 'owner')).json() as Bundle;
    expect(second.entry).toHaveLength(2);
    expect(second.link!.find((l) => l.relation === 'previous')).toBeDefined();
    const ids = new Set([...first.entry!, ...second.entry!].map((e) => e.resource!.id));
    expect(ids.size).toBe(4);
    const bad = await get('/api/fhir/R4/DiagnosticReport?date=yesterday', 'owner');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().issue[0].expression).toEqual(['date']);
    void old;
  });

  it('traces every read in the audit trail like the portal’s own views', async () => {
    const before = await portal.ctx.db.selectFrom('auditEvents').selectAll().execute();
    await get(`/api/fhir/R4/ServiceRequest/${w.a.protocol.id}`, 'physician');
    await get(`/api/fhir/R4/Observation/${hbId}`, 'owner');
    await get(`/api/fhir/R4/Binary/${w.resources.reportA.id}`, 'guestA', 'application/pdf');
    await get(`/api/fhir/R4/ServiceRequest/${w.b.protocol.id}`, 'physician');
    const after = await portal.ctx.db.selectFrom('auditEvents').selectAll().execute();
    const added = after.filter((e) => !before.some((b) => b.id === e.id));
    expect(added.map((e) => [e.event, e.protocolId, e.role]).sort()).toEqual([
      ['HISTORY_VIEWED', w.a.protocol.id, 'PATIENT'],
      ['VIEW_PROTOCOL', w.a.protocol.id, 'PHYSICIAN'],
      ['VIEW_REPORT', w.a.protocol.id, 'GUEST'],
    ]);
    expect(JSON.parse(added.find((e) => e.event === 'VIEW_PROTOCOL')!.macro!)).toMatchObject({ channel: 'FHIR R4' });
  });
});
