import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ServerMessage } from '@portal/shared/errors';
import type { Bundle, DiagnosticReport } from '@medplum/fhirtypes';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { notifyExamsChanged, runDigests } from './notifications.service.js';
import { makeProtocol, makeResource, makeShare, makeUser, makeWorld, pdfBytes, pngBytes } from './test-factories.js';

type World = Awaited<ReturnType<typeof makeWorld>>;
type Made = Awaited<ReturnType<typeof makeProtocol>>;

/*
 * Release holds for sensitive results (issue 22). Every read path that can carry a result is
 * called by every kind of viewer; `examHold` (holds.ts) is the one decision behind them all:
 *   lists ......... GET /api/v2/delivery/dashboard/protocols, protocols/exams (guest form),
 *                   persistence/protocols/physician, v2/delivery/protocols/listedByTags
 *   detail ........ GET /api/delivery/persistence/dashboard/protocol/byId, v2/.../protocols/exams
 *   files ......... GET /api/v2/delivery/resource/report|image|signature (and report?showAll=true)
 *   history ....... GET /api/delivery/examtypes/range, history/attributes, history
 *   print ......... POST /api/v2/delivery/resource/batchPrinting (PDF and zip)
 *   shares ........ a share session's list, detail and files
 *   FHIR .......... GET /api/fhir/R4/DiagnosticReport|Observation|DocumentReference, Binary/{id}
 *   mails ......... result-ready notices (notifyExamsChanged at ingest, the digests' sweep)
 *   DICOMweb ...... studies of a held exam answer 404 (wado.service's servedExam), the detail names none
 */
