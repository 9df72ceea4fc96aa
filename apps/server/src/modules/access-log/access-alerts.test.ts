import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, TEST_DIALECT, type TestPortal } from '../../test/helpers.js';
import { tryHoldSubject } from '../../plugins/call-rate.js';
import { mailsTo } from '../accounts/test-factories.js';
import { runAccessAlerts } from './access-alerts.service.js';
import { alertCandidates, claimAlert } from './access-log.repository.js';
import { makeAccessWorld } from '../../test/access-world.js';

/**
 * The optional mail when someone other than the patient opens a result: off by default, one per
 * protocol every 6 hours at most, in the patient's language, naming no one; two servers on one
 * database running the alerts at once send each alert once, and a server dying mid-run loses none.
 */
describe('access alerts', () => {
  let portal: TestPortal;
  let world: Awaited<ReturnType<typeof makeAccessWorld>>;

  const open = async (token: string, url: string) => {
    const res = await portal.app.inject({ method: 'GET', url, headers: bearer(token) });
    expect(res.statusCode, res.body).toBe(200);
  };
  const alerts = async () =>
    (await mailsTo(portal.ctx, world.owner.email)).filter((m) => m.text.includes('/patient/accesses'));
  const physicianOpens = async (report: { id: string }) =>
    open(await world.asPhysician(), `/api/v2/delivery/resource/report?resourceId=${report.id}`);

  beforeAll(async () => {
    portal = await startTestPortal();
    world = await makeAccessWorld(portal, {
      institution: 'Clínica Aurora',
      owner: { name: 'Ana Dona', language: 'es' },
      otherPatient: { name: 'Otto Quieto' },
    });
  });
  afterAll(async () => portal?.destroy());

  it('sends nothing until the patient turns the alert on', async () => {
    portal.clock.set('2026-11-20T12:00:00.000Z');
    await physicianOpens(world.reportA);
    expect(await runAccessAlerts(portal.ctx)).toBe(0);
    expect(await alerts()).toHaveLength(0);
  });

  it('mails once per protocol in its window, for others’ openings only, naming no one', async () => {
    const ownerToken = await world.asOwner();
    const put = await portal.app.inject({
      method: 'PUT',
      url: `/api/auth/patient/${world.owner.id}/access-alerts`,
      headers: bearer(ownerToken),
      payload: { enabled: true },
    });
    expect(put.statusCode).toBe(200);
    // The patient's own opening of her second protocol is never told of.
    await open(ownerToken, `/api/delivery/persistence/dashboard/protocol/byId?id=${world.a2.protocol.id}`);
    expect(await runAccessAlerts(portal.ctx)).toBe(1);
    const [first] = await alerts();
    expect(first!.subject).toBe('Otra persona abrió sus resultados - Clínica Aurora');
    expect(first!.text).toContain(`protocolo ${world.a.protocol.number}`);
    expect(first!.text).toContain(`http://portal.test/patient/accesses?protocol=${world.a.protocol.id}`);
    expect(first!.text).not.toContain('Pedro');
    expect(first!.text).not.toContain(world.a2.protocol.number);

    // The same run again, or another opening an hour later: nothing new.
    expect(await runAccessAlerts(portal.ctx)).toBe(0);
    portal.clock.set('2026-11-20T13:00:00.000Z');
    await physicianOpens(world.reportA);
    expect(await runAccessAlerts(portal.ctx)).toBe(0);
    // Someone else's protocol, whose patient asked for nothing, sends nothing either.
    await physicianOpens(world.reportB);
    expect(await runAccessAlerts(portal.ctx)).toBe(0);
    expect(await mailsTo(portal.ctx, world.otherPatient.email)).toHaveLength(0);

    // Past the window, a new opening is told of again.
    portal.clock.set('2026-11-20T18:30:00.000Z');
    await physicianOpens(world.reportA);
    expect(await runAccessAlerts(portal.ctx)).toBe(1);
    expect(await alerts()).toHaveLength(2);
  });

  describe('servers running the alerts at once', () => {
    let second: TestPortal;
    const alertsOf = async (email: string) =>
      (await mailsTo(portal.ctx, email)).filter((m) => m.text.includes('/patient/accesses'));

    beforeAll(async () => {
      // Two servers share a PostgreSQL database. A SQLite file is served by one process (two
      // connections in one process would wait on each other's write lock with the event loop held):
      // there the runs all go through the one server.
      second =
        TEST_DIALECT === 'postgres'
          ? await startTestPortal({ reuse: { env: portal.env }, clock: portal.clock })
          : portal;
      // The other patient turns the alert on too: two alerts are due at once.
      const put = await portal.app.inject({
        method: 'PUT',
        url: `/api/auth/patient/${world.otherPatient.id}/access-alerts`,
        headers: bearer(await world.asOtherPatient()),
        payload: { enabled: true },
      });
      expect(put.statusCode).toBe(200);
    });
    afterAll(async () => {
      if (second !== portal) await second?.close();
    });

    it('send each alert once when both run the alerts 32 times at the same moment', async () => {
      portal.clock.set('2026-11-21T09:00:00.000Z');
      await physicianOpens(world.reportA);
      await physicianOpens(world.reportB);
      const runs = await Promise.all(
        Array.from({ length: 32 }, (_, i) => runAccessAlerts((i % 2 ? second : portal).ctx)),
      );
      expect(runs.reduce((sum, n) => sum + n, 0)).toBe(2);
      expect(await alerts()).toHaveLength(3);
      expect(await alertsOf(world.otherPatient.email)).toHaveLength(1);
    });

    it('lose no alert when the server running them dies before it commits', async () => {
      portal.clock.set('2026-11-21T16:00:00.000Z');
      await physicianOpens(world.reportA);
      // The second server takes the run and claims the alert, then dies: its transaction rolls back.
      const died = new Error('the server died');
      const dying = second.ctx.db.transaction().execute(async (trx) => {
        expect(await tryHoldSubject(trx, second.ctx.dialect, 'access-alerts', portal.clock.now())).toBe(true);
        const due = await alertCandidates(
          trx,
          '2026-11-21T15:30:00.000Z',
          '2026-11-21T16:00:00.000Z',
          '2026-11-21T10:00:00.000Z',
        );
        expect(due.map((c) => c.email)).toEqual([world.owner.email]);
        expect(
          await claimAlert(
            trx,
            world.owner.id,
            world.a.protocol.id,
            '2026-11-21T16:00:00.000Z',
            '2026-11-21T10:00:00.000Z',
          ),
        ).toBe(true);
        // Meanwhile, on PostgreSQL, the first server's run finds the work taken and does none of it.
        if (TEST_DIALECT === 'postgres') expect(await runAccessAlerts(portal.ctx)).toBe(0);
        throw died;
      });
      await expect(dying).rejects.toBe(died);
      expect(await alerts()).toHaveLength(3);
      // A minute later the first server's run finds the opening again and sends its alert.
      portal.clock.set('2026-11-21T16:01:00.000Z');
      expect(await runAccessAlerts(portal.ctx)).toBe(1);
      expect(await alerts()).toHaveLength(4);
      expect(await runAccessAlerts(second.ctx)).toBe(0);
    });
  });
});
