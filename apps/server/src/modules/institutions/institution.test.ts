import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserType } from '../../db/schema.js';
import { newId, sha256Hex } from '../../lib/ids.js';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { makeProtocol } from '../delivery/test-factories.js';

const URL = '/api/administrationbe/institution';

const ingestBody = {
  password: 'segredo',
  patient: { patientId: 'P1', name: 'Ana', birthDate: '1990-01-01', gender: 'F' },
  exams: [],
};

describe('institution administration', () => {
  let portal: TestPortal;
  let admin: string;
  let patient: string;

  async function user(type: UserType, institutionId: string | null = null): Promise<string> {
    const id = newId();
    const now = portal.clock.now().toISOString();
    await portal.ctx.db
      .insertInto('users')
      .values({
        id,
        type,
        email: `${id}@example.com`,
        passwordHash: null,
        name: type,
        active: 1,
        disabled: 0,
        mfaEnabled: 0,
        frequencyReceiveEmail: 'DEFAULT',
        language: 'pt-br',
        institutionId,
        createdAt: now,
        updatedAt: now,
      })
      .execute();
    const role = type === 'ADMIN' || type === 'COMPANY' ? type : 'PATIENT';
    return portal.sessionFor({ role, userId: id, username: `${id}@example.com`, appKey: 'admin' });
  }

  const create = (token: string | null, payload: Record<string, unknown>) =>
    portal.app.inject({ method: 'POST', url: URL, payload, headers: token ? bearer(token) : {} });
  const get = (token: string | null, id: string) =>
    portal.app.inject({ method: 'GET', url: `${URL}/${id}`, headers: token ? bearer(token) : {} });
  const update = (token: string | null, id: string, payload: Record<string, unknown>) =>
    portal.app.inject({ method: 'PUT', url: `${URL}/${id}`, payload, headers: token ? bearer(token) : {} });
  const ingest = (apiKey: string, number: string) =>
    portal.app.inject({
      method: 'PUT',
      url: `/api/v2/delivery/ingest/protocols/${number}`,
      payload: ingestBody,
      headers: { 'x-api-key': apiKey },
    });

  beforeAll(async () => {
    portal = await startTestPortal();
    admin = await user('ADMIN');
    patient = await user('PATIENT');
  });
  afterAll(async () => portal?.destroy());

  it('lets an admin create an institution whose key works for ingest at once and is stored only hashed', async () => {
    const res = await create(admin, {
      code: 'clinica-a',
      name: 'Clinica A',
      viewType: 1,
      supportEmail: 'Suporte@Clinica-A.com.br',
      supportWhatsAppNumber: '11987654321',
    });
    expect(res.statusCode).toBe(201);
    const data = res.json().data;
    expect(Object.keys(data).sort()).toEqual(['apiKey', 'code', 'id', 'token']);
    expect(data.code).toBe('CLINICA-A');
    // 256 random bits, URL-safe.
    expect(Buffer.from(data.apiKey, 'base64url')).toHaveLength(32);

    const row = await portal.ctx.db
      .selectFrom('institutions')
      .selectAll()
      .where('id', '=', data.id)
      .executeTakeFirstOrThrow();
    expect(row.apiKeyHash).toBe(sha256Hex(data.apiKey));
    expect(JSON.stringify(row)).not.toContain(data.apiKey);
    expect(row.supportEmail).toBe('suporte@clinica-a.com.br');

    expect((await ingest(data.apiKey, 'A-1')).statusCode).toBe(201);

    const read = await get(admin, data.id);
    expect(read.statusCode).toBe(200);
    expect(read.json().data).toMatchObject({
      id: data.id,
      code: 'CLINICA-A',
      name: 'Clinica A',
      token: data.token,
      viewType: 1,
      supportWhatsAppNumber: '11987654321',
      settings: {
        shareEnabled: true,
        createAccountDefaultDisabled: false,
        emailFrequencyDefault: 'EXAM',
        hasExamStatusVisualizer: false,
        visualizerSettings: [],
        smart: null,
      },
    });
    expect(read.json().data.apiKey).toBeUndefined();
  });

  it('refuses a duplicate code with 409, whatever its letter case', async () => {
    expect((await create(admin, { code: 'DUP', name: 'One', viewType: 2 })).statusCode).toBe(201);
    const again = await create(admin, { code: 'dup', name: 'Two', viewType: 2 });
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe('The institution code is already in use!');
    expect(
      await portal.ctx.db.selectFrom('institutions').select('id').where('code', '=', 'DUP').execute(),
    ).toHaveLength(1);
  });

  it('validates the payload and says which fields are wrong', async () => {
    const res = await create(admin, { code: 'has space', name: '', viewType: 3, settings: { shareEnabled: 'yes' } });
    expect(res.statusCode).toBe(400);
    const fields = (res.json().data as Array<{ field: string }>).map((d) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['code', 'name', 'viewType', 'settings.shareEnabled']));
  });

  it('lets company users read and change only their own institution', async () => {
    const own = (await create(admin, { code: 'OWN', name: 'Own', viewType: 2 })).json().data;
    const other = (await create(admin, { code: 'OTHER', name: 'Other', viewType: 2 })).json().data;
    const company = await user('COMPANY', own.id);

    expect((await create(company, { code: 'NEWONE', name: 'New', viewType: 2 })).statusCode).toBe(403);
    expect((await get(company, own.id)).statusCode).toBe(200);
    const foreign = await get(company, other.id);
    expect(foreign.statusCode).toBe(404);
    expect((await get(company, 'no-such-id')).statusCode).toBe(404);
    expect((await update(company, other.id, { name: 'Mine now' })).statusCode).toBe(404);
    expect((await update(company, own.id, { code: 'RENAMED' })).statusCode).toBe(403);

    const changed = await update(company, own.id, {
      name: 'Own Clinic',
      supportPhoneNumber: '1133334444',
      settings: {
        shareEnabled: false,
        hasExamStatusVisualizer: true,
        emailFrequencyDefault: 'WEEK',
        visualizerSettings: [
          { examTypeCode: 'US', hideButton: true, enable: true },
          { examTypeCode: 'LAB', hideButton: false, enable: false },
        ],
        smart: { url: 'https://smart.example.com/api', secret: 'a-long-enough-secret' },
      },
    });
    expect(changed.statusCode).toBe(200);
    const view = changed.json().data;
    expect(view).toMatchObject({
      name: 'Own Clinic',
      supportPhoneNumber: '1133334444',
      settings: {
        shareEnabled: false,
        createAccountDefaultDisabled: false,
        hasExamStatusVisualizer: true,
        emailFrequencyDefault: 'WEEK',
        visualizerSettings: [
          { examTypeCode: 'LAB', hideButton: false, enable: false },
          { examTypeCode: 'US', hideButton: true, enable: true },
        ],
        smart: { url: 'https://smart.example.com/api' },
      },
      institutionVisualizerExamTypeSettingsDTO: [
        { examType: { code: 'LAB' }, hideButton: false, enable: false },
        { examType: { code: 'US' }, hideButton: true, enable: true },
      ],
    });
    expect(JSON.stringify(view)).not.toContain('a-long-enough-secret');

    // An update changes only what it carries.
    const partial = await update(company, own.id, { settings: { createAccountDefaultDisabled: true } });
    expect(partial.json().data.settings).toMatchObject({
      shareEnabled: false,
      createAccountDefaultDisabled: true,
      visualizerSettings: [{ examTypeCode: 'LAB' }, { examTypeCode: 'US' }],
    });
    expect(partial.json().data.name).toBe('Own Clinic');
  });

  it('rotates the API key: the new one works, the old one is refused', async () => {
    const created = (await create(admin, { code: 'ROT', name: 'Rot', viewType: 2 })).json().data;
    expect((await ingest(created.apiKey, 'R-1')).statusCode).toBe(201);
    const rotated = await update(admin, created.id, { rotateApiKey: true });
    expect(rotated.statusCode).toBe(200);
    const newKey = rotated.json().data.apiKey as string;
    expect(newKey).toBeTruthy();
    expect(newKey).not.toBe(created.apiKey);
    expect((await ingest(created.apiKey, 'R-1')).statusCode).toBe(401);
    expect((await ingest(newKey, 'R-1')).statusCode).toBe(200);
  });

  it('answers 403 to other roles and 401 without a session', async () => {
    const some = (await create(admin, { code: 'GUARD', name: 'Guard', viewType: 2 })).json().data;
    expect((await create(patient, { code: 'P', name: 'P', viewType: 2 })).statusCode).toBe(403);
    expect((await get(patient, some.id)).statusCode).toBe(403);
    expect((await update(patient, some.id, { name: 'x' })).statusCode).toBe(403);
    const guest = await portal.sessionFor({ role: 'GUEST', username: '123' });
    expect((await get(guest, some.id)).statusCode).toBe(403);

    for (const res of [
      await create(null, { code: 'ANON', name: 'Anon', viewType: 2 }),
      await get(null, some.id),
      await update(null, some.id, { name: 'x' }),
      // Authentication comes before validation.
      await create(null, { code: '' }),
    ]) {
      expect(res.statusCode).toBe(401);
    }
    expect(
      await portal.ctx.db.selectFrom('institutions').select('id').where('code', '=', 'ANON').execute(),
    ).toHaveLength(0);
  });

  it('shows the protocol notice set through PUT on the protocol screen, and refuses one too long', async () => {
    const created = (await create(admin, { code: 'AVISO', name: 'Aviso', viewType: 2 })).json().data;
    const { protocol } = await makeProtocol(portal.ctx, { institutionId: created.id, exams: [{ description: 'TSH' }] });
    const guest = await portal.sessionFor({ role: 'GUEST', username: protocol.number, protocolIds: [protocol.id] });
    const detail = async () => {
      const res = await portal.app.inject({
        method: 'GET',
        url: `/api/delivery/persistence/dashboard/protocol/byId?id=${protocol.id}`,
        headers: bearer(guest),
      });
      expect(res.statusCode).toBe(200);
      return res.json().data;
    };
    expect((await detail()).institutionNotice).toBeNull();

    const notice = {
      'pt-br': 'Os resultados ficam disponíveis por seis meses.',
      en: 'Results are available for six months.',
    };
    const saved = await update(admin, created.id, { settings: { protocolNotice: notice } });
    expect(saved.statusCode).toBe(200);
    expect(saved.json().data.settings.protocolNotice).toEqual(notice);
    expect((await detail()).institutionNotice).toEqual(notice);

    // Other settings keep their values when the notice changes, and the other way round.
    expect((await update(admin, created.id, { settings: { shareEnabled: false } })).statusCode).toBe(200);
    const read = (await get(admin, created.id)).json().data;
    expect(read.settings).toMatchObject({ shareEnabled: false, protocolNotice: notice });

    const tooLong = await update(admin, created.id, {
      settings: { protocolNotice: { 'pt-br': 'a'.repeat(500), es: 'b'.repeat(501) } },
    });
    expect(tooLong.statusCode).toBe(400);
    expect((tooLong.json().data as Array<{ field: string }>).map((d) => d.field)).toContain(
      'settings.protocolNotice.es',
    );
    const withoutPortuguese = await update(admin, created.id, { settings: { protocolNotice: { en: 'Hello' } } });
    expect(withoutPortuguese.statusCode).toBe(400);
    expect((await detail()).institutionNotice).toEqual(notice);

    const atLimit = { 'pt-br': 'a'.repeat(500) };
    expect((await update(admin, created.id, { settings: { protocolNotice: atLimit } })).statusCode).toBe(200);
    expect((await detail()).institutionNotice).toEqual(atLimit);

    expect((await update(admin, created.id, { settings: { protocolNotice: null } })).statusCode).toBe(200);
    expect((await detail()).institutionNotice).toBeNull();
  });
});