describe('release holds for sensitive results', () => {
  let portal: TestPortal;
  let w: World;
  let hiv: Made;
  let bhcg: Made;
  let genetic: Made;
  const ids: Record<string, string> = {};
  const tokens: Record<string, string> = {};
  const requester = { crm: '12345', uf: 'SP', name: 'Dr Pedro' };

  const call = (method: 'GET' | 'POST' | 'PUT', url: string, token: string, payload?: object) =>
    portal.app.inject({ method, url, headers: bearer(token), ...(payload !== undefined ? { payload } : {}) });
  const get = (url: string, token: string) => call('GET', url, token);
  const setRules = (rules: unknown[]) =>
    call('PUT', `/api/administrationbe/institution/${w.institution.id}/hold-rules`, tokens.admin ?? w.tokens.admin, {
      rules,
    });
  /** Moves the clock and signs everyone in again (sessions expire meanwhile). */
  const moveClockTo = async (at: string) => {
    portal.clock.set(at);
    tokens.patient = await portal.sessionFor({ role: 'PATIENT', userId: patientId, username: 'helena@example.test' });
    tokens.guest = await portal.sessionFor({
      role: 'GUEST',
      username: hiv.protocol.number,
      protocolIds: [bhcg.protocol.id],
    });
    tokens.admin = await portal.sessionFor({ role: 'ADMIN', userId: w.users.admin.id, username: w.users.admin.email });
  };
  let patientId = '';
  const detail = async (protocolId: string, token: string) =>
    (await get(`/api/delivery/persistence/dashboard/protocol/byId?id=${protocolId}`, token)).json().data;
  const examOf = async (protocolId: string, token: string) => (await detail(protocolId, token)).exams[0];
  const listed = async (url: string, token: string, protocolId: string) => {
    const res = await get(url, token);
    expect(res.statusCode, url).toBe(200);
    return (res.json().data.items as Array<{ requestId: string }>).find((i) => i.requestId === protocolId) as
      Record<string, unknown> | undefined;
  };
  const mailsTo = (to: string) =>
    portal.ctx.db.selectFrom('outbox').selectAll().where('recipient', '=', to).where('channel', '=', 'EMAIL').execute();
  const auditOf = (event: string) =>
    portal.ctx.db.selectFrom('auditEvents').selectAll().where('event', '=', event).execute();

  beforeAll(async () => {
    portal = await startTestPortal();
    w = await makeWorld(portal.ctx, (i) => portal.sessionFor(i));
    await portal.ctx.db
      .updateTable('institutions')
      .set({ settings: JSON.stringify({ emailFrequencyDefault: 'EXAM' }) })
      .where('id', '=', w.institution.id)
      .execute();
    const patient = await makeUser(portal.ctx, { type: 'PATIENT', name: 'Helena Held', email: 'helena@example.test' });
    patientId = patient.id;
    const made = async (type: string, description: string, code: string) => {
      const p = await makeProtocol(portal.ctx, {
        institutionId: w.institution.id,
        patientUserId: patient.id,
        patientName: 'Helena Held',
        tagId: w.tag.id,
        exams: [{ type, description, requester, analytes: [{ code, name: description, value: 1.5, min: 0, max: 1 }] }],
      });
      ids[`${type}:report`] = (
        await makeResource(portal.ctx, {
          examId: p.exams[0]!.id,
          type: 'REPORT',
          bytes: await pdfBytes(`held ${type}`, 1, { width: 311 }),
          signed: { bytes: Buffer.from('signed'), contentType: 'application/pkcs7-signature' },
        })
      ).id;
      ids[`${type}:image`] = (
        await makeResource(portal.ctx, { examId: p.exams[0]!.id, type: 'IMAGE', bytes: pngBytes() })
      ).id;
      return p;
    };
    hiv = await made('HIV', 'Sorologia HIV', 'HIVAB');
    bhcg = await made('BHCG', 'Beta HCG', 'BHCG');
    genetic = await made('GENETICA', 'Painel genetico', 'BRCA');
    const share = await makeShare(
      portal.ctx,
      patient.id,
      [hiv.protocol.id, bhcg.protocol.id, genetic.protocol.id],
      (i) => portal.sessionFor(i),
    );
    Object.assign(tokens, {
      patient: await portal.sessionFor({ role: 'PATIENT', userId: patient.id, username: patient.email }),
      guest: await portal.sessionFor({
        role: 'GUEST',
        username: hiv.protocol.number,
        protocolIds: [hiv.protocol.id, bhcg.protocol.id, genetic.protocol.id],
      }),
      share: share.token,
      external: w.tokens.external,
      physician: w.tokens.physician,
      otherPhysician: w.tokens.otherPhysician,
    });
    // The exams were received at 2026-11-20T12:00Z (the test clock's now): BHCG is held 48 hours.
    const saved = await setRules([
      { examTypeCode: 'HIV', rule: 'PHYSICIAN', message: 'Disponível após a sua consulta com o médico.' },
      { examTypeCode: 'bhcg', rule: 'HOURS', hours: 48 },
      { examTypeCode: 'GENETICA', rule: 'IN_PERSON', message: 'Retire na unidade.' },
    ]);
    expect(saved.statusCode).toBe(200);
  });
  afterAll(async () => portal?.destroy());

  const HELD_VIEWERS = ['patient', 'guest', 'share', 'external'] as const;
  const PROTOCOLS = () => [hiv, bhcg, genetic];

  it('the console edits the rules per exam type: validated, only for the own institution, traced', async () => {
    const read = await get(`/api/administrationbe/institution/${w.institution.id}/hold-rules`, w.tokens.admin);
    expect(read.json().data.rules).toEqual([
      { examTypeCode: 'bhcg', rule: 'HOURS', hours: 48, message: null },
      { examTypeCode: 'GENETICA', rule: 'IN_PERSON', hours: null, message: 'Retire na unidade.' },
      { examTypeCode: 'HIV', rule: 'PHYSICIAN', hours: null, message: 'Disponível após a sua consulta com o médico.' },
    ]);
    const bad = await call('PUT', `/api/administrationbe/institution/${w.institution.id}/hold-rules`, w.tokens.admin, {
      rules: [{ examTypeCode: 'X', rule: 'HOURS' }],
    });
    expect(bad.statusCode).toBe(400);
    const twice = await call(
      'PUT',
      `/api/administrationbe/institution/${w.institution.id}/hold-rules`,
      w.tokens.admin,
      {
        rules: [
          { examTypeCode: 'X', rule: 'PHYSICIAN' },
          { examTypeCode: 'x', rule: 'IN_PERSON' },
        ],
      },
    );
    expect(twice.statusCode).toBe(400);
    for (const token of [w.tokens.owner, w.tokens.physician, w.tokens.external, w.tokens.share]) {
      expect((await get(`/api/administrationbe/institution/${w.institution.id}/hold-rules`, token)).statusCode).toBe(
        403,
      );
    }
    const companyUser = await makeUser(portal.ctx, { type: 'COMPANY', name: 'Other clinic staff' });
    const company = await portal.sessionFor({ role: 'COMPANY', userId: companyUser.id, username: companyUser.email });
    expect((await get(`/api/administrationbe/institution/${w.institution.id}/hold-rules`, company)).statusCode).toBe(
      404,
    );
    const changed = await auditOf('HOLD_RULES_CHANGED');
    expect(changed).toHaveLength(1);
    expect(JSON.parse(changed[0]!.macro!).after).toHaveLength(3);
  });

  it('lists show a held exam with its status and the institution text, and nothing that opens it', async () => {
    const urls: Record<(typeof HELD_VIEWERS)[number], string> = {
      patient: '/api/v2/delivery/dashboard/protocols',
      guest: '/api/v2/delivery/dashboard/protocols',
      share: '/api/v2/delivery/dashboard/protocols',
      external: '/api/v2/delivery/protocols/listedByTags?initialDate=01/11/2026&finalDate=30/11/2026',
    };
    for (const viewer of HELD_VIEWERS) {
      for (const p of PROTOCOLS()) {
        const item = await listed(urls[viewer], tokens[viewer]!, p.protocol.id);
        expect(item, `${viewer} ${p.exams[0]!.type}`).toBeDefined();
        expect(item).toMatchObject({ showAllButton: false, hasImageResolved: false, showHistoricButton: false });
        const [exam] = item!.examList as Array<{ hold: Record<string, unknown> }>;
        expect(exam!.hold, viewer).toMatchObject({ withheld: true, canRelease: false });
      }
    }
    const hivItem = await listed('/api/v2/delivery/dashboard/protocols', tokens.patient!, hiv.protocol.id);
    expect((hivItem!.examList as Array<{ hold: unknown }>)[0]!.hold).toEqual({
      rule: 'PHYSICIAN',
      until: null,
      message: 'Disponível após a sua consulta com o médico.',
      withheld: true,
      canRelease: false,
    });
    const bhcgItem = await listed('/api/v2/delivery/dashboard/protocols', tokens.patient!, bhcg.protocol.id);
    expect((bhcgItem!.examList as Array<{ hold: unknown }>)[0]!.hold).toMatchObject({
      rule: 'HOURS',
      until: '2026-11-22T12:00:00.000Z',
      message: null,
    });
    // The requesting physician's list shows the result and offers the release.
    const mine = await listed(
      '/api/delivery/persistence/protocols/physician?initialDate=01/11/2026&finalDate=30/11/2026',
      tokens.physician!,
      hiv.protocol.id,
    );
    expect(mine).toMatchObject({ hasImageResolved: true });
    expect((mine!.examList as Array<{ hold: unknown }>)[0]!.hold).toMatchObject({ withheld: false, canRelease: true });
  });

  it('details, files, merged reports and DICOM names give a held viewer nothing of the result', async () => {
    for (const viewer of HELD_VIEWERS) {
      for (const p of PROTOCOLS()) {
        const type = p.exams[0]!.type;
        const exam = await examOf(p.protocol.id, tokens[viewer]!);
        expect(exam, `${viewer} ${type}`).toMatchObject({
          resources: [],
          identifierReport: null,
          identifierImage: null,
          hasSignedFile: false,
          hasImageResolved: false,
          dicomStudyUid: null,
          hold: { withheld: true },
        });
        for (const [kind, id] of [
          ['report', ids[`${type}:report`]],
          ['signature', ids[`${type}:report`]],
          ['image', ids[`${type}:image`]],
        ] as const) {
          const res = await get(`/api/v2/delivery/resource/${kind}?resourceId=${id}`, tokens[viewer]!);
          expect(res.statusCode, `${viewer} ${type} ${kind}`).toBe(409);
          expect(res.json().message).toBe(ServerMessage.resultHeld);
        }
        const all = await get(
          `/api/v2/delivery/resource/report?resourceId=${ids[`${type}:report`]}&showAll=true`,
          tokens[viewer]!,
        );
        expect(all.statusCode).toBe(409);
      }
    }
    // The requesting physician opens them all.
    const exam = await examOf(hiv.protocol.id, tokens.physician!);
    expect(exam).toMatchObject({ identifierReport: ids['HIV:report'], hold: { withheld: false, canRelease: true } });
    expect(
      (await get(`/api/v2/delivery/resource/report?resourceId=${ids['HIV:report']}`, tokens.physician!)).statusCode,
    ).toBe(200);
    const inPerson = await examOf(genetic.protocol.id, tokens.physician!);
    expect(inPerson.hold).toMatchObject({ rule: 'IN_PERSON', withheld: false, canRelease: false });
  });

  it('the history gives no value of a held result', async () => {
    const range = 'initialDate=01/06/2026&finalDate=30/11/2026';
    const types = (await get(`/api/delivery/examtypes/range?${range}`, tokens.patient!)).json().data;
    expect(types).toEqual([]);
    const typeId = Buffer.from(JSON.stringify([w.institution.id, 'HIV', 'Sorologia HIV'])).toString('base64url');
    const attributes = await get(
      `/api/delivery/history/attributes?examTypeInstitutionId=${typeId}&${range}`,
      tokens.patient!,
    );
    expect(attributes.json().data).toEqual([]);
    const history = await get(
      `/api/delivery/history?attributeId=HIVAB&examTypeInstitutionId=${typeId}&${range}`,
      tokens.patient!,
    );
    expect(history.json().data).toMatchObject({ rows: [], series: [] });
  });

  it('batch prints and zips leave held reports out for a partner user, not for the requesting physician', async () => {
    // With protocol C of the same tag, whose report is not held.
    const body = { requestIds: [...PROTOCOLS().map((p) => p.protocol.id), w.c.protocol.id], isCompressed: false };
    const external = await call('POST', '/api/v2/delivery/resource/batchPrinting', tokens.external!, body);
    expect(external.statusCode).toBe(200);
    const printed = await PDFDocument.load(external.rawPayload);
    expect(printed.getPages().filter((p) => p.getWidth() === 311)).toHaveLength(0);
    expect(printed.getPageCount()).toBeGreaterThan(0);
    const zip = await call('POST', '/api/v2/delivery/resource/batchPrinting', tokens.external!, {
      ...body,
      isCompressed: true,
    });
    expect(zip.statusCode).toBe(200);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'holds-'));
    try {
      fs.writeFileSync(path.join(tmp, 'out.zip'), zip.rawPayload);
      const names = execFileSync('unzip', ['-Z1', path.join(tmp, 'out.zip')])
        .toString()
        .trim()
        .split('\n');
      expect(names).toEqual([expect.stringMatching(new RegExp(`^${w.c.protocol.number}/`))]);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
    const physician = await call('POST', '/api/v2/delivery/resource/batchPrinting', tokens.physician!, {
      requestIds: PROTOCOLS().map((p) => p.protocol.id),
      isCompressed: false,
    });
    expect(physician.statusCode).toBe(200);
    const doc = await PDFDocument.load(physician.rawPayload);
    expect(doc.getPages().filter((p) => p.getWidth() === 311)).toHaveLength(3);
  });

  it('FHIR reads give a held viewer the report without forms or results', async () => {
    const fhir = (url: string, token: string) =>
      portal.app.inject({ method: 'GET', url, headers: { ...bearer(token), accept: 'application/fhir+json' } });
    for (const viewer of ['patient', 'guest', 'share'] as const) {
      const reports = (await fhir('/api/fhir/R4/DiagnosticReport', tokens[viewer]!)).json() as Bundle;
      const mine = (reports.entry ?? []).map((e) => e.resource as DiagnosticReport);
      expect(mine.length, viewer).toBeGreaterThanOrEqual(3);
      for (const r of mine) {
        expect(r.presentedForm, viewer).toBeUndefined();
        expect(r.result, viewer).toBeUndefined();
      }
      const observations = (await fhir('/api/fhir/R4/Observation', tokens[viewer]!)).json() as Bundle;
      expect(observations.entry ?? [], viewer).toEqual([]);
      const documents = (await fhir('/api/fhir/R4/DocumentReference', tokens[viewer]!)).json() as Bundle;
      expect(documents.entry ?? [], viewer).toEqual([]);
      const binary = await fhir(`/api/fhir/R4/Binary/${ids['HIV:report']}`, tokens[viewer]!);
      expect(binary.statusCode, viewer).toBe(409);
      // An integrator reads the refusal as FHIR does: an OperationOutcome saying why.
      expect(binary.headers['content-type'], viewer).toContain('application/fhir+json');
      expect(binary.json(), viewer).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ severity: 'error' }] });
      const one = await fhir(`/api/fhir/R4/DiagnosticReport/${hiv.exams[0]!.id}`, tokens[viewer]!);
      expect((one.json() as DiagnosticReport).presentedForm).toBeUndefined();
    }
  });

  it('no result-ready mail while held; the hold is traced once', async () => {
    await portal.ctx.db
      .transaction()
      .execute((trx) =>
        notifyExamsChanged(portal.ctx, trx, [...PROTOCOLS().map((p) => p.exams[0]!.id), hiv.exams[0]!.id]),
      );
    await portal.ctx.db.transaction().execute((trx) => notifyExamsChanged(portal.ctx, trx, [hiv.exams[0]!.id]));
    expect(await mailsTo('helena@example.test')).toHaveLength(0);
    const held = await auditOf('RESULT_HELD');
    expect(held.map((h) => JSON.parse(h.resource!).id).sort()).toEqual(
      PROTOCOLS()
        .map((p) => p.exams[0]!.id)
        .sort(),
    );
  });

  it('only the requesting physician releases, once, audited; the patient then sees it and is told', async () => {
    const url = `/api/v2/delivery/exams/${hiv.exams[0]!.id}/release`;
    expect((await call('POST', url, tokens.patient!)).statusCode).toBe(403);
    expect((await call('POST', url, tokens.external!)).statusCode).toBe(403);
    expect((await call('POST', url, tokens.otherPhysician!)).statusCode).toBe(404);
    expect(
      (await call('POST', `/api/v2/delivery/exams/${genetic.exams[0]!.id}/release`, tokens.physician!)).statusCode,
    ).toBe(409);
    // A list answer kept before the release is not served after it.
    await listed('/api/v2/delivery/dashboard/protocols', tokens.patient!, hiv.protocol.id);
    const answers = await Promise.all(Array.from({ length: 30 }, () => call('POST', url, tokens.physician!)));
    const statuses = answers.map((a) => a.statusCode).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s !== 200).every((s) => s === 409)).toBe(true);
    const released = await auditOf('RESULT_RELEASED');
    expect(released).toHaveLength(1);
    expect(released[0]).toMatchObject({
      protocolId: hiv.protocol.id,
      role: 'PHYSICIAN',
      systemUserId: w.users.physician.id,
    });
    expect(await mailsTo('helena@example.test')).toHaveLength(1);

    const item = await listed('/api/v2/delivery/dashboard/protocols', tokens.patient!, hiv.protocol.id);
    expect((item!.examList as Array<{ hold?: unknown }>)[0]!.hold).toBeUndefined();
    const exam = await examOf(hiv.protocol.id, tokens.share!);
    expect(exam).toMatchObject({ identifierReport: ids['HIV:report'], hold: null });
    expect(
      (await get(`/api/v2/delivery/resource/report?resourceId=${ids['HIV:report']}`, tokens.patient!)).statusCode,
    ).toBe(200);
    const range = 'initialDate=01/06/2026&finalDate=30/11/2026';
    expect((await get(`/api/delivery/examtypes/range?${range}`, tokens.patient!)).json().data).toEqual([
      { id: expect.any(String), name: 'Sorologia HIV' },
    ]);
  });

  it('a hold of N hours ends by itself: lists kept from before follow, and the notice is sent then', async () => {
    await moveClockTo('2026-11-22T11:58:00.000Z');
    await listed('/api/v2/delivery/dashboard/protocols', tokens.patient!, bhcg.protocol.id);
    portal.clock.set('2026-11-22T11:59:00.000Z');
    const still = await listed('/api/v2/delivery/dashboard/protocols', tokens.patient!, bhcg.protocol.id);
    expect((still!.examList as Array<{ hold?: unknown }>)[0]!.hold).toMatchObject({ withheld: true });
    await runDigests(portal.ctx);
    expect(await mailsTo('helena@example.test')).toHaveLength(1);
    portal.clock.set('2026-11-22T12:00:00.000Z');
    const over = await listed('/api/v2/delivery/dashboard/protocols', tokens.patient!, bhcg.protocol.id);
    expect((over!.examList as Array<{ hold?: unknown }>)[0]!.hold).toBeUndefined();
    expect(
      (await get(`/api/v2/delivery/resource/report?resourceId=${ids['BHCG:report']}`, tokens.guest!)).statusCode,
    ).toBe(200);
    await runDigests(portal.ctx);
    expect(await mailsTo('helena@example.test')).toHaveLength(2);
    // In person stays held for good.
    await moveClockTo('2027-06-01T12:00:00.000Z');
    expect((await examOf(genetic.protocol.id, tokens.patient!)).hold).toMatchObject({
      rule: 'IN_PERSON',
      withheld: true,
    });
  });

  it('removing a rule lifts its hold at once', async () => {
    expect((await setRules([])).statusCode).toBe(200);
    expect((await examOf(genetic.protocol.id, tokens.patient!)).identifierReport).toBe(ids['GENETICA:report']);
  });
});
