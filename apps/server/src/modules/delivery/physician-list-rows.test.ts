import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPortal, type TestPortal } from '../../test/helpers.js';
import type { Viewer } from './delivery.policy.js';
import { FIELD_SEPARATOR } from './delivery.repository.js';
import { listProtocols, type ListFilter } from './protocol-list.repository.js';
import { makeInstitution, makeProtocol, makeResource, makeUser, pngBytes, shownRow } from './test-factories.js';

const DOCTOR = { crm: '7301', uf: 'MG' };
const PLAIN: ListFilter = { from: '2026-10-01T03:00:00.000Z', orderBy: 'date', offset: 0, limit: 20 };

/**
 * A physician's plain list reads the list rows his requester rows carry (kept by triggers); a
 * filtered one reads the protocols and exams themselves. After every kind of write a clinic does,
 * both must show the same rows.
 */
describe("the physician's list rows kept on his requester rows", () => {
  let portal: TestPortal;
  let viewer: Viewer;
  let institutionIds: string[];

  const plain = async () => (await listProtocols(portal.ctx.database.reader, viewer, PLAIN)).rows.map(shownRow);
  /** The same list read from the protocols and exams (a filter the requester rows do not carry). */
  const fromProtocols = async () =>
    (await listProtocols(portal.ctx.database.reader, viewer, { ...PLAIN, institutionIds })).rows.map(shownRow);
  const expectBothAlike = async () => {
    const kept = await plain();
    expect(kept).toEqual(await fromProtocols());
    return kept;
  };

  beforeAll(async () => {
    portal = await startTestPortal();
    const ctx = portal.ctx;
    const clinic = await makeInstitution(ctx, { name: 'Clínica Horizonte' });
    const other = await makeInstitution(ctx, { name: 'Hospital Serra' });
    const physician = await makeUser(ctx, { type: 'PHYSICIAN', ...DOCTOR, vouchedBy: [clinic.id, other.id] });
    institutionIds = [clinic.id, other.id].sort();
    viewer = {
      role: 'PHYSICIAN',
      userId: physician.id,
      sessionId: 'session',
      sessionProtocolIds: new Set(),
      license: { ...DOCTOR, institutionIds },
      tagIds: new Set(),
    };
  });
  afterAll(async () => portal.close());

  it('shows every change of a protocol, its exams, their files and read marks as the protocols do', async () => {
    const ctx = portal.ctx;
    const mine = { requester: DOCTOR };
    const [clinic, other] = institutionIds as [string, string];
    const first = await makeProtocol(ctx, {
      institutionId: clinic,
      number: 'HZ-1',
      patientName: 'Beatriz Nunes',
      requestedAt: '2026-11-10T12:00:00.000Z',
      exams: [
        { description: 'Hemograma', ...mine },
        { description: 'Raio X de tórax', type: 'IMAGE', status: 'PARTIAL' },
        { description: 'Glicemia', isEnabled: false },
      ],
    });
    const second = await makeProtocol(ctx, {
      institutionId: other,
      number: 'SE-2',
      patientName: 'Caio Prado',
      requestedAt: '2026-11-12T12:00:00.000Z',
      exams: [{ description: 'Ultrassom', ...mine }],
    });
    // Another physician's protocol is in neither list.
    await makeProtocol(ctx, {
      institutionId: clinic,
      requestedAt: '2026-11-11T12:00:00.000Z',
      exams: [{ description: 'Ecocardiograma', requester: { crm: '1', uf: 'SP' } }],
    });
    let rows = await expectBothAlike();
    expect(rows.map((r) => r.number)).toEqual(['SE-2', 'HZ-1']);
    expect(rows[1]!.exams.map((e) => e.split(FIELD_SEPARATOR).at(-1))).toEqual(['Hemograma', 'Raio X de tórax']);

    const [hemograma, raioX, glicemia] = first.exams.map((e) => ({ id: e.id })) as [
      { id: string },
      { id: string },
      { id: string },
    ];
    // A report and an image arrive (flags kept on the exam by triggers, then on the list row).
    await makeResource(ctx, { examId: hemograma.id, type: 'REPORT', bytes: Buffer.from('%PDF-1.4 report') });
    await makeResource(ctx, { examId: raioX.id, type: 'IMAGE', bytes: pngBytes() });
    rows = await expectBothAlike();
    expect(rows[1]!.exams.map((e) => e.split(FIELD_SEPARATOR)[3])).toEqual(['1', '2']);

    // Exams are enabled, renamed, rectified and moved; one is removed.
    // Each write on its own: a later write to the same protocol would mend a missed one.
    for (const [id, change] of [
      [glicemia.id, { isEnabled: 1 }],
      [hemograma.id, { description: 'Hemograma completo' }],
      [hemograma.id, { rectificationStatus: 'PENDING' }],
      [raioX.id, { status: 'RELEASED' }],
      [raioX.id, { type: 'CT' }],
      [raioX.id, { position: 9 }],
    ] as const) {
      const before = await plain();
      await ctx.db.updateTable('exams').set(change).where('id', '=', id).execute();
      expect(await expectBothAlike()).not.toEqual(before);
    }
    rows = await plain();
    expect(rows[1]!.exams.map((e) => e.split(FIELD_SEPARATOR).at(-1))).toEqual([
      'Hemograma completo',
      'Glicemia',
      'Raio X de tórax',
    ]);
    await ctx.db.deleteFrom('exams').where('id', '=', glicemia.id).execute();
    rows = await expectBothAlike();
    expect(rows[1]!.exams).toHaveLength(2);

    // The patient's details change, and a protocol moves in time.
    await ctx.db
      .updateTable('protocols')
      .set({ patientName: 'Beatriz Nunes Rocha', patientEmail: null, patientPhone: '+5531999990000' })
      .where('id', '=', first.protocol.id)
      .execute();
    await ctx.db
      .updateTable('protocols')
      .set({ sortAt: '2026-11-13T12:00:00.000Z' })
      .where('id', '=', first.protocol.id)
      .execute();
    rows = await expectBothAlike();
    expect(rows.map((r) => [r.number, r.patientName, r.patientEmail])).toEqual([
      ['HZ-1', 'Beatriz Nunes Rocha', null],
      ['SE-2', 'Caio Prado', second.protocol.patientEmail],
    ]);

    // The physician reads an exam: only his read mark shows.
    await ctx.db
      .insertInto('examReads')
      .values({ viewerKey: 'someone-else', examId: raioX.id, readAt: '2026-11-20T00:00:00.000Z' })
      .execute();
    await ctx.db
      .insertInto('examReads')
      .values({ viewerKey: viewer.userId!, examId: hemograma.id, readAt: '2026-11-20T00:00:00.000Z' })
      .execute();
    rows = await expectBothAlike();
    expect(rows[0]!.exams.map((e) => Number(e.split(FIELD_SEPARATOR)[3]) & 8)).toEqual([8, 0]);

    // A protocol disabled leaves the list and comes back when enabled; a requester added brings one.
    await ctx.db.updateTable('protocols').set({ disabled: 1 }).where('id', '=', second.protocol.id).execute();
    expect((await expectBothAlike()).map((r) => r.number)).toEqual(['HZ-1']);
    await ctx.db.updateTable('protocols').set({ disabled: 0 }).where('id', '=', second.protocol.id).execute();
    const third = await makeProtocol(ctx, {
      institutionId: clinic,
      number: 'HZ-3',
      requestedAt: '2026-11-14T12:00:00.000Z',
      exams: [{ description: 'Tomografia' }],
    });
    await ctx.db
      .insertInto('protocolRequesters')
      .values({ protocolId: third.protocol.id, ...DOCTOR, sortAt: '2026-11-14T12:00:00.000Z' })
      .execute();
    expect((await expectBothAlike()).map((r) => r.number)).toEqual(['HZ-3', 'HZ-1', 'SE-2']);
    // A protocol moved to an institution that did not vouch for him leaves his list.
    const elsewhere = await makeInstitution(ctx, { name: 'Laboratório Vale' });
    await ctx.db
      .updateTable('protocols')
      .set({ institutionId: elsewhere.id })
      .where('id', '=', third.protocol.id)
      .execute();
    expect((await expectBothAlike()).map((r) => r.number)).toEqual(['HZ-1', 'SE-2']);
  });

  it('keeps the list row of a protocol of many exams with long names', async () => {
    const ctx = portal.ctx;
    const description = 'Dosagem de anticorpos anti-receptor de acetilcolina, soro, método radioimunoensaio';
    const big = await makeProtocol(ctx, {
      institutionId: institutionIds[0]!,
      number: 'HZ-BIG',
      requestedAt: '2026-11-15T12:00:00.000Z',
      exams: Array.from({ length: 300 }, (_, i) => ({ description: `${description} ${i}`, requester: DOCTOR })),
    });
    const rows = await expectBothAlike();
    expect(rows[0]!.number).toBe('HZ-BIG');
    expect(rows[0]!.exams).toHaveLength(300);
    await ctx.db.deleteFrom('exams').where('protocolId', '=', big.protocol.id).execute();
    await ctx.db.deleteFrom('protocolRequesters').where('protocolId', '=', big.protocol.id).execute();
    await ctx.db.deleteFrom('protocols').where('id', '=', big.protocol.id).execute();
  });

  it('reads the plain page from the requester rows alone', async () => {
    const before = await plain();
    expect(before.length).toBeGreaterThan(0);
    const kept = ['kept', institutionIds[0], 'KEPT', null, null, 'x', 'Kept Row', '1980-01-01', 'FEMALE', null, null];
    await portal.ctx.db
      .updateTable('protocolRequesters')
      .set({ listing: JSON.stringify([...kept, null, null, []]) })
      .where('crm', '=', DOCTOR.crm)
      .where('uf', '=', DOCTOR.uf)
      .execute();
    expect((await plain()).map((r) => r.number)).toEqual(before.map(() => 'KEPT'));
    // Any write to the protocol writes its list row again.
    await sql`update protocols set patient_name = patient_name || '' where id in
      (select protocol_id from protocol_requesters where crm = ${DOCTOR.crm} and uf = ${DOCTOR.uf})`.execute(
      portal.ctx.db,
    );
    expect(await plain()).toEqual(before);
  });
});
