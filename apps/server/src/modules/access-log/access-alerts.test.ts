import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { mailsTo } from '../accounts/test-factories.js';
import { makeInstitution, makeProtocol, makeResource, makeUser, pdfBytes } from '../delivery/test-factories.js';
import { runAccessAlerts } from './access-alerts.service.js';

/**
 * The optional mail when someone other than the patient opens a result: off by default, one per
 * protocol every 6 hours at most, in the patient's language, naming no one; several servers
 * running the alerts at once send it once.
 */
describe('access alerts', () => {
  let portal: TestPortal;
  let owner: Awaited<ReturnType<typeof makeUser>>;
  let quiet: Awaited<ReturnType<typeof makeUser>>;
  let physician: Awaited<ReturnType<typeof makeUser>>;
  let a: Awaited<ReturnType<typeof makeProtocol>>;
  let a2: Awaited<ReturnType<typeof makeProtocol>>;
  let b: Awaited<ReturnType<typeof makeProtocol>>;
  let reportA = '';
  let reportB = '';

  const open = async (token: string, url: string) => {
    const res = await portal.app.inject({ method: 'GET', url, headers: bearer(token) });
    expect(res.statusCode, res.body).toBe(200);
  };
  const asPhysician = () => portal.sessionFor({ role: 'PHYSICIAN', userId: physician.id, username: physician.email });
  const asOwner = () => portal.sessionFor({ role: 'PATIENT', userId: owner.id, username: owner.email });
  const alerts = async () =>
    (await mailsTo(portal.ctx, owner.email)).filter((m) => m.text.includes('/patient/accesses'));

  beforeAll(async () => {
    portal = await startTestPortal();
    const institution = await makeInstitution(portal.ctx, { name: 'Clínica Aurora' });
    owner = await makeUser(portal.ctx, { type: 'PATIENT', name: 'Ana Dona', language: 'es' });
    quiet = await makeUser(portal.ctx, { type: 'PATIENT', name: 'Otto Quieto' });
    physician = await makeUser(portal.ctx, {
      type: 'PHYSICIAN',
      name: 'Pedro Alves',
      crm: '12345',
      uf: 'SP',
      vouchedBy: [institution.id],
    });
    const requester = { crm: '12345', uf: 'SP' };
    a = await makeProtocol(portal.ctx, {
      institutionId: institution.id,
      patientUserId: owner.id,
      exams: [{ requester }],
    });
    a2 = await makeProtocol(portal.ctx, { institutionId: institution.id, patientUserId: owner.id });
    b = await makeProtocol(portal.ctx, {
      institutionId: institution.id,
      patientUserId: quiet.id,
      exams: [{ requester }],
    });
    reportA = (await makeResource(portal.ctx, { examId: a.exams[0]!.id, type: 'REPORT', bytes: await pdfBytes('A') }))
      .id;
    reportB = (await makeResource(portal.ctx, { examId: b.exams[0]!.id, type: 'REPORT', bytes: await pdfBytes('B') }))
      .id;
  });
  afterAll(async () => portal?.destroy());

  it('sends nothing until the patient turns the alert on', async () => {
    portal.clock.set('2026-11-20T12:00:00.000Z');
    await open(await asPhysician(), `/api/v2/delivery/resource/report?resourceId=${reportA}`);
    expect(await runAccessAlerts(portal.ctx)).toBe(0);
    expect(await alerts()).toHaveLength(0);
  });

  it('mails once per protocol in its window, for others’ openings only, naming no one', async () => {
    const ownerToken = await asOwner();
    const put = await portal.app.inject({
      method: 'PUT',
      url: `/api/auth/patient/${owner.id}/access-alerts`,
      headers: bearer(ownerToken),
      payload: { enabled: true },
    });
    expect(put.statusCode).toBe(200);
    // The patient's own opening of her second protocol is never told of.
    await open(ownerToken, `/api/delivery/persistence/dashboard/protocol/byId?id=${a2.protocol.id}`);
    expect(await runAccessAlerts(portal.ctx)).toBe(1);
    const [first] = await alerts();
    expect(first!.subject).toBe('Otra persona abrió sus resultados - Clínica Aurora');
    expect(first!.text).toContain(`protocolo ${a.protocol.number}`);
    expect(first!.text).toContain(`http://portal.test/patient/accesses?protocol=${a.protocol.id}`);
    expect(first!.text).not.toContain('Pedro');
    expect(first!.text).not.toContain(a2.protocol.number);

    // The same run again, or another opening an hour later: nothing new.
    expect(await runAccessAlerts(portal.ctx)).toBe(0);
    portal.clock.set('2026-11-20T13:00:00.000Z');
    await open(await asPhysician(), `/api/v2/delivery/resource/report?resourceId=${reportA}`);
    expect(await runAccessAlerts(portal.ctx)).toBe(0);
    // Someone else's protocol, whose patient asked for nothing, sends nothing either.
    await open(await asPhysician(), `/api/v2/delivery/resource/report?resourceId=${reportB}`);
    expect(await runAccessAlerts(portal.ctx)).toBe(0);
    expect(await mailsTo(portal.ctx, quiet.email)).toHaveLength(0);

    // Past the window, a new opening is told of again.
    portal.clock.set('2026-11-20T18:30:00.000Z');
    await open(await asPhysician(), `/api/v2/delivery/resource/report?resourceId=${reportA}`);
    expect(await runAccessAlerts(portal.ctx)).toBe(1);
    expect(await alerts()).toHaveLength(2);
  });

  it('sends one mail when 30 servers run the alerts at once', async () => {
    portal.clock.set('2026-11-21T09:00:00.000Z');
    await open(await asPhysician(), `/api/v2/delivery/resource/report?resourceId=${reportA}`);
    const runs = await Promise.all(Array.from({ length: 30 }, () => runAccessAlerts(portal.ctx)));
    expect(runs.reduce((sum, n) => sum + n, 0)).toBe(1);
    expect(await alerts()).toHaveLength(3);
  });
});
