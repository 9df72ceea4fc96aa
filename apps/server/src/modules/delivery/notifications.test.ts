import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPortal, type TestPortal } from '../../test/helpers.js';
import { notifyExamsChanged, periodStarts, runDigests } from './notifications.service.js';
import { makeInstitution, makeProtocol, makeResource, makeUser, pdfBytes } from './test-factories.js';

describe('result-ready notifications', () => {
  let portal: TestPortal;
  let institutionId: string;
  const mailsTo = (to: string) =>
    portal.ctx.db.selectFrom('outbox').selectAll().where('recipient', '=', to).where('channel', '=', 'EMAIL').execute();
  const notify = (examIds: string[]) =>
    portal.ctx.db.transaction().execute((trx) => notifyExamsChanged(portal.ctx, trx, examIds));

  /** A protocol with one exam and, unless told otherwise, a report. */
  async function exam(input: {
    userId?: string;
    email?: string;
    status?: string;
    report?: boolean;
    pending?: boolean;
  }) {
    const p = await makeProtocol(portal.ctx, {
      institutionId,
      patientUserId: input.userId ?? null,
      patientEmail: input.email ?? null,
      exams: [{ status: input.status ?? 'RELEASED', rectificationStatus: input.pending ? 'PENDING' : null }],
    });
    if (input.report !== false) {
      await makeResource(portal.ctx, { examId: p.exams[0]!.id, type: 'REPORT', bytes: await pdfBytes('r') });
    }
    return p.exams[0]!.id;
  }

  beforeAll(async () => {
    portal = await startTestPortal();
    institutionId = (await makeInstitution(portal.ctx, { settings: { emailFrequencyDefault: 'EXAM' } })).id;
  });
  afterAll(async () => portal?.destroy());

  it('mails the linked patient once per released exam with a report, never twice', async () => {
    const user = await makeUser(portal.ctx, { type: 'PATIENT', email: 'ana@example.test', frequency: 'DEFAULT' });
    const ready = await exam({ userId: user.id, email: 'protocol-address@example.test' });
    await notify([ready]);
    await notify([ready, ready]);
    const mails = await mailsTo('ana@example.test');
    expect(mails).toHaveLength(1);
    expect(await mailsTo('protocol-address@example.test')).toHaveLength(0);
    const rows = await portal.ctx.db
      .selectFrom('resultNotifications')
      .selectAll()
      .where('examId', '=', ready)
      .execute();
    expect(rows).toEqual([expect.objectContaining({ recipientEmail: 'ana@example.test', frequency: 'EXAM' })]);
    expect(rows[0]!.queuedAt).not.toBeNull();
  });

  it('says nothing for pending, withheld or report-less exams, and uses the protocol e-mail without an account', async () => {
    const pending = await exam({ email: 'p1@example.test', status: 'PENDING' });
    const withheld = await exam({ email: 'p2@example.test', pending: true });
    const noReport = await exam({ email: 'p3@example.test', report: false });
    const guest = await exam({ email: 'P4@Example.test' });
    await notify([pending, withheld, noReport, guest]);
    for (const to of ['p1@example.test', 'p2@example.test', 'p3@example.test'])
      expect(await mailsTo(to)).toHaveLength(0);
    expect(await mailsTo('p4@example.test')).toHaveLength(1);
    // Released later: told then.
    await portal.ctx.db.updateTable('exams').set({ status: 'RELEASED' }).where('id', '=', pending).execute();
    await notify([pending]);
    expect(await mailsTo('p1@example.test')).toHaveLength(1);
  });

  it('gathers DAY and WEEK preferences into one digest per period, and none when disabled', async () => {
    const daily = await makeUser(portal.ctx, { type: 'PATIENT', email: 'daily@example.test', frequency: 'DAY' });
    const weekly = await makeUser(portal.ctx, { type: 'PATIENT', email: 'weekly@example.test', frequency: 'WEEK' });
    const silent = await makeUser(portal.ctx, { type: 'PATIENT', email: 'silent@example.test', frequency: 'DISABLED' });
    await notify([
      await exam({ userId: daily.id }),
      await exam({ userId: daily.id }),
      await exam({ userId: weekly.id }),
      await exam({ userId: silent.id }),
    ]);
    expect(await mailsTo('daily@example.test')).toHaveLength(0);
    await runDigests(portal.ctx);
    expect(await mailsTo('daily@example.test')).toHaveLength(0);

    portal.clock.advance(24 * 3600_000);
    expect(await runDigests(portal.ctx)).toMatchObject({ mails: 1, notices: 2 });
    expect(await mailsTo('daily@example.test')).toHaveLength(1);
    expect(await mailsTo('weekly@example.test')).toHaveLength(0);
    expect(await runDigests(portal.ctx)).toEqual({ mails: 0, notices: 0 });

    portal.clock.advance(7 * 24 * 3600_000);
    await runDigests(portal.ctx);
    expect(await mailsTo('weekly@example.test')).toHaveLength(1);
    expect(await mailsTo('daily@example.test')).toHaveLength(1);
    expect(await mailsTo('silent@example.test')).toHaveLength(0);
  });

  it('digests run at once (as by several server processes) queue each mail once and count each notice once', async () => {
    const users = [];
    for (let i = 0; i < 6; i++) {
      users.push(await makeUser(portal.ctx, { type: 'PATIENT', email: `at-once-${i}@example.test`, frequency: 'DAY' }));
    }
    const exams = [];
    for (const user of users) exams.push(await exam({ userId: user.id }), await exam({ userId: user.id }));
    await notify(exams);
    portal.clock.advance(24 * 3600_000);
    const runs = await Promise.all(Array.from({ length: 6 }, () => runDigests(portal.ctx)));
    const total = runs.reduce((sum, r) => ({ mails: sum.mails + r.mails, notices: sum.notices + r.notices }), {
      mails: 0,
      notices: 0,
    });
    expect(total).toEqual({ mails: users.length, notices: exams.length });
    for (const user of users) expect(await mailsTo(user.email)).toHaveLength(1);
  });

  it('starts days and Monday weeks in Brazil’s time', () => {
    // Sunday 2026-11-22 01:00 UTC is still Saturday 22:00 in GMT-3.
    expect(periodStarts(new Date('2026-11-22T01:00:00Z'))).toEqual({
      day: '2026-11-21T03:00:00.000Z',
      week: '2026-11-16T03:00:00.000Z',
    });
    // The last second of Sunday in GMT-3, then the first of Monday: a new week begins.
    expect(periodStarts(new Date('2026-11-23T02:59:59Z')).week).toBe('2026-11-16T03:00:00.000Z');
    expect(periodStarts(new Date('2026-11-23T03:00:00Z'))).toEqual({
      day: '2026-11-23T03:00:00.000Z',
      week: '2026-11-23T03:00:00.000Z',
    });
  });
});
