import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { sql } from 'kysely';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../lib/passwords.js';
import { sha256Hex } from '../../lib/ids.js';
import { countRows, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { createInstitution } from '../institutions/institution.service.js';

const BASE = '/api/v2/delivery/ingest/protocols';

async function makePdf(pages: number, text: string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < pages; i++) doc.addPage([200, 200]).drawText(`${text} ${i + 1}`, { x: 20, y: 100, size: 12 });
  return Buffer.from(await doc.save());
}

/** A loose shape: tests reshape the body freely, the server is what validates it. */
type ProtocolBody = {
  exams: Array<Record<string, unknown> & { examKey: string }>;
  patient: Record<string, unknown>;
  [key: string]: unknown;
};

function protocolBody(overrides: Record<string, unknown> = {}): ProtocolBody {
  return {
    password: 'senha-do-protocolo',
    requestedAt: '2026-11-10T09:30:00-03:00',
    tag: 'Clinica Parceira',
    patient: {
      patientId: 'P-778',
      name: 'Joao Conceição da Silva',
      birthDate: '1980-04-12',
      gender: 'M',
      email: 'Joao.Silva@example.com',
      phone: '11987654321',
      cpf: '529.982.247-25',
    },
    exams: [
      {
        examKey: 'EX-1',
        description: 'Hemograma completo',
        type: 'LAB',
        modalityCode: 'LAB',
        modalityName: 'Laboratorio',
        requester: { identifier: 'R1', name: 'Dra. Ana', crm: '12345', uf: 'sp' },
        status: 'RELEASED',
        performedAt: '2026-11-10T10:00:00-03:00',
        analytes: [
          { code: 'HB', name: 'Hemoglobina', unit: 'g/dL', value: 13.5, referenceMin: 12, referenceMax: 16 },
          { code: 'OBS', name: 'Observacao', value: 'sem alteracoes' },
          { code: 'HT', name: 'Hematocrito', unit: '%', value: '41,2' },
        ],
      },
      {
        examKey: 'EX-2',
        description: 'Raio X de torax',
        type: 'IMG',
        modalityCode: 'CR',
        modalityName: 'Radiografia',
        requester: { identifier: 'R2', name: 'Dr. Beto', crm: '999', uf: 'RJ' },
        status: 'P',
      },
      {
        examKey: 'EX-3',
        description: 'Ultrassom',
        type: 'IMG',
        modalityCode: 'US',
        modalityName: 'Ultrassom',
        requester: { identifier: 'R1', name: 'Dra. Ana', crm: '12345', uf: 'SP' },
        status: 'SOMETHING_NEW',
      },
    ],
    ...overrides,
  };
}

