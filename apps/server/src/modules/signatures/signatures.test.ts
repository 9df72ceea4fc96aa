import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { makeSigningFixtures, type SigningFixtures } from '../../test/signing-fixtures.js';
import { createInstitution } from '../institutions/institution.service.js';
import { makeUser, makeWorld, pdfBytes } from '../delivery/test-factories.js';
import { VALIDATION_RATE } from './signatures.routes.js';

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const VERIFY = '/api/v2/delivery/resource/signature/verification';
const VALIDATE = '/api/v2/public/validate';

describe('signed reports checked on arrival and when asked (issue 22.3)', () => {
  let portal: TestPortal;
  let fixtures: SigningFixtures;
  let apiKey: string;
  let institutionId: string;
  let patient: string;
  const report = { bytes: Buffer.alloc(0) as Buffer, resourceId: '', code: '' };

  const put = (url: string, body: Buffer, contentType: string) =>
    portal.app.inject({
      method: 'PUT',
      url: `/api/v2/delivery/ingest/protocols/${url}`,
      headers: { 'x-api-key': apiKey, 'content-type': contentType },
      payload: body,
    });
  const rowOf = (identifier: string) =>
    portal.ctx.db.selectFrom('resources').selectAll().where('identifier', '=', identifier).executeTakeFirstOrThrow();

  beforeAll(async () => {
    fixtures = makeSigningFixtures();
    portal = await startTestPortal({ env: { TRUST_ROOTS_DIR: fixtures.trustDir } });
    ({
      apiKey,
      institution: { id: institutionId },
    } = await createInstitution(portal.ctx, { code: 'LABV', name: 'Laboratório Vértice', viewType: 1 }));
    const owner = await makeUser(portal.ctx, { type: 'PATIENT', name: 'Maria da Silva Souza' });
    const protocol = await portal.app.inject({
      method: 'PUT',
      url: '/api/v2/delivery/ingest/protocols/55001',
      headers: { 'x-api-key': apiKey },
      payload: {
        password: 'secret-1',
        requestedAt: '2026-11-19T10:00:00-03:00',
        patient: {
          patientId: 'P1',
          name: 'Maria da Silva Souza',
          cpf: '529.982.247-25',
          birthDate: '1980-03-15',
          gender: 'F',
          email: owner.email,
        },
        exams: ['TC', 'RM', 'US'].map((examKey) => ({
          examKey,
          description: `Exame ${examKey}`,
          type: 'IMG',
          modalityCode: 'CT',
          modalityName: 'Tomografia',
          status: 'L',
          performedAt: '2026-11-19T11:00:00-03:00',
        })),
      },
    });
    expect(protocol.statusCode).toBe(201);
    await portal.ctx.db
      .updateTable('protocols')
      .set({ patientUserId: owner.id })
      .where('number', '=', '55001')
      .execute();
    patient = await portal.sessionFor({ role: 'PATIENT', userId: owner.id, username: owner.email });
    report.bytes = await pdfBytes('Tomografia de crânio', 1);
    expect((await put('55001/exams/TC/resources/L1?type=REPORT', report.bytes, 'application/pdf')).statusCode).toBe(
      201,
    );
    const signed = await put(
      '55001/exams/TC/resources/L1/signed',
      fixtures.sign(report.bytes),
      'application/pkcs7-signature',
    );
    expect(signed.statusCode).toBe(201);
    const row = await rowOf('L1');
    report.resourceId = row.id;
    report.code = row.verificationCode!;
  }, 60_000);
  afterAll(async () => {
    await portal?.destroy();
    fixtures?.cleanup();
  });

  it('checks a detached signature when it arrives and keeps what it found', async () => {
    const row = await rowOf('L1');
    expect(row.verificationCode).toMatch(/^[2-9A-HJKMNP-TV-Z]{10}$/);
    expect(JSON.parse(row.signatureCheck!)).toMatchObject({
      format: 'cms',
      signatureValid: true,
      chain: 'trusted',
      revocation: 'good',
      signer: { name: 'MARIA DA SILVA SOUZA', cpf: '***.456.789-**', crm: 'CRM 123456/SP' },
    });
  });

  it('keeps a signature that does not check out, saying so, and one by a revoked certificate', async () => {
    const other = await pdfBytes('Ressonância', 1);
    await put('55001/exams/RM/resources/L2?type=REPORT', other, 'application/pdf');
    // Signed over other bytes than the report's.
    expect(
      (await put('55001/exams/RM/resources/L2/signed', fixtures.sign(report.bytes), 'application/pkcs7-signature'))
        .statusCode,
    ).toBe(201);
    expect(JSON.parse((await rowOf('L2')).signatureCheck!)).toMatchObject({
      signatureValid: false,
      problem: 'mismatch',
    });

    const third = await pdfBytes('Ultrassom', 1);
    await put('55001/exams/US/resources/L3?type=REPORT', third, 'application/pdf');
    await put('55001/exams/US/resources/L3/signed', fixtures.sign(third, 'revoked'), 'application/pkcs7-signature');
    expect(JSON.parse((await rowOf('L3')).signatureCheck!)).toMatchObject({
      signatureValid: true,
      chain: 'trusted',
      revocation: 'revoked',
    });
  });

  it('checks a PAdES PDF against itself', async () => {
    const pades = fixtures.padesPdf(await pdfBytes('Ultrassom assinado', 1));
    await put('55001/exams/US/resources/L3/signed', pades, 'application/pdf');
    expect(JSON.parse((await rowOf('L3')).signatureCheck!)).toMatchObject({
      format: 'pades',
      signatureValid: true,
      revocation: 'good',
    });
  });

  it('checks again when asked, with the trust roots of now, and forgets the check when the report changes', async () => {
    const first = await portal.app.inject({
      url: `${VERIFY}?resourceId=${report.resourceId}`,
      headers: bearer(patient),
    });
    expect(first.statusCode).toBe(200);
    expect(first.json().data).toMatchObject({
      resourceId: report.resourceId,
      verificationCode: `${report.code.slice(0, 5)}-${report.code.slice(5)}`,
      check: { signatureValid: true, chain: 'trusted' },
    });
    portal.clock.advance(60_000);
    const again = await portal.app.inject({
      url: `${VERIFY}?resourceId=${report.resourceId}`,
      headers: bearer(patient),
    });
    expect(again.json().data.check.checkedAt).toBe(portal.clock.now().toISOString());
    const trail = await portal.ctx.db
      .selectFrom('auditEvents')
      .select('event')
      .where('event', '=', 'VERIFY_SIGNATURE')
      .execute();
    expect(trail).toHaveLength(2);

    await put('55001/exams/RM/resources/L2?type=REPORT', await pdfBytes('Ressonância corrigida', 1), 'application/pdf');
    expect((await rowOf('L2')).signatureCheck).toBeNull();
  });

  it('answers every other role as the signed file itself does: what it may not download, it may not check', async () => {
    const world = await makeWorld(portal.ctx, (i) => portal.sessionFor(i));
    const id = world.resources.reportA.id;
    for (const [who, token] of Object.entries(world.tokens)) {
      const download = await portal.app.inject({
        url: `/api/v2/delivery/resource/signature?resourceId=${id}`,
        headers: bearer(token),
      });
      const verify = await portal.app.inject({ url: `${VERIFY}?resourceId=${id}`, headers: bearer(token) });
      expect({ who, status: verify.statusCode }).toEqual({ who, status: download.statusCode });
      if (verify.statusCode === 200) {
        // The world's signed file is no CMS at all.
        expect(verify.json().data.check).toMatchObject({ signatureValid: false, problem: 'unreadable' });
      }
    }
    expect(
      (
        await portal.app.inject({
          url: `${VERIFY}?resourceId=${report.resourceId}`,
          headers: bearer(world.tokens.owner),
        })
      ).statusCode,
    ).toBe(404);
    expect((await portal.app.inject({ url: `${VERIFY}?resourceId=${report.resourceId}` })).statusCode).toBe(401);
    // A report without a signed file has nothing to check.
    expect(
      (
        await portal.app.inject({
          url: `${VERIFY}?resourceId=${world.resources.reportB.id}`,
          headers: bearer(world.tokens.otherPatient),
        })
      ).statusCode,
    ).toBe(404);
  });

  describe('the public check (/validar)', () => {
    const validate = (payload: object, ip = '203.0.113.7') =>
      portal.app.inject({ method: 'POST', url: VALIDATE, payload, remoteAddress: ip });

    it('recognises the report and its signed file by the code, with the institution, date and initials only', async () => {
      const typed = `${report.code.slice(0, 5).toLowerCase()} ${report.code.slice(5)}`;
      const answer = await validate({ code: typed, sha256: sha256(report.bytes) });
      expect(answer.statusCode).toBe(200);
      const data = answer.json().data;
      expect(data).toMatchObject({
        outcome: 'match',
        file: 'report',
        report: { institution: 'Laboratório Vértice', patientInitials: 'M. S. S.' },
        signature: { signatureValid: true, chain: 'trusted', signer: { name: 'MARIA DA SILVA SOUZA' } },
      });
      expect(JSON.stringify(data)).not.toMatch(/Silva Souza|529|Tomografia|55001/);

      const row = await rowOf('L1');
      const signedFile = await portal.ctx.storage.read(row.signedStorageKey!);
      expect((await validate({ code: report.code, sha256: sha256(signedFile) })).json().data).toMatchObject({
        outcome: 'match',
        file: 'signed-file',
      });
    });

    it('tells a changed file apart, and knows no code it did not give', async () => {
      const changed = Buffer.concat([report.bytes, Buffer.from('\n% changed\n')]);
      expect((await validate({ code: report.code, sha256: sha256(changed) })).json().data).toMatchObject({
        outcome: 'different-file',
        file: null,
        report: { institution: 'Laboratório Vértice' },
      });
      const unknown = (await validate({ code: 'ZZZZZ-ZZZZZ', sha256: sha256(report.bytes) })).json().data;
      expect(unknown).toEqual({ outcome: 'unknown-code', report: null, file: null, signature: null });
      const bad = await validate({ code: 'O0I1L', sha256: 'xyz' });
      expect(bad.statusCode).toBe(400);
    });

    it('answers a disabled exam like an unknown code', async () => {
      await portal.ctx.db.updateTable('exams').set({ isEnabled: 0 }).where('examKey', '=', 'US').execute();
      const row = await rowOf('L3');
      const answer = (await validate({ code: row.verificationCode!, sha256: row.sha256 })).json().data;
      expect(answer.outcome).toBe('unknown-code');
    });

    it('answers a result held back from the patient like an unknown code, and knows it again once released', async () => {
      const now = portal.clock.now().toISOString();
      await portal.ctx.db
        .insertInto('examHoldRules')
        .values({
          id: randomUUID(),
          institutionId,
          examTypeCode: 'IMG',
          rule: 'PHYSICIAN',
          hours: null,
          message: null,
          createdAt: now,
          updatedAt: now,
        })
        .execute();
      try {
        const held = (await validate({ code: report.code, sha256: sha256(report.bytes) }, '203.0.113.9')).json().data;
        expect(held).toEqual({ outcome: 'unknown-code', report: null, file: null, signature: null });
      } finally {
        await portal.ctx.db.deleteFrom('examHoldRules').where('institutionId', '=', institutionId).execute();
      }
      const released = (await validate({ code: report.code, sha256: sha256(report.bytes) }, '203.0.113.9')).json().data;
      expect(released).toMatchObject({ outcome: 'match', file: 'report' });
    });

    it(`lets one address check ${VALIDATION_RATE.max} times in ten minutes, even with 40 checks in flight`, async () => {
      const ip = '198.51.100.23';
      const answers = await Promise.all(
        Array.from({ length: 40 }, () => validate({ code: 'ZZZZZ-ZZZZZ', sha256: sha256(report.bytes) }, ip)),
      );
      const statuses = answers.map((a) => a.statusCode);
      expect(statuses.filter((s) => s === 200)).toHaveLength(VALIDATION_RATE.max);
      expect(statuses.filter((s) => s === 429)).toHaveLength(40 - VALIDATION_RATE.max);
      // Another address is not held back; the first is let in again after the window.
      expect((await validate({ code: report.code, sha256: sha256(report.bytes) }, '198.51.100.24')).statusCode).toBe(
        200,
      );
      portal.clock.advance(VALIDATION_RATE.windowMs + 1000);
      expect((await validate({ code: report.code, sha256: sha256(report.bytes) }, ip)).statusCode).toBe(200);
    });
  });

  it('gives every stored file a code of its own', async () => {
    const rows = await portal.ctx.db.selectFrom('resources').select('verificationCode').execute();
    const codes = rows.map((r) => r.verificationCode);
    expect(codes.every((c) => typeof c === 'string' && c.length === 10)).toBe(true);
    expect(new Set(codes).size).toBe(codes.length);
    expect(institutionId).toBeTruthy();
  });
});
