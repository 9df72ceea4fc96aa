import { PDFDocument } from 'pdf-lib';
import { zProtocolPage } from '@portal/shared/schemas/delivery';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import {
  makeProtocol,
  makeResource,
  makeShare,
  makeUser,
  makeVisualizerSettings,
  makeWorld,
  pdfBytes,
} from './test-factories.js';

type World = Awaited<ReturnType<typeof makeWorld>>;
type Caller = keyof World['tokens'] | 'anonymous';
const CALLERS: Caller[] = [
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
  'anonymous',
];

describe('results delivery: lists, details and files', () => {
  let portal: TestPortal;
  let w: World;
  const get = (url: string, caller: Caller, headers: Record<string, string> = {}) =>
    portal.app.inject({
      method: 'GET',
      url,
      headers: { ...headers, ...(caller === 'anonymous' ? {} : bearer(w.tokens[caller])) },
    });
  const auditCount = async (event: string) =>
    Number(
      (
        await portal.ctx.db
          .selectFrom('auditEvents')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('event', '=', event)
          .executeTakeFirstOrThrow()
      ).n,
    );

  beforeAll(async () => {
    portal = await startTestPortal();
    w = await makeWorld(portal.ctx, (i) => portal.sessionFor(i));
  });
  afterAll(async () => portal?.destroy());

  it('lets each caller reach only its own protocols on the patient and guest dashboard', async () => {
    const expected: Record<Caller, number | string[]> = {
      owner: [w.a.protocol.number],
      otherPatient: [w.b.protocol.number],
      guestA: [w.a.protocol.number],
      guestB: [w.b.protocol.number],
      share: [w.a.protocol.number],
      physician: 403,
      otherPhysician: 403,
      external: 403,
      otherExternal: 403,
      admin: 403,
      anonymous: 401,
    };
    for (const caller of CALLERS) {
      const res = await get('/api/v2/delivery/dashboard/protocols', caller);
      const want = expected[caller];
      if (typeof want === 'number') {
        expect(res.statusCode, caller).toBe(want);
      } else {
        expect(res.statusCode, caller).toBe(200);
        expect(
          res.json().data.items.map((p: { number: string }) => p.number),
          caller,
        ).toEqual(want);
      }
    }
  });

  it('answers the spec 3 protocol fields, paged', async () => {
    const res = await get('/api/v2/delivery/dashboard/protocols?page=1&size=500', 'owner');
    const body = res.json().data;
    expect(body).toMatchObject({ total: 1, page: 1, size: 100 });
    const item = body.items[0];
    expect(item).toMatchObject({
      requestId: w.a.protocol.id,
      number: w.a.protocol.number,
      requestedAtFormated: '18/11/2026',
      institution: { id: w.institution.id, name: 'Clinica Alfa', token: w.institution.token },
      patient: { name: 'Ana Owner', birthDate: '1980-01-02' },
      hasPatientUser: true,
      hasImageResolved: true,
      showHistoricButton: true,
      protocolRead: false,
      allExamsRead: false,
      hasTag: false,
      examsIds: w.a.exams.map((e) => e.id),
    });
    expect(item.exams).toBeUndefined();
  });

  it('answers every list exactly in the shared page schema, with no stray fields', async () => {
    const calls: Array<[string, Caller]> = [
      ['/api/v2/delivery/dashboard/protocols', 'owner'],
      ['/api/v2/delivery/dashboard/protocols', 'guestA'],
      ['/api/v2/delivery/dashboard/protocols', 'share'],
      ['/api/v2/delivery/protocols/exams', 'guestA'],
      ['/api/delivery/persistence/protocols/physician', 'physician'],
      ['/api/delivery/persistence/protocols/all', 'physician'],
      ['/api/v2/delivery/protocols/listedByTags', 'external'],
      ['/api/delivery/persistence/dashboard/protocols/patient/byTotal?total=5', 'owner'],
    ];
    for (const [url, caller] of calls) {
      const res = await get(url, caller);
      expect(res.statusCode, url).toBe(200);
      // Parsing drops unknown keys, so an answer equal to its parse has no stray fields either.
      const parsed = zProtocolPage.safeParse(res.json());
      expect(parsed.error, `${url} as ${caller}`).toBeUndefined();
      expect(parsed.data, `${url} as ${caller}`).toEqual(res.json());
      expect(res.json().data.items.length, `${url} as ${caller}`).toBeGreaterThan(0);
    }
  });

  it('keeps the list flags in step with resources and results written or removed later', async () => {
    const d = await makeProtocol(portal.ctx, {
      institutionId: w.institution.id,
      patientUserId: w.users.owner.id,
      number: 'FLAGS-1',
      exams: [{ description: 'Tomografia' }, { description: 'Glicose' }],
    });
    const [first, second] = d.exams as [(typeof d.exams)[number], (typeof d.exams)[number]];
    const item = async () =>
      (await get('/api/v2/delivery/dashboard/protocols?page=1&size=100', 'owner'))
        .json()
        .data.items.find((p: { number: string }) => p.number === 'FLAGS-1');
    const flags = async () => {
      const { hasImageResolved, showAllButton, showHistoricButton } = await item();
      return { hasImageResolved, showAllButton, showHistoricButton };
    };
    expect(await flags()).toEqual({ hasImageResolved: false, showAllButton: false, showHistoricButton: false });

    const image = await makeResource(portal.ctx, { examId: first.id, type: 'IMAGE', bytes: Buffer.from('img') });
    await makeResource(portal.ctx, { examId: first.id, type: 'REPORT', bytes: await pdfBytes('first') });
    await makeResource(portal.ctx, { examId: second.id, type: 'REPORT_PHYSICIAN', bytes: await pdfBytes('second') });
    await portal.ctx.db
      .insertInto('analytes')
      .values({
        id: `${second.id}-glu`,
        examId: second.id,
        code: 'GLU',
        name: 'Glicose',
        unit: 'mg/dL',
        value: '90',
        valueNumber: 90,
        referenceMin: 70,
        referenceMax: 99,
        referenceText: null,
        position: 0,
      })
      .execute();
    expect(await flags()).toEqual({ hasImageResolved: true, showAllButton: true, showHistoricButton: true });

    await portal.ctx.db.deleteFrom('resources').where('id', '=', image.id).execute();
    await portal.ctx.db.updateTable('resources').set({ type: 'ANALYSIS' }).where('examId', '=', second.id).execute();
    await portal.ctx.db.deleteFrom('analytes').where('examId', '=', second.id).execute();
    expect(await flags()).toEqual({ hasImageResolved: false, showAllButton: false, showHistoricButton: false });
    await portal.ctx.db.updateTable('protocols').set({ disabled: 1 }).where('id', '=', d.protocol.id).execute();
  });

  it('lists physician protocols by requester license and external protocols by tag', async () => {
    const mine = await get('/api/delivery/persistence/protocols/physician', 'physician');
    expect(mine.json().data.items.map((p: { number: string }) => p.number)).toEqual([w.a.protocol.number]);
    const none = await get('/api/delivery/persistence/protocols/all', 'otherPhysician');
    expect(none.json().data).toMatchObject({ items: [], total: 0, size: 10 });
    expect((await get('/api/delivery/persistence/protocols/physician', 'owner')).statusCode).toBe(403);

    const ext = await get('/api/v2/delivery/protocols/listedByTags', 'external');
    expect(ext.json().data.size).toBe(50);
    expect(ext.json().data.items).toEqual([
      expect.objectContaining({
        number: w.c.protocol.number,
        patientName: 'Caio Tagged',
        institutionName: 'Clinica Alfa',
        institutionToken: w.institution.token,
        tagID: w.tag.id,
        hasTag: true,
      }),
    ]);
    expect((await get('/api/v2/delivery/protocols/listedByTags', 'otherExternal')).json().data.total).toBe(0);
    // A physician's list by tags holds his groups' protocols only: not those his license opens.
    expect((await get('/api/v2/delivery/protocols/listedByTags', 'physician')).json().data.total).toBe(0);
  });

  it('pages a physician list newest first with the exact total', async () => {
    const doctor = await makeUser(portal.ctx, {
      type: 'PHYSICIAN',
      name: 'Dr Paged',
      crm: '777',
      uf: 'MG',
      vouchedBy: [w.institution.id],
    });
    const token = await portal.sessionFor({ role: 'PHYSICIAN', userId: doctor.id, username: doctor.email });
    for (const [number, day] of [
      ['PAGED-1', '2026-11-10'],
      ['PAGED-3', '2026-11-16'],
      ['PAGED-2', '2026-11-12'],
    ] as const) {
      await makeProtocol(portal.ctx, {
        institutionId: w.institution.id,
        number,
        requestedAt: `${day}T12:00:00.000Z`,
        exams: [{ description: 'Eco', requester: { crm: '777', uf: 'MG' } }],
      });
    }
    const page = async (n: number) =>
      (
        await portal.app.inject({
          method: 'GET',
          url: `/api/delivery/persistence/protocols/physician?initialDate=01/11/2026&finalDate=20/11/2026&size=2&page=${n}`,
          headers: bearer(token),
        })
      ).json().data;
    const first = await page(1);
    expect(first.items.map((p: { number: string }) => p.number)).toEqual(['PAGED-3', 'PAGED-2']);
    expect(first.total).toBe(3);
    const second = await page(2);
    expect(second.items.map((p: { number: string }) => p.number)).toEqual(['PAGED-1']);
    expect(second.total).toBe(3);
  });

  it('filters by date range, text and read state, and falls back to the latest protocols', async () => {
    const old = await makeProtocol(portal.ctx, {
      institutionId: w.institution.id,
      patientUserId: w.users.owner.id,
      requestedAt: '2025-01-10T12:00:00.000Z',
      exams: [{ description: 'Glicemia de jejum' }],
    });
    const numbers = async (query: string) =>
      (await get(`/api/v2/delivery/dashboard/protocols?${query}`, 'owner'))
        .json()
        .data.items.map((p: { number: string }) => p.number);
    expect(await numbers('')).toEqual([w.a.protocol.number]);
    expect(await numbers('initialDate=01/01/2025&finalDate=31/12/2026')).toEqual([
      w.a.protocol.number,
      old.protocol.number,
    ]);
    expect(await numbers('initialDate=10/01/2025&finalDate=10/01/2025')).toEqual([old.protocol.number]);
    expect(await numbers('initialDate=01/01/2025&finalDate=31/12/2026&search=GLICEMIA')).toEqual([old.protocol.number]);
    expect(await numbers(`initialDate=01/01/2025&finalDate=31/12/2026&search=${w.a.protocol.number}`)).toEqual([
      w.a.protocol.number,
    ]);
    expect(await numbers('initialDate=01/01/2025&finalDate=31/12/2026&read=read')).toEqual([]);
    expect(await numbers('initialDate=01/01/2025&finalDate=31/12/2026&read=unread')).toHaveLength(2);
    expect(await numbers('initialDate=01/01/2020&finalDate=02/01/2020')).toEqual([]);
    expect(await numbers('initialDate=01/01/2020&finalDate=02/01/2020&forceRefresh=true')).toEqual([
      w.a.protocol.number,
      old.protocol.number,
    ]);
    const top = await get('/api/delivery/persistence/dashboard/protocols/patient/byTotal?total=1', 'owner');
    expect(top.json().data.items.map((p: { number: string }) => p.number)).toEqual([w.a.protocol.number]);
    expect((await get('/api/v2/delivery/dashboard/protocols?initialDate=31/02/2026', 'owner')).statusCode).toBe(400);
    await portal.ctx.db.updateTable('protocols').set({ disabled: 1 }).where('id', '=', old.protocol.id).execute();
    expect(await numbers('initialDate=01/01/2025&finalDate=31/12/2026')).toEqual([w.a.protocol.number]);
  });

  it('serves protocol details only to those who may see them, and traces the view', async () => {
    const expected: Record<Caller, number> = {
      owner: 200,
      physician: 200,
      guestA: 200,
      share: 200,
      otherPatient: 404,
      otherPhysician: 404,
      external: 404,
      otherExternal: 404,
      guestB: 404,
      admin: 403,
      anonymous: 401,
    };
    const before = await auditCount('VIEW_PROTOCOL');
    for (const caller of CALLERS) {
      const byId = await get(`/api/delivery/persistence/dashboard/protocol/byId?id=${w.a.protocol.id}`, caller);
      expect(byId.statusCode, caller).toBe(expected[caller]);
      const exams = await get(`/api/v2/delivery/dashboard/protocols/exams?request=${w.a.protocol.id}`, caller);
      expect(exams.statusCode, caller).toBe(expected[caller]);
      const v1 = await get(`/api/delivery/persistence/exams?byId=${w.a.protocol.id}`, caller);
      expect(v1.statusCode, caller).toBe(expected[caller]);
    }
    expect(await auditCount('VIEW_PROTOCOL')).toBe(before + 4 * 3);
    const missing = await get('/api/delivery/persistence/dashboard/protocol/byId?id=nope', 'owner');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ message: 'Not found.' });
  });

  it('answers the spec 3 exam fields with the server resource ids', async () => {
    const res = await get(`/api/v2/delivery/dashboard/protocols/exams?request=${w.a.protocol.id}`, 'owner');
    const [hemo, xray] = res.json().data;
    expect(hemo).toMatchObject({
      id: w.a.exams[0]!.id,
      description: 'Hemograma completo',
      modality: { name: 'Laboratory' },
      requester: { identifier: 'R-12345', name: 'Dr. Who' },
      resources: [{ type: 'REPORT', identifier: w.resources.reportA.id, hasSignedFile: true }],
      identifierReport: w.resources.reportA.id,
      identifierImage: null,
      examRead: false,
      status: 'RELEASED',
      statusCode: 'L',
      hasSignedFile: true,
      isEnabled: true,
      hideImageButtonExam: false,
    });
    expect(xray).toMatchObject({ identifierImage: w.resources.imageA.id, hasImageResolved: true });
  });

  it('streams files only to those who may see them', async () => {
    const expected: Record<Caller, number> = {
      owner: 200,
      physician: 200,
      guestA: 200,
      share: 200,
      otherPatient: 404,
      otherPhysician: 404,
      external: 404,
      otherExternal: 404,
      guestB: 404,
      admin: 403,
      anonymous: 401,
    };
    for (const caller of CALLERS) {
      for (const url of [
        `/api/v2/delivery/resource/report?resourceId=${w.resources.reportA.id}`,
        `/api/v2/delivery/resource/image?resourceId=${w.resources.imageA.id}`,
        `/api/v2/delivery/resource/signature?resourceId=${w.resources.reportA.id}`,
      ]) {
        expect((await get(url, caller)).statusCode, `${caller} ${url}`).toBe(expected[caller]);
      }
    }
  });

  it('sends a real PDF, image and signature with Range support, never cached', async () => {
    const report = await get(`/api/v2/delivery/resource/report?resourceId=${w.resources.reportA.id}`, 'physician');
    expect(report.headers['content-type']).toBe('application/pdf');
    expect(report.headers['cache-control']).toBe('no-store');
    expect((await PDFDocument.load(report.rawPayload)).getPageCount()).toBe(2);
    const part = await get(`/api/v2/delivery/resource/report?resourceId=${w.resources.reportA.id}`, 'physician', {
      range: 'bytes=0-7',
    });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 0-7/${report.rawPayload.length}`);
    expect(part.rawPayload.toString('latin1')).toBe('%PDF-1.7');
    const image = await get(`/api/v2/delivery/resource/image?resourceId=${w.resources.imageA.id}`, 'physician');
    expect(image.headers['content-type']).toBe('image/png');
    expect(image.rawPayload.subarray(1, 4).toString()).toBe('PNG');
    const signature = await get(
      `/api/v2/delivery/resource/signature?resourceId=${w.resources.reportA.id}`,
      'physician',
    );
    expect(signature.headers['content-disposition']).toMatch(
      /^attachment; filename="[^"]+ - Hemograma completo - \d{4}-\d{2}-\d{2} - assinado\.p7s"$/,
    );
    expect(signature.rawPayload.toString()).toBe('signed-bytes');
    const wrongKind = await get(`/api/v2/delivery/resource/image?resourceId=${w.resources.reportA.id}`, 'owner');
    expect(wrongKind.statusCode).toBe(404);
  });

  it('names a downloaded file for people, in UTF-8 with an ASCII fallback: "João" and "São Paulo" survive', async () => {
    const exam = w.a.exams[0]!;
    const saved = await portal.ctx.db
      .selectFrom('exams')
      .select(['description', 'performedAt'])
      .where('id', '=', exam.id)
      .executeTakeFirstOrThrow();
    await portal.ctx.db
      .updateTable('exams')
      .set({ description: 'Ultrassom "Dr. João" / São Paulo', performedAt: '2026-11-20T02:30:00.000Z' })
      .where('id', '=', exam.id)
      .execute();
    try {
      const nameOf = (disposition: string) => {
        const m = /^attachment; filename="([\x20-\x7e]+)"; filename\*=UTF-8''([A-Za-z0-9!#$&+.^_`|~%-]+)$/.exec(
          disposition,
        );
        expect(m, disposition).not.toBeNull();
        return { ascii: m![1]!, exact: decodeURIComponent(m![2]!) };
      };
      const number = w.a.protocol.number;
      const report = await get(`/api/v2/delivery/resource/report?resourceId=${w.resources.reportA.id}`, 'owner');
      // The exam's date in Brazil's time; what file systems refuse (`"`, `/`) becomes a space.
      expect(nameOf(report.headers['content-disposition'] as string)).toEqual({
        exact: `${number} - Ultrassom Dr. João São Paulo - 2026-11-19.pdf`,
        ascii: `${number} - Ultrassom Dr. Joao Sao Paulo - 2026-11-19.pdf`,
      });
      const signature = await get(`/api/v2/delivery/resource/signature?resourceId=${w.resources.reportA.id}`, 'owner', {
        'accept-language': 'en',
      });
      expect(nameOf(signature.headers['content-disposition'] as string).exact).toBe(
        `${number} - Ultrassom Dr. João São Paulo - 2026-11-19 - signed.p7s`,
      );
      const all = await get(
        `/api/v2/delivery/resource/report?resourceId=${w.resources.reportA.id}&showAll=true`,
        'owner',
        { 'accept-language': 'es' },
      );
      expect(all.headers['content-disposition']).toBe(`attachment; filename="${number} - informes.pdf"`);
    } finally {
      await portal.ctx.db.updateTable('exams').set(saved).where('id', '=', exam.id).execute();
    }
  });

  it('gives a guest of a protocol with no account its own read marks, and a protocol without enabled exams its frame', async () => {
    const { protocol, exams } = await makeProtocol(portal.ctx, {
      institutionId: w.institution.id,
      patientUserId: null,
      exams: [
        { description: 'Ureia', type: 'LAB' },
        { description: 'Creatinina', type: 'LAB' },
      ],
    });
    const report = await makeResource(portal.ctx, {
      examId: exams[0]!.id,
      type: 'REPORT',
      bytes: await pdfBytes('Ureia'),
    });
    const guest = await portal.sessionFor({ role: 'GUEST', username: protocol.number, protocolIds: [protocol.id] });
    const detail = async (token: string, id: string) =>
      portal.app.inject({
        method: 'GET',
        url: `/api/delivery/persistence/dashboard/protocol/byId?id=${id}`,
        headers: bearer(token),
      });
    const readState = async () =>
      (await detail(guest, protocol.id)).json().data.examList.map((e: { examRead: boolean }) => e.examRead);
    expect(await readState()).toEqual([false, false]);
    const opened = await portal.app.inject({
      method: 'GET',
      url: `/api/v2/delivery/resource/report?resourceId=${report.id}`,
      headers: bearer(guest),
    });
    expect(opened.statusCode).toBe(200);
    // No account is linked: the guest's mark is the protocol's own.
    expect(await readState()).toEqual([true, false]);
    const marks = await portal.ctx.db
      .selectFrom('examReads')
      .select('viewerKey')
      .where('examId', '=', exams[0]!.id)
      .execute();
    expect(marks.map((m) => m.viewerKey)).toEqual([`protocol:${protocol.id}`]);

    // Every exam switched off: the protocol still opens, with no exam.
    await portal.ctx.db.updateTable('exams').set({ isEnabled: 0 }).where('protocolId', '=', protocol.id).execute();
    const empty = await detail(guest, protocol.id);
    expect(empty.statusCode).toBe(200);
    expect(empty.json().data).toMatchObject({ requestId: protocol.id, examList: [] });
  });

  it('keeps read state per viewer: guests read as the patient, shares change nothing', async () => {
    const { a } = await makeFreshProtocol();
    const readWith = async (token: string) =>
      (
        await portal.app.inject({
          method: 'GET',
          url: `/api/v2/delivery/dashboard/protocols/exams?request=${a.protocol.id}`,
          headers: bearer(token),
        })
      )
        .json()
        .data.map((e: { examRead: boolean }) => e.examRead);
    const readOf = (caller: Exclude<Caller, 'anonymous'>) => readWith(w.tokens[caller]);
    const share = await makeShare(portal.ctx, w.users.owner.id, [a.protocol.id], (i) => portal.sessionFor(i));
    const guest = await portal.sessionFor({ role: 'GUEST', username: a.protocol.number, protocolIds: [a.protocol.id] });
    const report = a.resources[0]!;
    const before = await auditCount('VIEW_REPORT');
    await portal.app.inject({
      method: 'GET',
      url: `/api/v2/delivery/resource/report?resourceId=${report.id}`,
      headers: bearer(share.token),
    });
    expect(await readOf('owner')).toEqual([false, false]);
    const shareRow = await portal.ctx.db
      .selectFrom('shares')
      .select('email')
      .where('id', '=', share.id)
      .executeTakeFirstOrThrow();
    const shareAudit = await portal.ctx.db
      .selectFrom('auditEvents')
      .selectAll()
      .where('event', '=', 'VIEW_REPORT')
      .where('protocolId', '=', a.protocol.id)
      .executeTakeFirstOrThrow();
    expect(shareAudit).toMatchObject({ role: 'SHARE', sharedWith: shareRow.email });
    await portal.app.inject({
      method: 'GET',
      url: `/api/v2/delivery/resource/report?resourceId=${report.id}`,
      headers: bearer(guest),
    });
    expect(await readOf('owner')).toEqual([true, false]);
    expect(await readOf('physician')).toEqual([false, false]);
    // The protocol's detail shows the guest the patient's marks, and a share none.
    expect(await readWith(guest)).toEqual([true, false]);
    expect(await readWith(share.token)).toEqual([false, false]);
    const reads = await portal.ctx.db
      .selectFrom('examReads')
      .selectAll()
      .where('examId', '=', a.exams[0]!.id)
      .execute();
    expect(reads.map((r) => r.viewerKey)).toEqual([w.users.owner.id]);
    await get(`/api/v2/delivery/resource/report?resourceId=${report.id}&showAll=true`, 'physician');
    expect(await readOf('physician')).toEqual([true, true]);
    expect(await auditCount('VIEW_REPORT')).toBe(before + 3);
    const audit = await portal.ctx.db
      .selectFrom('auditEvents')
      .selectAll()
      .where('event', '=', 'VIEW_REPORT')
      .where('systemUserId', '=', w.users.physician.id)
      .where('protocolId', '=', a.protocol.id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(audit.patients ?? '[]')[0].name).toBe('Ana Owner');
    expect(JSON.parse(audit.resource ?? '{}').resources).toHaveLength(2);
    expect(audit.role).toBe('PHYSICIAN');
  });

  it('merges every report of a protocol with showAll and withholds reports awaiting rectification', async () => {
    const { a } = await makeFreshProtocol();
    const all = await get(`/api/v2/delivery/resource/report?resourceId=${a.resources[0]!.id}&showAll=true`, 'owner');
    expect(all.statusCode).toBe(200);
    expect((await PDFDocument.load(all.rawPayload)).getPageCount()).toBe(1 + 3);
    await portal.ctx.db
      .updateTable('exams')
      .set({ rectificationStatus: 'PENDING' })
      .where('id', '=', a.exams[1]!.id)
      .execute();
    const pending = await get(`/api/v2/delivery/resource/report?resourceId=${a.resources[1]!.id}`, 'owner');
    expect(pending.statusCode).toBe(409);
    expect(pending.json()).toEqual({ message: 'The report is awaiting rectification!' });
    const detail = await get(`/api/v2/delivery/dashboard/protocols/exams?request=${a.protocol.id}`, 'owner');
    expect(detail.json().data[1]).toMatchObject({
      rectificationStatus: 'PENDING',
      identifierReport: null,
      resources: [{ type: 'IMAGE' }],
    });
    const rest = await get(`/api/v2/delivery/resource/report?resourceId=${a.resources[0]!.id}&showAll=true`, 'owner');
    expect((await PDFDocument.load(rest.rawPayload)).getPageCount()).toBe(1);
  });

  it('honours the institution visualizer settings and disabled exams', async () => {
    const { a } = await makeFreshProtocol();
    await makeVisualizerSettings(portal.ctx, w.institution.id, [
      { type: 'XRAY', hideButton: true },
      { type: 'LAB', enable: false },
    ]);
    try {
      const exams = (await get(`/api/v2/delivery/dashboard/protocols/exams?request=${a.protocol.id}`, 'owner')).json()
        .data;
      expect(exams).toHaveLength(1);
      expect(exams[0]).toMatchObject({ type: 'XRAY', hideImageButtonExam: true, identifierImage: null });
      expect((await get(`/api/v2/delivery/resource/report?resourceId=${a.resources[0]!.id}`, 'owner')).statusCode).toBe(
        404,
      );
    } finally {
      await portal.ctx.db.deleteFrom('visualizerSettings').execute();
    }
    await portal.ctx.db.updateTable('exams').set({ isEnabled: 0 }).where('id', '=', a.exams[0]!.id).execute();
    expect((await get(`/api/v2/delivery/resource/report?resourceId=${a.resources[0]!.id}`, 'owner')).statusCode).toBe(
      404,
    );
  });

  it('lists each protocol with its own exams, read marks and visualizer settings', async () => {
    const { a } = await makeFreshProtocol();
    const item = async () => {
      const page = await get(
        '/api/v2/delivery/dashboard/protocols?initialDate=01/01/2025&finalDate=31/12/2026&size=50',
        'owner',
      );
      return page.json().data.items.find((i: { requestId: string }) => i.requestId === a.protocol.id);
    };
    expect(await item()).toMatchObject({
      examsIds: [a.exams[0]!.id, a.exams[1]!.id],
      hasImageResolved: true,
      allExamsRead: false,
    });
    await get(`/api/v2/delivery/resource/report?resourceId=${a.resources[0]!.id}`, 'owner');
    expect((await item()).allExamsRead).toBe(false);
    await get(`/api/v2/delivery/resource/report?resourceId=${a.resources[1]!.id}`, 'owner');
    expect((await item()).allExamsRead).toBe(true);
    await makeVisualizerSettings(portal.ctx, w.institution.id, [{ type: 'LAB', enable: false }]);
    try {
      expect((await item()).examsIds).toEqual([a.exams[1]!.id]);
    } finally {
      await portal.ctx.db.deleteFrom('visualizerSettings').execute();
    }
  });

  it('refuses a share session once revoked, with the expired message', async () => {
    const share = await makeShare(portal.ctx, w.users.owner.id, [w.a.protocol.id], (i) => portal.sessionFor(i));
    const url = `/api/v2/delivery/resource/report?resourceId=${w.resources.reportA.id}`;
    expect((await portal.app.inject({ method: 'GET', url, headers: bearer(share.token) })).statusCode).toBe(200);
    await share.revoke();
    for (const u of [
      url,
      '/api/v2/delivery/dashboard/protocols',
      `/api/delivery/persistence/exams?byId=${w.a.protocol.id}`,
    ]) {
      const res = await portal.app.inject({ method: 'GET', url: u, headers: bearer(share.token) });
      expect(res.statusCode).toBe(401);
      expect(res.json().message).toContain('is expired!');
    }
  });

  /** A protocol of the owner, requested by the physician: a LAB exam (1-page report) and an XRAY one (3 pages + image). */
  async function makeFreshProtocol() {
    const a = await makeProtocol(portal.ctx, {
      institutionId: w.institution.id,
      patientUserId: w.users.owner.id,
      patientName: 'Ana Owner',
      exams: [
        { description: 'TSH', type: 'LAB', requester: { crm: '12345', uf: 'SP' }, performedAt: '2026-11-18T10:00:00Z' },
        {
          description: 'Torax',
          type: 'XRAY',
          requester: { crm: '12345', uf: 'SP' },
          performedAt: '2026-11-18T11:00:00Z',
        },
      ],
    });
    const resources = [
      await makeResource(portal.ctx, { examId: a.exams[0]!.id, type: 'REPORT', bytes: await pdfBytes('TSH') }),
      await makeResource(portal.ctx, { examId: a.exams[1]!.id, type: 'REPORT', bytes: await pdfBytes('Torax', 3) }),
      await makeResource(portal.ctx, { examId: a.exams[1]!.id, type: 'IMAGE', bytes: Buffer.from('not-really') }),
    ];
    return { a: { ...a, resources } };
  }
});