/** Every file under a folder, temp files included. */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .map((f) => path.join(dir, f))
    .filter((f) => fs.statSync(f).isFile())
    .sort();
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('ingest of protocols and files', () => {
  let portal: TestPortal;
  let apiKey: string;
  let institutionId: string;
  let filesDir: string;

  beforeAll(async () => {
    portal = await startTestPortal();
    const created = await createInstitution(portal.ctx, { code: 'LAB1', name: 'Laboratorio Um', viewType: 2 });
    apiKey = created.apiKey;
    institutionId = created.institution.id;
    filesDir = path.join(portal.ctx.config.dataDir, 'files');
  });
  afterAll(async () => portal?.destroy());

  const put = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
    portal.app.inject({ method: 'PUT', url, payload: payload as string, headers: { 'x-api-key': apiKey, ...headers } });

  const count = (table: 'protocols' | 'exams' | 'resources' | 'analytes' | 'tags' | 'oneTimeTokens' | 'outbox') =>
    countRows(portal.ctx.db, table);

  it('keeps exactly one protocol, three exams and three byte-identical files however often they are sent', async () => {
    const pdfs = [await makePdf(1, 'Hemograma'), await makePdf(2, 'Torax'), await makePdf(3, 'Ultrassom')];
    const statuses: number[] = [];
    for (let round = 0; round < 2; round++) {
      const res = await put(`${BASE}/2026-0001`, protocolBody());
      statuses.push(res.statusCode);
      expect(res.json().data.number).toBe('2026-0001');
      for (const [i, pdf] of pdfs.entries()) {
        const up = await put(`${BASE}/2026-0001/exams/EX-${i + 1}/resources/LAUDO-${i + 1}?type=REPORT`, pdf, {
          'content-type': 'application/pdf',
        });
        statuses.push(up.statusCode);
        expect(up.json().data).toMatchObject({ size: pdf.length, sha256: sha256Hex(pdf), pageCount: i + 1 });
      }
    }
    expect(statuses).toEqual([201, 201, 201, 201, 200, 200, 200, 200]);
    expect([await count('protocols'), await count('exams'), await count('resources')]).toEqual([1, 3, 3]);

    const protocol = await portal.ctx.db.selectFrom('protocols').selectAll().executeTakeFirstOrThrow();
    expect(protocol.passwordHash.startsWith('$argon2id$')).toBe(true);
    expect(await verifyPassword(protocol.passwordHash, 'senha-do-protocolo')).toBe(true);
    expect(protocol).toMatchObject({
      institutionId,
      patientNameSearch: 'joao conceicao da silva',
      patientEmail: 'joao.silva@example.com',
      patientCpf: '52998224725',
      patientGender: 'MALE',
      requestedAt: '2026-11-10T12:30:00.000Z',
      sortAt: '2026-11-10T12:30:00.000Z',
      disabled: 0,
    });

    const exams = await portal.ctx.db.selectFrom('exams').selectAll().orderBy('position').execute();
    expect(exams.map((e) => [e.examKey, e.status, e.statusCode])).toEqual([
      ['EX-1', 'RELEASED', 'L'],
      ['EX-2', 'P', 'P'],
      ['EX-3', 'SOMETHING_NEW', 'NI'],
    ]);
    const requesters = await portal.ctx.db.selectFrom('protocolRequesters').selectAll().orderBy('crm').execute();
    expect(requesters.map((r) => [r.crm, r.uf, r.sortAt])).toEqual([
      ['12345', 'SP', protocol.sortAt],
      ['999', 'RJ', protocol.sortAt],
    ]);
    const analytes = await portal.ctx.db.selectFrom('analytes').selectAll().orderBy('position').execute();
    expect(analytes.map((a) => [a.code, a.value, a.valueNumber])).toEqual([
      ['HB', '13.5', 13.5],
      ['OBS', 'sem alteracoes', null],
      ['HT', '41,2', 41.2],
    ]);

    const resources = await portal.ctx.db
      .selectFrom('resources')
      .innerJoin('exams', 'exams.id', 'resources.examId')
      .select(['exams.examKey', 'resources.storageKey', 'resources.identifier', 'resources.size'])
      .orderBy('exams.examKey')
      .execute();
    for (const [i, r] of resources.entries()) {
      // The key is the server's own, never the client's name.
      expect(r.storageKey).not.toContain('LAUDO');
      expect(Buffer.compare(await readAll(await portal.ctx.storage.get(r.storageKey)), pdfs[i]!)).toBe(0);
    }
    // Replaced-by-identical uploads leave no second copy behind.
    expect(filesUnder(filesDir)).toHaveLength(3);
  });

  it('an identical re-send changes no row at all', async () => {
    const before = await portal.ctx.db.selectFrom('protocols').select(['updatedAt', 'passwordHash']).execute();
    const examsBefore = await portal.ctx.db.selectFrom('exams').select(['id', 'updatedAt']).execute();
    portal.clock.advance(60_000);
    expect((await put(`${BASE}/2026-0001`, protocolBody())).statusCode).toBe(200);
    expect(await portal.ctx.db.selectFrom('protocols').select(['updatedAt', 'passwordHash']).execute()).toEqual(before);
    expect(await portal.ctx.db.selectFrom('exams').select(['id', 'updatedAt']).execute()).toEqual(examsBefore);
    expect(await count('tags')).toBe(1);
  });

  it('a later PUT without an exam disables it, a new password replaces the hash, and DELETE disables the protocol', async () => {
    const body = protocolBody({ password: 'outra-senha', tag: 'Outro Parceiro', requestedAt: null });
    body.exams = body.exams.filter((e) => e.examKey !== 'EX-2');
    body.exams[0] = { ...body.exams[0]!, analytes: [{ code: 'HB', name: 'Hemoglobina', unit: 'g/dL', value: 14 }] };
    expect((await put(`${BASE}/2026-0001`, body)).statusCode).toBe(200);

    const exams = await portal.ctx.db.selectFrom('exams').select(['examKey', 'isEnabled']).orderBy('examKey').execute();
    expect(exams).toEqual([
      { examKey: 'EX-1', isEnabled: 1 },
      { examKey: 'EX-2', isEnabled: 0 },
      { examKey: 'EX-3', isEnabled: 1 },
    ]);
    const analytes = await portal.ctx.db.selectFrom('analytes').select(['code', 'valueNumber']).execute();
    expect(analytes).toEqual([{ code: 'HB', valueNumber: 14 }]);
    const protocol = await portal.ctx.db.selectFrom('protocols').selectAll().executeTakeFirstOrThrow();
    expect(await verifyPassword(protocol.passwordHash, 'outra-senha')).toBe(true);
    expect(protocol.sortAt).toBe(protocol.createdAt);
    const tags = await portal.ctx.db.selectFrom('tags').select(['id', 'tag']).orderBy('tag').execute();
    expect(tags.map((t) => t.tag)).toEqual(['Clinica Parceira', 'Outro Parceiro']);
    expect(protocol.tagId).toBe(tags[1]!.id);
    const requesters = await portal.ctx.db.selectFrom('protocolRequesters').select(['crm', 'sortAt']).execute();
    expect(requesters).toEqual([{ crm: '12345', sortAt: protocol.sortAt }]);

    const del = await portal.app.inject({
      method: 'DELETE',
      url: `${BASE}/2026-0001`,
      headers: { 'x-api-key': apiKey },
    });
    expect(del.statusCode).toBe(200);
    expect(del.json()).toEqual({ data: { requestId: protocol.id, number: '2026-0001' } });
    const after = await portal.ctx.db.selectFrom('protocols').select('disabled').executeTakeFirstOrThrow();
    expect(after.disabled).toBe(1);
    expect([await count('protocols'), await count('exams'), await count('resources')]).toEqual([1, 3, 3]);

    const missing = await portal.app.inject({
      method: 'DELETE',
      url: `${BASE}/nope`,
      headers: { 'x-api-key': apiKey },
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().message).toBe('Protocol does not exists!');

    // Pushed again, the protocol is live again.
    expect((await put(`${BASE}/2026-0001`, body)).statusCode).toBe(200);
    expect((await portal.ctx.db.selectFrom('protocols').select('disabled').executeTakeFirstOrThrow()).disabled).toBe(0);
  });

  it('replaces a changed file, removes the old object, and keeps the signed version beside it', async () => {
    const newPdf = await makePdf(2, 'Retificado');
    const url = `${BASE}/2026-0001/exams/EX-1/resources/LAUDO-1`;
    const before = await portal.ctx.db
      .selectFrom('resources')
      .selectAll()
      .where('identifier', '=', 'LAUDO-1')
      .executeTakeFirstOrThrow();
    const res = await put(`${url}?type=REPORT`, newPdf, { 'content-type': 'application/pdf' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.pageCount).toBe(2);
    expect(await portal.ctx.storage.exists(before.storageKey)).toBe(false);

    const signed = Buffer.concat([Buffer.from([0x30, 0x82, 0x01, 0x00]), Buffer.alloc(256, 7)]);
    const first = await put(`${url}/signed`, signed, { 'content-type': 'application/pkcs7-signature' });
    expect(first.statusCode).toBe(201);
    expect(first.json().data).toMatchObject({ signed: true, size: signed.length });
    const again = await put(`${url}/signed`, signed, { 'content-type': 'application/pkcs7-signature' });
    expect(again.statusCode).toBe(200);
    const row = await portal.ctx.db
      .selectFrom('resources')
      .selectAll()
      .where('identifier', '=', 'LAUDO-1')
      .executeTakeFirstOrThrow();
    expect(Buffer.compare(await readAll(await portal.ctx.storage.get(row.signedStorageKey!)), signed)).toBe(0);
    expect(Buffer.compare(await readAll(await portal.ctx.storage.get(row.storageKey)), newPdf)).toBe(0);
    expect(filesUnder(filesDir)).toHaveLength(4);

    const noResource = await put(`${BASE}/2026-0001/exams/EX-1/resources/NOPE/signed`, signed, {
      'content-type': 'application/pkcs7-signature',
    });
    expect(noResource.statusCode).toBe(404);
  });

  it('accepts images and keeps their type', async () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(100, 1)]);
    const res = await put(`${BASE}/2026-0001/exams/EX-3/resources/IMG-1?type=IMAGE`, png, {
      'content-type': 'image/png',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ type: 'IMAGE', contentType: 'image/png', pageCount: null });
  });

  it('refuses bad calls and leaves nothing behind', async () => {
    const snapshot = async () => ({
      rows: await Promise.all(
        (['protocols', 'exams', 'resources', 'analytes', 'tags', 'oneTimeTokens', 'outbox'] as const).map(count),
      ),
      files: filesUnder(filesDir),
      protocols: await portal.ctx.db.selectFrom('protocols').select(['id', 'updatedAt']).execute(),
    });
    const start = await snapshot();
    const pdf = await makePdf(1, 'x');
    const resourceUrl = `${BASE}/2026-0001/exams/EX-1/resources/NEW-1?type=REPORT`;

    const missing = await put(`${BASE}/2026-0002`, { password: 'x', patient: { name: 'A' }, exams: [{}] });
    expect(missing.statusCode).toBe(400);
    const fields = (missing.json().data as Array<{ field: string }>).map((d) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['patient.patientId', 'patient.birthDate', 'exams.0.examKey']));

    const wrongTypes = await put(`${BASE}/2026-0002`, protocolBody({ exams: 'many', requestedAt: 12 }));
    expect(wrongTypes.statusCode).toBe(400);
    expect((wrongTypes.json().data as Array<{ field: string }>).map((d) => d.field)).toEqual(
      expect.arrayContaining(['exams', 'requestedAt']),
    );

    const badDate = await put(
      `${BASE}/2026-0002`,
      protocolBody({ patient: { ...protocolBody().patient, birthDate: '12/04/1980' } }),
    );
    expect(badDate.statusCode).toBe(400);

    const pathLike = await put(`${BASE}/2026-0001/exams/EX-1/resources/..%2Fetc?type=REPORT`, pdf, {
      'content-type': 'application/pdf',
    });
    expect(pathLike.statusCode).toBe(400);
    expect(JSON.stringify(pathLike.json().data)).toContain('identifier');
    const slash = await put(`${BASE}/2026-0001/exams/a%2Fb/resources/R1?type=REPORT`, pdf, {
      'content-type': 'application/pdf',
    });
    expect(slash.statusCode).toBe(400);
    expect(JSON.stringify(slash.json().data)).toContain('examKey');

    const badType = await put(`${BASE}/2026-0001/exams/EX-1/resources/NEW-1?type=VIDEO`, pdf, {
      'content-type': 'application/pdf',
    });
    expect(badType.statusCode).toBe(400);

    for (const contentType of ['application/octet-stream', 'text/plain', 'application/json', 'image/gif']) {
      const res = await put(resourceUrl, contentType === 'application/json' ? '{"a":1}' : pdf, {
        'content-type': contentType,
      });
      expect(res.statusCode, contentType).toBe(415);
    }

    const notPdf = await put(resourceUrl, Buffer.from('GIF89a not a pdf at all'), {
      'content-type': 'application/pdf',
    });
    expect(notPdf.statusCode).toBe(400);
    const notJpeg = await put(resourceUrl, pdf, { 'content-type': 'image/jpeg' });
    expect(notJpeg.statusCode).toBe(400);
    const empty = await put(resourceUrl, Buffer.alloc(0), { 'content-type': 'application/pdf' });
    expect(empty.statusCode).toBe(400);

    const unknownExam = await put(`${BASE}/2026-0001/exams/EX-9/resources/NEW-1?type=REPORT`, pdf, {
      'content-type': 'application/pdf',
    });
    expect(unknownExam.statusCode).toBe(404);

    // 200 MiB made on the fly, never held in memory.
    const mib = Buffer.alloc(1024 * 1024, 0x20);
    async function* huge() {
      yield Buffer.from('%PDF-1.7\n');
      for (let i = 0; i < 200; i++) yield mib;
    }
    const tooBig = await portal.app.inject({
      method: 'PUT',
      url: resourceUrl,
      payload: Readable.from(huge()),
      headers: { 'x-api-key': apiKey, 'content-type': 'application/pdf' },
    });
    expect(tooBig.statusCode).toBe(413);
    const declaredTooBig = await put(resourceUrl, pdf, {
      'content-type': 'application/pdf',
      'content-length': String(200 * 1024 * 1024),
    });
    expect(declaredTooBig.statusCode).toBe(413);

    for (const headers of [{}, { 'x-api-key': 'wrong-key' }, { 'x-api-key': apiKey.slice(0, -1) }]) {
      const res = await portal.app.inject({
        method: 'PUT',
        url: `${BASE}/2026-0003`,
        payload: protocolBody(),
        headers,
      });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ message: 'Invalid API key.' });
      const upload = await portal.app.inject({
        method: 'PUT',
        url: resourceUrl,
        payload: pdf,
        headers: { ...headers, 'content-type': 'application/pdf' },
      });
      expect(upload.statusCode).toBe(401);
    }

    expect(await snapshot()).toEqual(start);
  });

  it('takes blank optional fields as not informed', async () => {
    const body = protocolBody({ tag: '', requestedAt: '' });
    body.patient = { ...body.patient, email: '', cpf: ' ', phone: '', gender: 'f' };
    body.exams = [{ ...body.exams[1]!, performedAt: '', requester: { identifier: 'R', name: 'N', crm: '', uf: '' } }];
    const res = await put(`${BASE}/2026-0100`, body);
    expect(res.statusCode).toBe(201);
    const row = await portal.ctx.db
      .selectFrom('protocols')
      .selectAll()
      .where('number', '=', '2026-0100')
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      patientEmail: null,
      patientCpf: null,
      patientGender: 'FEMALE',
      tagId: null,
      requestedAt: null,
    });
    const requesters = await portal.ctx.db
      .selectFrom('protocolRequesters')
      .selectAll()
      .where('protocolId', '=', row.id)
      .execute();
    expect(requesters).toEqual([]);
  });

  it('removes the stored file again when its row cannot be written', async () => {
    const db = portal.ctx.db;
    // A real database failure, made by the database itself.
    if (portal.ctx.dialect === 'sqlite') {
      await sql`CREATE TRIGGER refuse_resources BEFORE INSERT ON resources
        BEGIN SELECT RAISE(ABORT, 'refused for the test'); END`.execute(db);
    } else {
      await sql`CREATE FUNCTION refuse_resources() RETURNS trigger AS $$
        BEGIN RAISE EXCEPTION 'refused for the test'; END; $$ LANGUAGE plpgsql`.execute(db);
      await sql`CREATE TRIGGER refuse_resources BEFORE INSERT ON resources
        FOR EACH ROW EXECUTE FUNCTION refuse_resources()`.execute(db);
    }
    try {
      const files = filesUnder(filesDir);
      const res = await put(`${BASE}/2026-0001/exams/EX-2/resources/NEVER?type=REPORT`, await makePdf(1, 'x'), {
        'content-type': 'application/pdf',
      });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ message: 'Internal server error.' });
      expect(filesUnder(filesDir)).toEqual(files);
    } finally {
      if (portal.ctx.dialect === 'sqlite') await sql`DROP TRIGGER refuse_resources`.execute(db);
      else {
        await sql`DROP TRIGGER refuse_resources ON resources`.execute(db);
        await sql`DROP FUNCTION refuse_resources()`.execute(db);
      }
    }
  });

  it('creates a protocol once when the same call arrives several times at once', async () => {
    const results = await Promise.all(Array.from({ length: 4 }, () => put(`${BASE}/2026-0200`, protocolBody())));
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 200, 200, 201]);
    const protocols = await portal.ctx.db
      .selectFrom('protocols')
      .select('id')
      .where('number', '=', '2026-0200')
      .execute();
    expect(protocols).toHaveLength(1);
    const exams = await portal.ctx.db
      .selectFrom('exams')
      .select('id')
      .where('protocolId', '=', protocols[0]!.id)
      .execute();
    expect(exams).toHaveLength(3);
  });

  it('keeps institutions apart: another key does not reach this protocol', async () => {
    const other = await createInstitution(portal.ctx, { code: 'LAB2', name: 'Laboratorio Dois', viewType: 1 });
    const res = await portal.app.inject({
      method: 'DELETE',
      url: `${BASE}/2026-0001`,
      headers: { 'x-api-key': other.apiKey },
    });
    expect(res.statusCode).toBe(404);
    // The same number in another institution is another protocol.
    const created = await portal.app.inject({
      method: 'PUT',
      url: `${BASE}/2026-0001`,
      payload: protocolBody(),
      headers: { 'x-api-key': other.apiKey },
    });
    expect(created.statusCode).toBe(201);
    const numbers = await portal.ctx.db
      .selectFrom('protocols')
      .select('number')
      .where('number', '=', '2026-0001')
      .execute();
    expect(numbers).toHaveLength(2);
  });

  it('tells the patient by mail once a released exam has its report, without results or passwords', async () => {
    const notices = await portal.ctx.db
      .selectFrom('outbox')
      .selectAll()
      .where('recipient', '=', 'joao.silva@example.com')
      .where('payload', 'not like', '%/patient/create%')
      .execute();
    expect(notices.length).toBeGreaterThanOrEqual(1);
    for (const notice of notices) {
      expect(notice.payload).toContain('http://portal.test/login');
      expect(notice.payload).not.toContain('senha-do-protocolo');
      expect(notice.payload).not.toContain('Hemoglobina');
    }
    const recorded = await portal.ctx.db.selectFrom('resultNotifications').select(['examId']).execute();
    expect(new Set(recorded.map((r) => r.examId)).size).toBe(recorded.length);
  });

  it('invites the patient by mail with a 7-day token kept only as its hash', async () => {
    const res = await portal.app.inject({
      method: 'POST',
      url: `${BASE}/2026-0001/invite`,
      payload: { language: 'ES' },
      headers: { 'x-api-key': apiKey },
    });
    expect(res.statusCode).toBe(200);
    // Result-ready notices of the released exams sit in the outbox too: look at the invitation.
    const invitations = () =>
      portal.ctx.db.selectFrom('outbox').selectAll().where('payload', 'like', '%/patient/create?token=%').execute();
    const [mail, ...others] = await invitations();
    expect(others).toHaveLength(0);
    expect(mail!.recipient).toBe('joao.silva@example.com');
    const link = /http:\/\/portal\.test\/patient\/create\?token=([\w-]+)&language=es/.exec(mail!.payload);
    expect(link).not.toBeNull();
    const token = link![1]!;
    const stored = await portal.ctx.db.selectFrom('oneTimeTokens').selectAll().executeTakeFirstOrThrow();
    expect(stored).toMatchObject({
      kind: 'INVITE_PATIENT',
      tokenHash: sha256Hex(token),
      email: 'joao.silva@example.com',
    });
    expect(new Date(stored.expiresAt).getTime() - new Date(stored.createdAt).getTime()).toBe(7 * 24 * 3600_000);
    expect(JSON.stringify(stored)).not.toContain(token);

    // A retry of the same call mails nothing more.
    await portal.app.inject({ method: 'POST', url: `${BASE}/2026-0001/invite`, headers: { 'x-api-key': apiKey } });
    expect(await invitations()).toHaveLength(1);

    const body = protocolBody({ patient: { ...protocolBody().patient, email: null } });
    await put(`${BASE}/2026-0009`, body);
    const noMail = await portal.app.inject({
      method: 'POST',
      url: `${BASE}/2026-0009/invite`,
      headers: { 'x-api-key': apiKey },
    });
    expect(noMail.statusCode).toBe(400);
  });
});
