import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { mailsTo } from '../accounts/test-factories.js';
import { runAccessAlerts } from './access-alerts.service.js';
import { makeAccessWorld } from '../../test/access-world.js';

/**
 * The optional mail when someone other than the patient opens a result: off by default, one per
 * protocol every 6 hours at most, in the patient's language, naming no one; several servers
 * running the alerts at once send it once.
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

  it('sends one mail when 30 servers run the alerts at once', async () => {
    portal.clock.set('2026-11-21T09:00:00.000Z');
    await physicianOpens(world.reportA);
    const runs = await Promise.all(Array.from({ length: 30 }, () => runAccessAlerts(portal.ctx)));
    expect(runs.reduce((sum, n) => sum + n, 0)).toBe(1);
    expect(await alerts()).toHaveLength(3);
  });
});
