import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { newId } from '../../lib/ids.js';
import { makeInstitution, makeProtocol, makeUser } from '../delivery/test-factories.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const BASE = '/api/administrationbe';

/**
 * An attack on the console's reach: a company user of one institution asks every console call,
 * with every filter naming another institution's data, and no answer (list, count, export, error)
 * may carry a trace of it; every id of the other institution answers 404 like an unknown one.
 */
describe('a company user never sees another institution’s data', () => {
  let portal: TestPortal;
  let company: string;
  let admin: string;
  const secret = {
    institutionId: '',
    code: 'SIGILO',
    name: 'Hospital Sigiloso',
    number: 'SIG-778899',
    patient: 'Zuleica Sigilosa',
    physicianEmail: 'dr.sigilo@hospital.test',
    companyEmail: 'staff@hospital.test',
    invitedEmail: 'convite.sigilo@hospital.test',
    tag: 'Grupo Sigiloso',
  };
  const ids = { protocol: '', physician: '', companyUser: '', invitation: '', tag: '', ingestCall: '' };
  const call = (method: Method, url: string, token: string, payload?: unknown) =>
    portal.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
  const markers = () => [
    secret.institutionId,
    secret.code,
    secret.name,
    secret.number,
    secret.patient,
    secret.physicianEmail,
    secret.companyEmail,
    secret.invitedEmail,
    secret.tag,
    ...Object.values(ids),
  ];
  const leaks = (text: string) => markers().filter((m) => m && text.toLowerCase().includes(m.toLowerCase()));

  beforeAll(async () => {
    portal = await startTestPortal();
    const own = await makeInstitution(portal.ctx, { code: 'PROPRIA', name: 'Clinica Propria' });
    const other = await makeInstitution(portal.ctx, { code: secret.code, name: secret.name });
    secret.institutionId = other.id;
    await makeProtocol(portal.ctx, { institutionId: own.id, number: 'OWN-1', patientName: 'Olga Propria' });
    const foreign = await makeProtocol(portal.ctx, {
      institutionId: other.id,
      number: secret.number,
      patientName: secret.patient,
    });
    ids.protocol = foreign.protocol.id;
    const companyUser = await makeUser(portal.ctx, {
      type: 'COMPANY',
      institutionId: own.id,
      email: 'own@clinic.test',
    });
    const adminUser = await makeUser(portal.ctx, { type: 'ADMIN', email: 'root@portal.test' });
    const physician = await makeUser(portal.ctx, {
      type: 'PHYSICIAN',
      institutionId: other.id,
      email: secret.physicianEmail,
      crm: '424242',
      uf: 'MG',
    });
    ids.physician = physician.id;
    const foreignCompany = await makeUser(portal.ctx, {
      type: 'COMPANY',
      institutionId: other.id,
      email: secret.companyEmail,
    });
    ids.companyUser = foreignCompany.id;
    company = await portal.sessionFor({ role: 'COMPANY', userId: companyUser.id, username: companyUser.email });
    admin = await portal.sessionFor({ role: 'ADMIN', userId: adminUser.id, username: adminUser.email });

    // The other institution's own activity, made through the admin's calls where there is one.
    await call('POST', `${BASE}/physician/invite`, admin, {
      email: secret.invitedEmail,
      name: 'Convidado Sigiloso',
      crm: '515151',
      uf: 'MG',
      institutionId: other.id,
    });
    ids.invitation = (await call('GET', `${BASE}/invitations?search=convite.sigilo`, admin)).json().data.items[0].id;
    ids.tag = (await call('POST', `${BASE}/institution/${other.id}/tags`, admin, { tag: secret.tag })).json().data.id;
    await call('PUT', `${BASE}/protocols/${ids.protocol}/status`, admin, { disabled: true, reason: 'motivo sigiloso' });
    await call('POST', `${BASE}/institution/${other.id}/physicians`, admin, { userId: physician.id });
    ids.ingestCall = newId();
    await portal.ctx.db
      .insertInto('ingestCalls')
      .values({
        id: ids.ingestCall,
        institutionId: other.id,
        door: 'JSON',
        method: 'PUT',
        path: `/api/v2/delivery/ingest/protocols/${secret.number}`,
        status: 400,
        error: 'Invalid request.',
        receivedAt: portal.clock.now().toISOString(),
        durationMs: 3,
      })
      .execute();
    await portal.ctx.db
      .insertInto('auditEvents')
      .values({
        id: newId(),
        occurredAt: portal.clock.now().toISOString(),
        application: 'results-portal',
        tenant: secret.code,
        event: 'VIEW_PROTOCOL',
        resource: null,
        protocolId: ids.protocol,
        systemUserId: physician.id,
        systemUserName: secret.physicianEmail,
        role: 'PHYSICIAN',
        sharedWith: null,
        patients: JSON.stringify([{ name: secret.patient }]),
        macro: null,
        ip: null,
        requestId: null,
      })
      .execute();
  });
  afterAll(async () => portal?.destroy());

  it('is meaningful: the admin does see every marker', async () => {
    const seen = [
      await call('GET', `${BASE}/protocols?institutionId=${secret.institutionId}`, admin),
      await call('GET', `${BASE}/audit/export.csv`, admin),
      await call('GET', `${BASE}/accounts?search=sigilo`, admin),
      await call('GET', `${BASE}/invitations`, admin),
      await call('GET', `${BASE}/ingest-calls`, admin),
      await call('GET', `${BASE}/institution/${secret.institutionId}/tags`, admin),
    ]
      .map((r) => r.body)
      .join('\n');
    for (const marker of [secret.number, secret.patient, secret.physicianEmail, secret.invitedEmail, secret.tag]) {
      expect(seen, marker).toContain(marker);
    }
  });

  it('finds no trace of it in any list, count or export, whatever the filter', async () => {
    const other = secret.institutionId;
    const queries = [
      '/institution',
      `/institution?search=${encodeURIComponent(secret.name)}`,
      '/dashboard',
      '/protocols',
      `/protocols?institutionId=${other}`,
      `/protocols?number=${secret.number}`,
      `/protocols?patient=${encodeURIComponent(secret.patient)}`,
      '/audit',
      `/audit?institutionId=${other}`,
      `/audit?protocol=${secret.number}`,
      `/audit?protocol=${ids.protocol}`,
      `/audit?patient=${encodeURIComponent(secret.patient)}`,
      `/audit?user=${encodeURIComponent(secret.physicianEmail)}`,
      '/audit?event=VIEW_PROTOCOL',
      '/audit?event=PROTOCOL_DISABLED',
      '/audit/export.csv',
      `/audit/export.csv?institutionId=${other}`,
      `/audit/export.csv?protocol=${secret.number}`,
      '/accounts',
      '/accounts?search=sigilo',
      '/accounts?search=424242',
      '/accounts?type=COMPANY',
      '/accounts?type=PHYSICIAN',
      '/invitations',
      `/invitations?institutionId=${other}`,
      '/invitations?search=sigilo',
      '/invitations?kind=PHYSICIAN',
      '/ingest-calls',
      `/ingest-calls?institutionId=${other}`,
      '/ingest-calls?errors=true',
      '/outbox',
      '/outbox?status=PENDING',
    ];
    for (const query of queries) {
      const response = await call('GET', `${BASE}${query}`, company);
      expect(response.statusCode, query).toBe(200);
      expect(leaks(response.body), query).toEqual([]);
    }
    // Counts too: every total is the company's own.
    const total = async (query: string) => (await call('GET', `${BASE}${query}`, company)).json().data.total;
    expect(await total(`/protocols?institutionId=${other}`)).toBe(0);
    expect(await total(`/audit?institutionId=${other}`)).toBe(0);
    expect(await total('/ingest-calls')).toBe(0);
    expect(await total('/invitations')).toBe(0);
    const dashboard = (await call('GET', `${BASE}/dashboard`, company)).json().data;
    expect(dashboard.institutions).toHaveLength(1);
    expect(dashboard.portal).toBeNull();
    expect((await call('GET', `${BASE}/outbox?institutionId=${other}`, company)).statusCode).toBe(404);
  });

  it('answers every id of it as not found, and changes nothing', async () => {
    const other = secret.institutionId;
    const attempts: Array<[Method, string, unknown?]> = [
      ['GET', `/institution/${other}`],
      ['PUT', `/institution/${other}`, { name: 'Tomado' }],
      ['GET', `/institution/${other}/tags`],
      ['POST', `/institution/${other}/tags`, { tag: 'Intruso' }],
      ['GET', `/institution/${other}/tags/${ids.tag}`],
      ['DELETE', `/institution/${other}/tags/${ids.tag}`],
      ['GET', `/institution/${other}/tags/${ids.tag}/users`],
      ['GET', `/institution/${other}/physicians`],
      ['POST', `/institution/${other}/physicians`, { userId: ids.physician }],
      ['DELETE', `/institution/${other}/physicians/${ids.physician}`],
      ['POST', '/physician/invite', { email: 'x@y.test', name: 'X', crm: '1', uf: 'SP', institutionId: other }],
      ['POST', '/company/invite', { email: 'x@y.test', institutionId: other }],
      ['GET', `/protocols/${ids.protocol}`],
      ['PUT', `/protocols/${ids.protocol}/status`, { disabled: false, reason: 'reabrir' }],
      ['PUT', `/accounts/${ids.physician}/disabled`, { disabled: true }],
      ['POST', `/accounts/${ids.physician}/unlock`],
      ['POST', `/accounts/${ids.physician}/sessions/end`],
      ['PUT', `/accounts/${ids.companyUser}/disabled`, { disabled: true }],
      ['POST', `/invitations/${ids.invitation}/resend`],
      ['DELETE', `/invitations/${ids.invitation}`],
    ];
    for (const [method, url, body] of attempts) {
      const response = await call(method, `${BASE}${url}`, company, body);
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      expect(leaks(response.body), `${method} ${url}`).toEqual([]);
    }
    const protocol = (await call('GET', `${BASE}/protocols/${ids.protocol}`, admin)).json().data;
    expect(protocol.disabled).toBe(true);
    const institution = (await call('GET', `${BASE}/institution/${other}`, admin)).json().data;
    expect(institution.name).toBe(secret.name);
    expect(
      (await call('GET', `${BASE}/invitations?state=PENDING&search=convite.sigilo`, admin)).json().data.total,
    ).toBe(1);
    expect((await call('GET', `${BASE}/institution/${other}/tags`, admin)).json().data).toHaveLength(1);
  });
});
