import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { createInstitution } from '../institutions/institution.service.js';
import {
  makeInstitution,
  makeProtocol,
  makeResource,
  makeTag,
  makeUser,
  makeVisualizerSettings,
  pdfBytes,
  pngBytes,
} from './test-factories.js';

interface Item {
  requestId: string;
  number: string;
  protocolRead: boolean;
  hasImageResolved: boolean;
  hasAtLeastOneRectification: boolean;
  examsIds: string[];
}

/**
 * List answers are kept in memory and served again (spec 9: a list comes from the cache unless
 * forced): every change a list shows must reach the next list call, whoever writes it, and a
 * default range must let protocols go as its start moves on.
 */
describe('list answers stay current', () => {
  let portal: TestPortal;
  let institution: { id: string };

  beforeAll(async () => {
    portal = await startTestPortal();
    institution = await makeInstitution(portal.ctx, { name: 'Clinica Beta' });
  });
  afterAll(async () => portal?.destroy());

  const list = async (url: string, token: string) => {
    const res = await portal.app.inject({ url, headers: bearer(token) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    return res.json().data as { items: Item[]; total: number };
  };
  const patientList = (token: string, query = '') => list(`/api/v2/delivery/dashboard/protocols${query}`, token);
  const physicianList = (token: string) => list('/api/delivery/persistence/protocols/physician', token);
  const externalList = (token: string) => list('/api/v2/delivery/protocols/listedByTags', token);
  const numbers = (page: { items: Item[] }) => page.items.map((p) => p.number).sort();

  async function patient() {
    const user = await makeUser(portal.ctx, { type: 'PATIENT' });
    const token = await portal.sessionFor({ role: 'PATIENT', userId: user.id, username: user.email });
    return { user, token };
  }

  it('shows a protocol ingested after the last call, and its image once uploaded', async () => {
    const {
      apiKey,
      institution: { id },
    } = await createInstitution(portal.ctx, { code: 'LABF', name: 'Lab F', viewType: 1 });
    const doctor = await makeUser(portal.ctx, { type: 'PHYSICIAN', crm: '70707', uf: 'MG', vouchedBy: [id] });
    const token = await portal.sessionFor({ role: 'PHYSICIAN', userId: doctor.id, username: doctor.email });
    const first = await physicianList(token);
    expect(first.total).toBe(0);
    expect(await physicianList(token)).toEqual(first);

    const put = await portal.app.inject({
      method: 'PUT',
      url: '/api/v2/delivery/ingest/protocols/F-1001',
      headers: { 'x-api-key': apiKey },
      payload: {
        password: 'secret-1',
        requestedAt: '2026-11-19T10:00:00-03:00',
        patient: { patientId: 'F1', name: 'Flora Freitas', birthDate: '1970-01-01', gender: 'F' },
        exams: [
          {
            examKey: 'RX',
            description: 'Raio X',
            type: 'XRAY',
            modalityCode: 'CR',
            modalityName: 'Radiografia',
            requester: { identifier: 'R7', name: 'Dr. Sete', crm: '70707', uf: 'MG' },
            status: 'L',
          },
        ],
      },
    });
    expect(put.statusCode).toBe(201);
    const after = await physicianList(token);
    expect(after.total).toBe(1);
    expect(after.items[0]).toMatchObject({ number: 'F-1001', hasImageResolved: false });

    const upload = await portal.app.inject({
      method: 'PUT',
      url: '/api/v2/delivery/ingest/protocols/F-1001/exams/RX/resources/IMG-1?type=IMAGE',
      headers: { 'x-api-key': apiKey, 'content-type': 'image/png' },
      payload: pngBytes(),
    });
    expect(upload.statusCode).toBe(201);
    expect((await physicianList(token)).items[0]).toMatchObject({ number: 'F-1001', hasImageResolved: true });
  });

  it('shows a protocol read once its patient, or its guest, opened it', async () => {
    const { user, token } = await patient();
    const one = await makeProtocol(portal.ctx, { institutionId: institution.id, patientUserId: user.id });
    const two = await makeProtocol(portal.ctx, { institutionId: institution.id, patientUserId: user.id });
    const reportOne = await makeResource(portal.ctx, {
      examId: one.exams[0]!.id,
      type: 'REPORT',
      bytes: await pdfBytes('one'),
    });
    const reportTwo = await makeResource(portal.ctx, {
      examId: two.exams[0]!.id,
      type: 'REPORT',
      bytes: await pdfBytes('two'),
    });
    const read = async () =>
      Object.fromEntries((await patientList(token)).items.map((p) => [p.number, p.protocolRead]));
    expect(await read()).toEqual({ [one.protocol.number]: false, [two.protocol.number]: false });

    const open = await portal.app.inject({
      url: `/api/v2/delivery/resource/report?resourceId=${reportOne.id}`,
      headers: bearer(token),
    });
    expect(open.statusCode).toBe(200);
    expect(await read()).toEqual({ [one.protocol.number]: true, [two.protocol.number]: false });

    const guest = await portal.sessionFor({
      role: 'GUEST',
      username: two.protocol.number,
      protocolIds: [two.protocol.id],
    });
    const byGuest = await portal.app.inject({
      url: `/api/v2/delivery/resource/report?resourceId=${reportTwo.id}`,
      headers: bearer(guest),
    });
    expect(byGuest.statusCode).toBe(200);
    expect(await read()).toEqual({ [one.protocol.number]: true, [two.protocol.number]: true });
  });

  it('follows changes written straight to the database, as another server process would', async () => {
    const { user, token } = await patient();
    const kept = await makeProtocol(portal.ctx, {
      institutionId: institution.id,
      patientUserId: user.id,
      exams: [{ type: 'LAB' }, { type: 'ECG' }],
    });
    const withdrawn = await makeProtocol(portal.ctx, { institutionId: institution.id, patientUserId: user.id });
    const unlinked = await makeProtocol(portal.ctx, { institutionId: institution.id });
    expect(numbers(await patientList(token))).toEqual([kept.protocol.number, withdrawn.protocol.number].sort());

    await portal.ctx.db.updateTable('protocols').set({ disabled: 1 }).where('id', '=', withdrawn.protocol.id).execute();
    await portal.ctx.db
      .updateTable('protocols')
      .set({ patientUserId: user.id })
      .where('id', '=', unlinked.protocol.id)
      .execute();
    expect(numbers(await patientList(token))).toEqual([kept.protocol.number, unlinked.protocol.number].sort());

    const item = async () => (await patientList(token)).items.find((p) => p.number === kept.protocol.number)!;
    expect(await item()).toMatchObject({ hasAtLeastOneRectification: false, examsIds: kept.exams.map((e) => e.id) });
    await portal.ctx.db
      .updateTable('exams')
      .set({ rectificationStatus: 'PENDING' })
      .where('id', '=', kept.exams[0]!.id)
      .execute();
    expect(await item()).toMatchObject({ hasAtLeastOneRectification: true });

    // The institution switches the ECG type off (visualizer settings): its exam leaves the item.
    await makeVisualizerSettings(portal.ctx, institution.id, [{ type: 'ECG', enable: false }]);
    expect((await item()).examsIds).toEqual([kept.exams[0]!.id]);
  });

  it("follows an external user's tags as they are given to him", async () => {
    const external = await makeUser(portal.ctx, { type: 'EXTERNAL' });
    const first = await makeTag(portal.ctx, institution.id, [external.id]);
    const second = await makeTag(portal.ctx, institution.id);
    const a = await makeProtocol(portal.ctx, { institutionId: institution.id, tagId: first.id });
    const b = await makeProtocol(portal.ctx, { institutionId: institution.id, tagId: second.id });
    const token = await portal.sessionFor({ role: 'EXTERNAL', userId: external.id, username: external.email });
    expect(numbers(await externalList(token))).toEqual([a.protocol.number]);
    await portal.ctx.db
      .insertInto('tagMembers')
      .values({ tagId: second.id, userId: external.id, createdAt: '2026-11-20T12:00:00.000Z' })
      .execute();
    expect(numbers(await externalList(token))).toEqual([a.protocol.number, b.protocol.number].sort());
  });

  it('lets a protocol leave a default range as its start moves on', async () => {
    const start = portal.clock.now();
    try {
      const { user, token } = await patient();
      // The patient's default range starts 6 months back: 2026-05-20 12:00 UTC on this clock.
      const edge = await makeProtocol(portal.ctx, {
        institutionId: institution.id,
        patientUserId: user.id,
        requestedAt: '2026-05-20T12:30:00.000Z',
      });
      const recent = await makeProtocol(portal.ctx, { institutionId: institution.id, patientUserId: user.id });
      expect(numbers(await patientList(token))).toEqual([edge.protocol.number, recent.protocol.number].sort());
      portal.clock.advance(20 * 60_000);
      expect((await patientList(token)).total).toBe(2);
      portal.clock.advance(20 * 60_000);
      const later = await patientList(token);
      expect(numbers(later)).toEqual([recent.protocol.number]);
      expect(later.total).toBe(1);

      // A physician's default range is 7 days.
      const doctor = await makeUser(portal.ctx, {
        type: 'PHYSICIAN',
        crm: '80808',
        uf: 'RS',
        vouchedBy: [institution.id],
      });
      const physician = await portal.sessionFor({ role: 'PHYSICIAN', userId: doctor.id, username: doctor.email });
      const soon = new Date(portal.clock.now().getTime() - 7 * 24 * 3600_000 + 60_000).toISOString();
      const requested = await makeProtocol(portal.ctx, {
        institutionId: institution.id,
        requestedAt: soon,
        exams: [{ requester: { crm: '80808', uf: 'RS' } }],
      });
      expect(numbers(await physicianList(physician))).toEqual([requested.protocol.number]);
      portal.clock.advance(2 * 60_000);
      expect((await physicianList(physician)).total).toBe(0);
    } finally {
      portal.clock.set(start);
    }
  });

  it("keeps a forced refresh's fallback to the latest protocols out of the plain list", async () => {
    const { user, token } = await patient();
    const old = await makeProtocol(portal.ctx, {
      institutionId: institution.id,
      patientUserId: user.id,
      requestedAt: '2025-01-10T12:00:00.000Z',
    });
    expect((await patientList(token)).total).toBe(0);
    expect(numbers(await patientList(token, '?forceRefresh=true'))).toEqual([old.protocol.number]);
    expect((await patientList(token)).total).toBe(0);
  });
});
