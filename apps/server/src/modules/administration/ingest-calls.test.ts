import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { newId } from '../../lib/ids.js';
import { makeInstitution, makeUser } from '../accounts/test-factories.js';

const BASE = '/api/administrationbe';

/** The console's view of the calls institutions' systems make to the ingest doors. */
describe('ingest calls in the console', () => {
  let portal: TestPortal;
  let alfa: Awaited<ReturnType<typeof makeInstitution>>;
  let beta: Awaited<ReturnType<typeof makeInstitution>>;
  const tokens: Record<string, string> = {};
  let adminSession: () => Promise<string>;
  const get = (url: string, token: string | null) =>
    portal.app.inject({ method: 'GET', url, headers: token ? bearer(token) : {} });
  const ingest = (key: string, number: string, body: unknown) =>
    portal.app.inject({
      method: 'PUT',
      url: `/api/v2/delivery/ingest/protocols/${number}`,
      headers: { 'x-api-key': key },
      payload: body as object,
    });
  const protocol = (name: string) => ({
    password: 'proto-1234',
    requestedAt: '2026-11-20T09:00:00-03:00',
    patient: { patientId: `P-${name}`, name, birthDate: '1980-05-04', gender: 'F' },
    exams: [
      {
        examKey: `EX-${name.replace(/\W/g, '')}`,
        description: 'Hemograma',
        type: 'LAB',
        modalityCode: 'LAB',
        modalityName: 'Laboratório',
        status: 'RELEASED',
      },
    ],
  });
  type Page = {
    items: Array<{ door: string; status: string; failed: boolean; error: string | null; institution: { id: string } }>;
    total: number;
  };
  const calls = async (token: string, query = '') =>
    (await get(`${BASE}/ingest-calls${query}`, token)).json().data as Page;

  beforeAll(async () => {
    portal = await startTestPortal();
    alfa = await makeInstitution(portal.ctx, { code: 'ALFA', name: 'Clinica Alfa', apiKey: 'key-alfa' });
    beta = await makeInstitution(portal.ctx, { code: 'BETA', name: 'Clinica Beta', apiKey: 'key-beta' });
    for (const [key, type, institutionId] of [
      ['admin', 'ADMIN', null],
      ['company', 'COMPANY', alfa.id],
      ['patient', 'PATIENT', null],
      ['physician', 'PHYSICIAN', alfa.id],
      ['external', 'EXTERNAL', null],
    ] as const) {
      const user = await makeUser(portal.ctx, { type, institutionId });
      const session = () => portal.sessionFor({ role: type, userId: user.id, username: user.email, appKey: 'admin' });
      if (key === 'admin') adminSession = session;
      tokens[key] = await session();
    }
    expect((await ingest('key-alfa', 'A-1', protocol('Ana'))).statusCode).toBe(201);
    portal.clock.advance(1000);
    // A refused call: the error is kept by its message and fields, never with the values sent.
    const refused = await ingest('key-alfa', 'A-2', {
      ...protocol('Segredo Paciente'),
      patient: { name: 'Segredo Paciente' },
    });
    expect(refused.statusCode).toBe(400);
    portal.clock.advance(1000);
    expect((await ingest('key-beta', 'B-1', protocol('Bia'))).statusCode).toBe(201);
    // A wrong key names no institution: nothing is kept.
    expect((await ingest('key-wrong', 'X-1', protocol('Xis'))).statusCode).toBe(401);
    portal.clock.advance(1000);
    await portal.ctx.db
      .insertInto('hl7Messages')
      .values({
        id: newId(),
        institutionId: alfa.id,
        transport: 'MLLP',
        remoteAddress: '10.0.0.5',
        sendingFacility: 'LIS-ALFA',
        controlId: 'MSG-1',
        messageType: 'ORU^R01',
        charset: null,
        message: 'MSH|...',
        outcome: 'ERROR',
        ackCode: 'AE',
        ack: 'MSA|AE|MSG-1',
        error: 'PID-3 missing',
        protocolNumbers: null,
        receivedAt: portal.clock.now().toISOString(),
        completedAt: portal.clock.now().toISOString(),
      })
      .execute();
  });
  afterAll(async () => portal?.destroy());

  it('lists every door’s calls newest first for admins, failed ones alone on request', async () => {
    const all = await calls(tokens.admin!);
    expect(all.total).toBe(4);
    expect(all.items.map((c) => [c.door, c.status])).toEqual([
      ['HL7', 'AE'],
      ['JSON', '201'],
      ['JSON', '400'],
      ['JSON', '201'],
    ]);
    const failed = await calls(tokens.admin!, '?errors=true');
    expect(failed.items.map((c) => c.status)).toEqual(['AE', '400']);
    expect(failed.items.every((c) => c.failed)).toBe(true);
    const refusal = failed.items[1]!.error!;
    expect(refusal).toContain('Invalid request.');
    expect(refusal).toContain('patient.');
    expect(refusal).not.toContain('Segredo');
    expect((await calls(tokens.admin!, `?institutionId=${beta.id}`)).total).toBe(1);
  });

  it('shows a company user its institution’s calls only, whatever the filter', async () => {
    const own = await calls(tokens.company!);
    expect(own.total).toBe(3);
    expect(own.items.every((c) => c.institution.id === alfa.id)).toBe(true);
    expect((await calls(tokens.company!, `?institutionId=${beta.id}`)).total).toBe(0);
    expect((await calls(tokens.company!, `?institutionId=${beta.id}&errors=true`)).total).toBe(0);
    for (const role of ['patient', 'physician', 'external']) {
      expect((await get(`${BASE}/ingest-calls`, tokens[role]!)).statusCode, role).toBe(403);
    }
    expect((await get(`${BASE}/ingest-calls`, null)).statusCode).toBe(401);
    expect((await get(`${BASE}/ingest-calls?errors=maybe`, tokens.admin!)).statusCode).toBe(400);
  });

  it('counts the calls and errors of the last 24 hours per institution on the dashboard', async () => {
    const dashboard = (await get(`${BASE}/dashboard`, tokens.admin!)).json().data;
    const row = (id: string) => dashboard.institutions.find((i: { id: string }) => i.id === id);
    expect(row(alfa.id)).toMatchObject({
      ingestCalls24h: 3,
      ingestErrors24h: 2,
      lastCallAt: portal.clock.now().toISOString(),
    });
    expect(row(beta.id)).toMatchObject({ ingestCalls24h: 1, ingestErrors24h: 0 });
    const own = (await get(`${BASE}/dashboard`, tokens.company!)).json().data;
    expect(own.institutions.map((i: { id: string }) => i.id)).toEqual([alfa.id]);

    portal.clock.advance(25 * 3600_000);
    tokens.admin = await adminSession();
    const later = (await get(`${BASE}/dashboard`, tokens.admin!)).json().data;
    expect(later.institutions.find((i: { id: string }) => i.id === alfa.id)).toMatchObject({
      ingestCalls24h: 0,
      ingestErrors24h: 0,
      lastCallAt: null,
    });
    // The list keeps them (30 days).
    expect((await calls(tokens.admin!)).total).toBe(4);
  });
});
