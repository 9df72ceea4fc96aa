import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import { examStatusCode } from '@portal/shared/exam-status';
import jpeg from 'jpeg-js';
import { PDFDocument } from 'pdf-lib';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPortal, type TestPortal } from '../../test/helpers.js';
import { DEMO_LOGINS, seedDemoClinic } from './demo-data.js';

async function counts(portal: TestPortal) {
  const db = portal.ctx.db;
  type Counted = 'institutions' | 'users' | 'tags' | 'tagMembers' | 'protocols' | 'exams' | 'analytes' | 'shares';
  const count = async (table: Counted) =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const signed = await db
    .selectFrom('resources')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('signedStorageKey', 'is not', null)
    .executeTakeFirstOrThrow();
  const resources = await db
    .selectFrom('resources')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return {
    institutions: await count('institutions'),
    users: await count('users'),
    tags: await count('tags'),
    tagMembers: await count('tagMembers'),
    protocols: await count('protocols'),
    exams: await count('exams'),
    analytes: await count('analytes'),
    shares: await count('shares'),
    resources: Number(resources.n),
    signed: Number(signed.n),
  };
}

/** `openssl cms -verify` of a detached signature up to `caFile`: true or false, or null where openssl is absent. */
function verifyWithOpenssl(p7s: Buffer, content: Buffer, caFile: string): boolean | null {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-p7s-'));
  try {
    fs.writeFileSync(path.join(dir, 'sig.p7s'), p7s);
    fs.writeFileSync(path.join(dir, 'report.pdf'), content);
    const args = ['cms', '-verify', '-binary', '-CAfile', caFile, '-inform', 'DER', '-in', 'sig.p7s'];
    const run = spawnSync('openssl', [...args, '-content', 'report.pdf', '-out', os.devNull], { cwd: dir });
    if (run.error) return null;
    return run.status === 0;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const login = (portal: TestPortal, body: Record<string, string>) =>
  portal.app.inject({ method: 'POST', url: '/api/v2/auth/login', payload: { appKey: 'login', ...body } });

describe('demo clinic', () => {
  let portal: TestPortal;
  // Loading hashes a password per protocol and draws every file: slow on a busy machine.
  beforeAll(async () => {
    portal = await startTestPortal({ env: { DEMO_DATA: 'true' } });
  }, 180_000);
  afterAll(async () => portal?.destroy());

  it('loads the clinic with accounts, a tag and at least 12 protocols of the last 6 months', async () => {
    const c = await counts(portal);
    expect(c).toMatchObject({ institutions: 1, users: 5, tags: 1, tagMembers: 1, shares: 3 });
    expect(c.protocols).toBeGreaterThanOrEqual(12);
    const protocols = await portal.ctx.db.selectFrom('protocols').select(['sortAt', 'patientUserId']).execute();
    const sixMonthsAgo = new Date(portal.clock.now().getTime() - 183 * 86_400_000).toISOString();
    expect(protocols.every((p) => p.sortAt >= sixMonthsAgo && p.sortAt <= portal.clock.now().toISOString())).toBe(true);
    expect(protocols.filter((p) => p.patientUserId !== null).length).toBeGreaterThanOrEqual(6);

    const institution = await portal.ctx.db.selectFrom('institutions').selectAll().executeTakeFirstOrThrow();
    expect(institution).toMatchObject({ code: 'DEMO', name: 'Clínica Demonstração', viewType: 1 });
    expect(institution.logoPath).toMatch(/^data:image\/svg\+xml,/);
    expect(JSON.parse(institution.settings)).toMatchObject({ shareEnabled: true });
  });

  it('covers every modality and the statuses of spec 4.1', async () => {
    const exams = await portal.ctx.db
      .selectFrom('exams')
      .select(['modalityCode', 'status', 'rectificationStatus', 'statusCode'])
      .execute();
    expect(new Set(exams.map((e) => e.modalityCode))).toEqual(new Set(['LAB', 'RX', 'US', 'MR', 'CT', 'MG']));
    const codes = new Set(exams.map((e) => examStatusCode(e.status)));
    for (const code of ['L', 'P', 'A', 'D', 'LP', 'R', 'RF', 'DU']) expect(codes).toContain(code);
    expect(exams.some((e) => e.rectificationStatus === 'PENDING')).toBe(true);
  });

  it('keeps a lab history of six or more dates with units and reference ranges', async () => {
    const rows = await portal.ctx.db
      .selectFrom('analytes')
      .innerJoin('exams', 'exams.id', 'analytes.examId')
      .innerJoin('protocols', 'protocols.id', 'exams.protocolId')
      .innerJoin('users', 'users.id', 'protocols.patientUserId')
      .select(['analytes.code', 'analytes.unit', 'analytes.referenceMin', 'analytes.referenceMax', 'exams.performedAt'])
      .where('users.email', '=', DEMO_LOGINS.patient.userName)
      .execute();
    for (const code of ['HGB', 'GLI', 'COL', 'CRE']) {
      const series = rows.filter((r) => r.code === code);
      expect(new Set(series.map((r) => r.performedAt)).size).toBeGreaterThanOrEqual(6);
      expect(series.every((r) => r.unit && r.referenceMax !== null)).toBe(true);
    }
  });

  it('stores real reports of more than one page, signed copies, and images that decode', async () => {
    const resources = await portal.ctx.db.selectFrom('resources').selectAll().execute();
    const read = async (key: string) => buffer(await portal.ctx.storage.get(key));
    const pdfs = resources.filter((r) => r.contentType === 'application/pdf');
    expect(pdfs.length).toBeGreaterThanOrEqual(12);
    for (const r of pdfs) {
      const doc = await PDFDocument.load(await read(r.storageKey));
      expect(doc.getPageCount()).toBeGreaterThan(1);
    }
    const signed = resources.filter((r) => r.signedStorageKey);
    const rootsDir = path.join(portal.ctx.config.dataDir, 'demo-trust-roots');
    expect(portal.ctx.config.trustRootsDir).toBe(rootsDir);
    const demoRoot = path.join(rootsDir, fs.readdirSync(rootsDir)[0]!);
    expect(fs.readFileSync(demoRoot, 'utf8')).not.toMatch(/PRIVATE KEY/);
    expect(portal.logs()).not.toMatch(/PRIVATE KEY|BEGIN CERTIFICATE/);
    const pades = signed.filter((r) => r.signedContentType === 'application/pdf');
    const detached = signed.filter((r) => r.signedContentType === 'application/pkcs7-signature');
    expect(pades.length).toBeGreaterThanOrEqual(1);
    expect(detached.length).toBeGreaterThanOrEqual(1);
    for (const r of pades) {
      const doc = await PDFDocument.load(await read(r.signedStorageKey!));
      expect(doc.getKeywords()).toContain('assinado');
    }
    for (const r of detached) {
      const report = await read(r.storageKey);
      const p7s = await read(r.signedStorageKey!);
      // A DER SignedData whose messageDigest is the report's own sha256.
      expect(p7s.subarray(0, 1)).toEqual(Buffer.from([0x30]));
      expect(p7s.includes(createHash('sha256').update(report).digest())).toBe(true);
      expect(verifyWithOpenssl(p7s, report, demoRoot)).not.toBe(false);
    }
    // Checked on arrival against the demo root, which the demo trusts.
    for (const r of signed) {
      expect(JSON.parse(r.signatureCheck!)).toMatchObject({
        signatureValid: true,
        chain: 'trusted',
        signer: { name: 'FERNANDA LOPES', cpf: '***.533.447-**', crm: 'CRM 98765/SP' },
      });
    }
    const jpegs = resources.filter((r) => r.contentType === 'image/jpeg');
    const pngs = resources.filter((r) => r.contentType === 'image/png');
    expect(jpegs.length).toBeGreaterThan(0);
    expect(pngs.length).toBeGreaterThan(0);
    for (const r of jpegs) expect(jpeg.decode(await read(r.storageKey)).width).toBe(512);
    for (const r of pngs) expect(PNG.sync.read(await read(r.storageKey)).width).toBe(384);
  });

  it('lets the listed demo logins sign in', async () => {
    expect((await login(portal, { userName: DEMO_LOGINS.patient.userName, password: 'demo1234' })).statusCode).toBe(
      200,
    );
    expect((await login(portal, { userName: DEMO_LOGINS.patient.cpf, password: 'demo1234' })).statusCode).toBe(200);
    expect((await login(portal, { userName: DEMO_LOGINS.physician.userName, password: 'demo1234' })).statusCode).toBe(
      200,
    );
    expect((await login(portal, { userName: DEMO_LOGINS.external.userName, password: 'demo1234' })).statusCode).toBe(
      200,
    );
    const byEmail = await login(portal, { ...DEMO_LOGINS.guestByEmail });
    expect(byEmail.statusCode).toBe(200);
    expect(
      (await login(portal, { userName: DEMO_LOGINS.guest.protocol, password: DEMO_LOGINS.guest.password })).statusCode,
    ).toBe(200);
    const guest = DEMO_LOGINS.guestWithBirthDate;
    expect(
      (await login(portal, { userName: guest.protocol, password: guest.password, dateOfBirth: guest.dateOfBirth }))
        .statusCode,
    ).toBe(200);
    expect(
      (await login(portal, { userName: guest.protocol, password: guest.password, dateOfBirth: '01/01/1990' }))
        .statusCode,
    ).toBe(404);
  });

  it("shows the patient's shares in each state: open, expired and revoked", async () => {
    const signIn = await login(portal, { userName: DEMO_LOGINS.patient.userName, password: 'demo1234' });
    const { accessToken, user } = signIn.json().data as { accessToken: string; user: { identifier: string } };
    const res = await portal.app.inject({
      method: 'GET',
      url: `/api/auth/patient/${user.identifier}/shares`,
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(res.statusCode).toBe(200);
    const items = res.json().data.items as Array<{
      email: string;
      active: boolean;
      expired: boolean;
      canceled: boolean;
    }>;
    const byEmail = Object.fromEntries(items.map((i) => [i.email, [i.active, i.expired, i.canceled]]));
    expect(byEmail).toEqual({
      'segunda.opiniao@demo.example': [true, false, false],
      'familia@demo.example': [true, true, false],
      'antigo.medico@demo.example': [false, true, true],
    });
  });

  it(
    'adds nothing when loaded again, after a restart, or after an interrupted load',
    { timeout: 180_000 },
    async () => {
      const before = await counts(portal);
      await seedDemoClinic(portal.ctx);
      expect(await counts(portal)).toEqual(before);

      // An interrupted load leaves no marker: the next start runs every step again.
      await portal.ctx.db.deleteFrom('appSettings').where('key', '=', 'demo_data').execute();
      await seedDemoClinic(portal.ctx);
      expect(await counts(portal)).toEqual(before);

      const restarted = await startTestPortal({ env: { DEMO_DATA: 'true' }, reuse: { env: portal.env } });
      try {
        expect(await counts(restarted)).toEqual(before);
        expect(restarted.logs()).toContain('demo data already loaded');
      } finally {
        await restarted.close();
      }
    },
  );
});
