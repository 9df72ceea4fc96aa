import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccessItem } from '@portal/shared/schemas/access-log';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { hashPassword } from '../../lib/passwords.js';
import {
  type makeInstitution,
  type makeProtocol,
  makeResource,
  makeShare,
  makeTag,
  makeUser,
  pngBytes,
} from '../delivery/test-factories.js';
import { makeAccessWorld, REQUESTER } from '../../test/access-world.js';

/**
 * "Who saw my results": every role's access to a patient's protocol shows in the patient's own
 * log in the right words; patient A never sees patient B's accesses; staff are named only when
 * their institution says so; the CSV holds the same rows.
 */
describe('who saw my results', () => {
  let portal: TestPortal;
  let institution: Awaited<ReturnType<typeof makeInstitution>>;
  let owner: Awaited<ReturnType<typeof makeUser>>;
  let otherPatient: Awaited<ReturnType<typeof makeUser>>;
  let a: Awaited<ReturnType<typeof makeProtocol>>;
  let a2: Awaited<ReturnType<typeof makeProtocol>>;
  let b: Awaited<ReturnType<typeof makeProtocol>>;
  let share: Awaited<ReturnType<typeof makeShare>>;
  const tokens: Record<string, string> = {};

  const get = (token: string | null, url: string) =>
    portal.app.inject({ method: 'GET', url, headers: token ? bearer(token) : {} });
  const accesses = async (token: string, userId: string, query = '') => {
    const res = await get(token, `/api/auth/patient/${userId}/accesses${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as { items: AccessItem[]; total: number; page: number; size: number };
  };
  const at = (iso: string) => portal.clock.set(iso);

  beforeAll(async () => {
    portal = await startTestPortal();
    const ctx = portal.ctx;
    let external!: Awaited<ReturnType<typeof makeUser>>;
    let company!: Awaited<ReturnType<typeof makeUser>>;
    let admin!: Awaited<ReturnType<typeof makeUser>>;
    const world = await makeAccessWorld(portal, {
      institution: 'Laboratório Alfa',
      owner: { name: 'Ana Dona', email: 'ana@example.test' },
      otherPatient: { name: 'Otto Outro', email: 'otto@example.test' },
      physician: { uf: 'sp' },
      beforeProtocols: async (institutionId) => {
        external = await makeUser(ctx, { type: 'EXTERNAL', name: 'Eva Parceira' });
        company = await makeUser(ctx, { type: 'COMPANY', name: 'Carla Recepção', institutionId });
        admin = await makeUser(ctx, { type: 'ADMIN', name: 'Otávio Operador' });
        return { tagId: (await makeTag(ctx, institutionId, [external.id], 'Convênio Sul')).id };
      },
      examsOfA: [
        { description: 'Hemograma completo', requester: REQUESTER },
        { description: 'Raio X de tórax', type: 'XRAY', requester: REQUESTER },
      ],
    });
    ({ institution, owner, otherPatient, a, a2, b } = world);
    const { reportA: report, reportB } = world;
    const image = await makeResource(ctx, { examId: a.exams[1]!.id, type: 'IMAGE', bytes: pngBytes() });
    await ctx.db
      .updateTable('protocols')
      .set({ passwordHash: await hashPassword('segredo1') })
      .where('id', '=', a.protocol.id)
      .execute();
    share = await makeShare(ctx, owner.id, [a.protocol.id], (i) => portal.sessionFor(i));
    Object.assign(tokens, {
      owner: await world.asOwner(),
      otherPatient: await world.asOtherPatient(),
      physician: await world.asPhysician(),
      external: await portal.sessionFor({ role: 'EXTERNAL', userId: external.id, username: external.email }),
      company: await portal.sessionFor({
        role: 'COMPANY',
        userId: company.id,
        username: company.email,
        appKey: 'admin',
      }),
      admin: await portal.sessionFor({ role: 'ADMIN', userId: admin.id, username: admin.email, appKey: 'admin' }),
      guest: await portal.sessionFor({ role: 'GUEST', username: a.protocol.number, protocolIds: [a.protocol.id] }),
    });

    // One access of each kind, on distinct minutes of 20/11/2026 (Brasília time is UTC-3).
    const byId = (id: string) => `/api/delivery/persistence/dashboard/protocol/byId?id=${id}`;
    const steps: Array<[string, () => Promise<{ statusCode: number; body: string }>]> = [
      ['2026-11-20T12:00:00.000Z', () => get(tokens.owner!, byId(a.protocol.id))],
      [
        '2026-11-20T12:01:00.000Z',
        () => get(tokens.physician!, `/api/v2/delivery/resource/report?resourceId=${report.id}`),
      ],
      [
        '2026-11-20T12:02:00.000Z',
        () => get(tokens.external!, `/api/v2/delivery/resource/image?resourceId=${image.id}`),
      ],
      ['2026-11-20T12:03:00.000Z', () => get(share.token, '/api/v2/auth/validate')],
      [
        '2026-11-20T12:04:00.000Z',
        () =>
          portal.app.inject({
            method: 'POST',
            url: '/api/v2/auth/login',
            payload: { userName: a.protocol.number, password: 'segredo1', appKey: 'login' },
          }),
      ],
      ['2026-11-20T12:05:00.000Z', () => get(tokens.company!, `/api/administrationbe/protocols/${a.protocol.id}`)],
      [
        '2026-11-20T12:06:00.000Z',
        () => get(tokens.physician!, `/api/v2/delivery/resource/signature?resourceId=${report.id}`),
      ],
      [
        '2026-11-20T12:07:00.000Z',
        () =>
          portal.app.inject({
            method: 'POST',
            url: '/api/v2/delivery/resource/batchPrinting',
            headers: bearer(tokens.physician!),
            payload: { requestIds: [a.protocol.id] },
          }),
      ],
      ['2026-11-20T12:08:00.000Z', () => get(tokens.admin!, `/api/administrationbe/protocols/${a.protocol.id}`)],
      ['2026-11-20T12:09:00.000Z', () => get(tokens.guest!, byId(a.protocol.id))],
      // Another day: the owner's second protocol, and the other patient's protocol seen by the same physician.
      ['2026-11-25T15:00:00.000Z', () => get(tokens.owner!, byId(a2.protocol.id))],
      ['2026-11-25T15:01:00.000Z', () => get(tokens.otherPatient!, byId(b.protocol.id))],
      [
        '2026-11-25T15:02:00.000Z',
        () => get(tokens.physician!, `/api/v2/delivery/resource/report?resourceId=${reportB.id}`),
      ],
    ];
    const signIn = async () => {
      tokens.owner = await world.asOwner();
      tokens.otherPatient = await world.asOtherPatient();
      tokens.admin = await portal.sessionFor({
        role: 'ADMIN',
        userId: admin.id,
        username: admin.email,
        appKey: 'admin',
      });
      tokens.physician = await world.asPhysician();
      tokens.guest = await portal.sessionFor({
        role: 'GUEST',
        username: a.protocol.number,
        protocolIds: [a.protocol.id],
      });
      tokens.share = await portal.sessionFor({
        role: 'SHARE',
        username: 'share',
        shareId: share.id,
        protocolIds: [a.protocol.id],
      });
    };
    for (const [when, call] of steps) {
      // Sessions last an hour: sign in again on another day.
      if (portal.clock.now().toISOString().slice(0, 10) !== when.slice(0, 10)) {
        at(when);
        await signIn();
      }
      at(when);
      const res = await call();
      expect(res.statusCode, `${when}: ${res.body}`).toBe(200);
    }
    at('2026-11-26T12:00:00.000Z');
    await signIn();
  });
  afterAll(async () => portal?.destroy());

  it('shows every role’s access to the patient’s protocol in the words a patient understands', async () => {
    const page = await accesses(tokens.owner!, owner.id, `?protocol=${a.protocol.id}`);
    const seen = page.items.map((i) => [i.occurredAt.slice(11, 16), i.action, i.who]);
    const none = { name: null, license: null, tag: null, email: null };
    expect(seen).toEqual([
      ['12:09', 'VIEW_PROTOCOL', { ...none, kind: 'GUEST' }],
      ['12:08', 'STAFF_VIEW', { ...none, kind: 'PORTAL_SUPPORT' }],
      ['12:07', 'PRINT', { ...none, kind: 'PHYSICIAN', name: 'Pedro Alves', license: '12345/SP' }],
      ['12:06', 'DOWNLOAD_SIGNED', { ...none, kind: 'PHYSICIAN', name: 'Pedro Alves', license: '12345/SP' }],
      ['12:05', 'STAFF_VIEW', { ...none, kind: 'STAFF' }],
      ['12:04', 'SIGN_IN_PROTOCOL', { ...none, kind: 'GUEST' }],
      [
        '12:03',
        'OPEN_SHARE',
        { ...none, kind: 'SHARE_RECIPIENT', email: expect.stringMatching(/^friend\d+@example\.test$/) },
      ],
      ['12:02', 'OPEN_IMAGE', { ...none, kind: 'PARTNER', tag: 'Convênio Sul' }],
      ['12:01', 'OPEN_REPORT', { ...none, kind: 'PHYSICIAN', name: 'Pedro Alves', license: '12345/SP' }],
      ['12:00', 'VIEW_PROTOCOL', { ...none, kind: 'YOU' }],
    ]);
    expect(page.total).toBe(10);
    const byAction = Object.fromEntries(page.items.map((i) => [i.action, i]));
    expect(byAction.OPEN_REPORT!.exams).toEqual(['Hemograma completo']);
    expect(byAction.OPEN_IMAGE!.exams).toEqual(['Raio X de tórax']);
    expect(byAction.PRINT!.exams).toEqual(['Hemograma completo']);
    expect(
      page.items.every((i) => i.protocolNumber === a.protocol.number && i.institutionName === 'Laboratório Alfa'),
    ).toBe(true);
  });

  it("never shows another patient's accesses, and only the patient reads the log", async () => {
    const mine = await accesses(tokens.owner!, owner.id, '?size=100');
    expect(mine.total).toBe(11);
    expect(mine.items.some((i) => i.protocolId === b.protocol.id)).toBe(false);

    const theirs = await accesses(tokens.otherPatient!, otherPatient.id, '?size=100');
    expect(theirs.items.map((i) => [i.protocolId, i.action, i.who.kind])).toEqual([
      [b.protocol.id, 'OPEN_REPORT', 'PHYSICIAN'],
      [b.protocol.id, 'VIEW_PROTOCOL', 'YOU'],
    ]);
    const text = JSON.stringify(theirs);
    for (const leak of [a.protocol.number, 'Convênio Sul', 'friend', 'Ana Dona']) expect(text).not.toContain(leak);
    // Asking for the other patient's protocol by id or number finds nothing.
    for (const protocol of [a.protocol.id, a.protocol.number])
      expect((await accesses(tokens.otherPatient!, otherPatient.id, `?protocol=${protocol}`)).total).toBe(0);

    // Another account's log looks like one that does not exist; other roles have none.
    expect((await get(tokens.owner!, `/api/auth/patient/${otherPatient.id}/accesses`)).statusCode).toBe(404);
    expect((await get(tokens.owner!, `/api/auth/patient/${otherPatient.id}/accesses/export.csv`)).statusCode).toBe(404);
    expect((await get(tokens.owner!, `/api/auth/patient/${otherPatient.id}/access-alerts`)).statusCode).toBe(404);
    for (const role of ['physician', 'guest', 'share', 'admin'] as const)
      expect((await get(tokens[role]!, `/api/auth/patient/${owner.id}/accesses`)).statusCode).toBe(403);
    expect((await get(null, `/api/auth/patient/${owner.id}/accesses`)).statusCode).toBe(401);
  });

  it('filters by protocol and period, and pages', async () => {
    const second = await accesses(tokens.owner!, owner.id, `?protocol=${a2.protocol.number}`);
    expect(second.items.map((i) => [i.protocolId, i.who.kind])).toEqual([[a2.protocol.id, 'YOU']]);

    const day25 = await accesses(tokens.owner!, owner.id, '?initialDate=25/11/2026&finalDate=25/11/2026');
    expect(day25.items.map((i) => i.protocolId)).toEqual([a2.protocol.id]);
    const day20 = await accesses(tokens.owner!, owner.id, '?initialDate=20/11/2026&finalDate=24/11/2026');
    expect(day20.total).toBe(10);
    // 20/11 09:00 in Brasília is 12:00 UTC: a day starts at 03:00 UTC.
    expect((await accesses(tokens.owner!, owner.id, '?finalDate=19/11/2026')).total).toBe(0);

    const p1 = await accesses(tokens.owner!, owner.id, '?size=4&page=1');
    const p3 = await accesses(tokens.owner!, owner.id, '?size=4&page=3');
    expect([p1.items.length, p3.items.length, p3.total, p3.page, p3.size]).toEqual([4, 3, 11, 3, 4]);
    const all = await accesses(tokens.owner!, owner.id, '?size=100');
    expect(p3.items.map((i) => i.id)).toEqual(all.items.slice(8).map((i) => i.id));
    expect((await accesses(tokens.owner!, owner.id, '?size=500')).size).toBe(100);
    expect((await get(tokens.owner!, `/api/auth/patient/${owner.id}/accesses?initialDate=2026-11-20`)).statusCode).toBe(
      400,
    );
  });

  it("names staff only when the institution's setting, changed through the administration API, says so", async () => {
    const staffRow = async () =>
      (await accesses(tokens.owner!, owner.id, '?size=100')).items.find((i) => i.who.kind === 'STAFF')!.who;
    expect(await staffRow()).toMatchObject({ kind: 'STAFF', name: null });
    const view = await get(tokens.admin!, `/api/administrationbe/institution/${institution.id}`);
    expect(view.json().data.settings.accessLogStaffNames).toBe(false);

    const change = (value: boolean) =>
      portal.app.inject({
        method: 'PUT',
        url: `/api/administrationbe/institution/${institution.id}`,
        headers: bearer(tokens.admin!),
        payload: { settings: { accessLogStaffNames: value } },
      });
    expect((await change(true)).statusCode).toBe(200);
    expect(await staffRow()).toMatchObject({ kind: 'STAFF', name: 'Carla Recepção' });
    // The portal's own operators stay unnamed whatever the institution says.
    const support = (await accesses(tokens.owner!, owner.id, '?size=100')).items.find(
      (i) => i.who.kind === 'PORTAL_SUPPORT',
    );
    expect(support?.who.name).toBeNull();
    expect((await change(false)).statusCode).toBe(200);
    expect(await staffRow()).toMatchObject({ name: null });
  });

  it('exports the same accesses as CSV in the chosen language', async () => {
    const res = await get(tokens.owner!, `/api/auth/patient/${owner.id}/accesses/export.csv?language=en`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="accesses-2026-11-26\.csv"$/);
    const lines = res.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe('"Date and time (Brasília time)","Protocol","Institution","What was done","Who","Exams"');
    expect(lines).toHaveLength(12);
    expect(lines[1]).toBe(
      `"25/11/2026 12:00","${a2.protocol.number}","Laboratório Alfa","Viewed the protocol","You",""`,
    );
    expect(lines).toContain(
      `"20/11/2026 09:01","${a.protocol.number}","Laboratório Alfa","Opened a report","Dr. Pedro Alves, CRM 12345/SP","Hemograma completo"`,
    );
    expect(res.body).toContain('"A user of the partner institution, group Convênio Sul"');
    expect(res.body).toContain(`"Someone with the protocol's password"`);
    expect(res.body).not.toContain(b.protocol.number);

    const pt = await get(tokens.owner!, `/api/auth/patient/${owner.id}/accesses/export.csv?protocol=${a2.protocol.id}`);
    expect(
      pt.body
        .replace(/^\uFEFF/, '')
        .trim()
        .split('\r\n'),
    ).toEqual([
      '"Data e hora (horário de Brasília)","Protocolo","Instituição","O que foi feito","Quem","Exames"',
      `"25/11/2026 12:00","${a2.protocol.number}","Laboratório Alfa","Viu o protocolo","Você",""`,
    ]);
  });

  it('keeps the mail-alert setting per account, off by default', async () => {
    const url = `/api/auth/patient/${owner.id}/access-alerts`;
    expect((await get(tokens.owner!, url)).json().data).toEqual({ enabled: false });
    const put = (token: string, enabled: unknown) =>
      portal.app.inject({ method: 'PUT', url, headers: bearer(token), payload: { enabled } });
    expect((await put(tokens.owner!, true)).json().data).toEqual({ enabled: true });
    expect((await get(tokens.owner!, url)).json().data).toEqual({ enabled: true });
    expect((await put(tokens.owner!, 'yes')).statusCode).toBe(400);
    expect((await put(tokens.otherPatient!, false)).statusCode).toBe(404);
    expect((await get(tokens.otherPatient!, `/api/auth/patient/${otherPatient.id}/access-alerts`)).json().data).toEqual(
      {
        enabled: false,
      },
    );
    expect((await put(tokens.owner!, false)).json().data).toEqual({ enabled: false });
  });
});
