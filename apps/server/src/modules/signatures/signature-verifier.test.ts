import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { makeSigningFixtures, type SigningFixtures } from '../../test/signing-fixtures.js';
import { verifyDetachedCms, verifyPades } from './signature-verifier.js';
import { trustStore } from './trust-store.js';

let fixtures: SigningFixtures;
beforeAll(() => {
  fixtures = makeSigningFixtures();
});
afterAll(() => fixtures.cleanup());

const report = Buffer.from('%PDF-1.7\n% a report\n');

describe('detached CMS signatures made by openssl', () => {
  it('reads the physician, CPF and CRM from the certificate and trusts the chain up to the root', async () => {
    const check = await verifyDetachedCms(report, fixtures.sign(report), await trustStore(fixtures.trustDir));
    expect(check).toMatchObject({
      format: 'cms',
      signatureValid: true,
      chain: 'trusted',
      revocation: 'good',
      problem: null,
      signer: { name: 'MARIA DA SILVA SOUZA', cpf: '***.456.789-**', crm: 'CRM 123456/SP' },
    });
    expect(check.signer?.issuer).toBe('Test Intermediate CA');
    expect(Math.abs(new Date(check.signedAt!).getTime() - Date.now())).toBeLessThan(120_000);
  });

  it('says the signature does not match bytes other than those signed', async () => {
    const check = await verifyDetachedCms(
      Buffer.from('%PDF-1.7\n% another report\n'),
      fixtures.sign(report),
      await trustStore(fixtures.trustDir),
    );
    expect(check).toMatchObject({ signatureValid: false, problem: 'mismatch', chain: 'untrusted' });
    expect(check.signer?.name).toBe('MARIA DA SILVA SOUZA');
  });

  it('finds a revoked certificate in the CRL beside the roots', async () => {
    const check = await verifyDetachedCms(
      report,
      fixtures.sign(report, 'revoked'),
      await trustStore(fixtures.trustDir),
    );
    expect(check).toMatchObject({ signatureValid: true, chain: 'trusted', revocation: 'revoked' });
    expect(check.signer).toMatchObject({ name: 'JOAO REVOGADO', cpf: '***.654.321-**', crm: null });
  });

  it('does not trust a chain to a root outside TRUST_ROOTS_DIR, nor any chain without roots', async () => {
    const store = await trustStore(fixtures.trustDir);
    const stranger = await verifyDetachedCms(report, fixtures.sign(report, 'stranger'), store);
    expect(stranger).toMatchObject({ signatureValid: true, chain: 'untrusted', revocation: 'unknown' });
    const noRoots = await verifyDetachedCms(report, fixtures.sign(report), await trustStore(undefined));
    expect(noRoots).toMatchObject({ signatureValid: true, chain: 'untrusted' });
  });

  it('calls a certificate out of its validity when it signed expired', async () => {
    const check = await verifyDetachedCms(
      report,
      fixtures.sign(report, 'expired'),
      await trustStore(fixtures.trustDir),
    );
    expect(check).toMatchObject({ signatureValid: true, chain: 'expired' });
  });

  it('calls bytes that are no CMS unreadable', async () => {
    const check = await verifyDetachedCms(report, Buffer.from('not a signature'), await trustStore(fixtures.trustDir));
    expect(check).toMatchObject({ signatureValid: false, problem: 'unreadable', signer: null });
  });
});

describe('PAdES', () => {
  async function pdf() {
    const doc = await PDFDocument.create({ updateMetadata: false });
    const page = doc.addPage([300, 200]);
    page.drawText('Laudo', { x: 20, y: 150, font: await doc.embedFont(StandardFonts.Helvetica) });
    return Buffer.from(await doc.save({ useObjectStreams: false }));
  }

  it('checks the CMS over the /ByteRange of a signed PDF, and catches a changed byte', async () => {
    const signed = fixtures.padesPdf(await pdf());
    const store = await trustStore(fixtures.trustDir);
    expect(await verifyPades(signed, store)).toMatchObject({
      format: 'pades',
      signatureValid: true,
      chain: 'trusted',
      signer: { crm: 'CRM 123456/SP' },
    });
    const changed = Buffer.from(signed);
    // A byte of the binary comment under the header: still a PDF, no longer the bytes signed.
    changed[11] = changed[11]! ^ 1;
    expect(await verifyPades(changed, store)).toMatchObject({ signatureValid: false, problem: 'mismatch' });
    expect(await verifyPades(await pdf(), store)).toMatchObject({ signatureValid: false, problem: 'unreadable' });
  });

  it('refuses a signed PDF to which an update was appended after signing', async () => {
    const signed = fixtures.padesPdf(await pdf());
    const store = await trustStore(fixtures.trustDir);
    // An incremental update as an editor would append it: a new object and its xref section.
    const update = Buffer.from('\n99 0 obj\n<< /Type /Annot /Subtype /Text /Contents (alterado) >>\nendobj\n%%EOF\n');
    expect(await verifyPades(Buffer.concat([signed, update]), store)).toMatchObject({
      signatureValid: false,
      problem: 'mismatch',
    });
    // A line end added by a transfer is no change.
    expect(await verifyPades(Buffer.concat([signed, Buffer.from('\r\n')]), store)).toMatchObject({
      signatureValid: true,
    });
  });
});
