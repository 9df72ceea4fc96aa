import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { makeWorld } from '../delivery/test-factories.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stamp-test-'));
let n = 0;

/** The text pdftotext reads from a PDF. */
function textOf(pdf: Buffer): string {
  const file = path.join(dir, `t${++n}.pdf`);
  fs.writeFileSync(file, pdf);
  return execFileSync('pdftotext', ['-layout', file, '-']).toString('utf8');
}

/** The QR codes of a page as pdftoppm draws it at 150 dpi, decoded by jsQR. */
function qrOf(pdf: Buffer, page: number): string | null {
  const file = path.join(dir, `q${++n}.pdf`);
  fs.writeFileSync(file, pdf);
  const root = path.join(dir, `q${n}-page`);
  execFileSync('pdftoppm', ['-r', '150', '-png', '-f', String(page), '-l', String(page), '-singlefile', file, root]);
  const image = PNG.sync.read(fs.readFileSync(`${root}.png`));
  // jsqr is CommonJS: its function is the module and also its `default`, which is what TypeScript sees.
  return jsQR.default(new Uint8ClampedArray(image.data), image.width, image.height)?.data ?? null;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('verification code and QR code in the margin of merged and downloaded reports', () => {
  let portal: TestPortal;
  let world: Awaited<ReturnType<typeof makeWorld>>;
  let code = '';

  beforeAll(async () => {
    portal = await startTestPortal();
    world = await makeWorld(portal.ctx, (i) => portal.sessionFor(i));
    const row = await portal.ctx.db
      .selectFrom('resources')
      .selectAll()
      .where('id', '=', world.resources.reportA.id)
      .executeTakeFirstOrThrow();
    code = row.verificationCode!;
  });
  afterAll(async () => {
    await portal?.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const formatted = () => `${code.slice(0, 5)}-${code.slice(5)}`;

  it("prints the code and a QR code to /validar on every page of a protocol's merged reports", async () => {
    const answer = await portal.app.inject({
      url: `/api/v2/delivery/resource/report?resourceId=${world.resources.reportA.id}&showAll=true`,
      headers: { ...bearer(world.tokens.owner), 'accept-language': 'pt-BR' },
    });
    expect(answer.statusCode).toBe(200);
    const merged = answer.rawPayload;
    const text = textOf(merged);
    expect(text).toContain(`Código de verificação: ${formatted()}`);
    expect(text).toContain('Verifique a autenticidade em http://portal.test/validar');
    // The report's own text is all there, above the strip.
    expect(text).toContain('A report');
    expect(qrOf(merged, 1)).toBe(`http://portal.test/validar?code=${formatted()}`);
    expect(qrOf(merged, 2)).toBe(`http://portal.test/validar?code=${formatted()}`);
  });

  it('stamps a batch print in the language asked for', async () => {
    const answer = await portal.app.inject({
      method: 'POST',
      url: '/api/v2/delivery/resource/batchPrinting',
      headers: { ...bearer(world.tokens.physician), 'accept-language': 'en' },
      payload: { requestIds: [world.a.protocol.id], isCompressed: false },
    });
    expect(answer.statusCode).toBe(200);
    expect(textOf(answer.rawPayload)).toContain(`Verification code: ${formatted()}`);
    expect(qrOf(answer.rawPayload, 1)).toBe(`http://portal.test/validar?code=${formatted()}`);
  });

  it('downloads a stamped copy on request, which /validar recognises, while the report and signed file stay byte for byte', async () => {
    const row = await portal.ctx.db
      .selectFrom('resources')
      .selectAll()
      .where('id', '=', world.resources.reportA.id)
      .executeTakeFirstOrThrow();
    const url = `/api/v2/delivery/resource/report?resourceId=${row.id}`;
    const plain = await portal.app.inject({ url, headers: bearer(world.tokens.owner) });
    expect(sha256(plain.rawPayload)).toBe(row.sha256);
    const signed = await portal.app.inject({
      url: `/api/v2/delivery/resource/signature?resourceId=${row.id}`,
      headers: bearer(world.tokens.owner),
    });
    expect(sha256(signed.rawPayload)).toBe(row.signedSha256);

    const stamped = await portal.app.inject({ url: `${url}&stamp=true`, headers: bearer(world.tokens.owner) });
    expect(stamped.statusCode).toBe(200);
    expect(stamped.headers['content-disposition']).toMatch(/^attachment/);
    expect(textOf(stamped.rawPayload)).toContain(`Código de verificação: ${formatted()}`);
    expect(qrOf(stamped.rawPayload, 1)).toBe(`http://portal.test/validar?code=${formatted()}`);
    const check = await portal.app.inject({
      method: 'POST',
      url: '/api/v2/public/validate',
      payload: { code, sha256: sha256(stamped.rawPayload) },
    });
    expect(check.json().data).toMatchObject({ outcome: 'match', file: 'stamped-report' });
    // A Spanish reader's copy has a strip of its own; both copies, and the same copy downloaded
    // again, stay recognised (a copy printed earlier is never turned into "another file").
    const spanish = await portal.app.inject({
      url: `${url}&stamp=true`,
      headers: { ...bearer(world.tokens.owner), 'accept-language': 'es' },
    });
    expect(textOf(spanish.rawPayload)).toContain(`Código de verificación: ${formatted()}`);
    expect(sha256(spanish.rawPayload)).not.toBe(sha256(stamped.rawPayload));
    const again = await portal.app.inject({ url: `${url}&stamp=true`, headers: bearer(world.tokens.owner) });
    expect(sha256(again.rawPayload), 'the same copy each time').toBe(sha256(stamped.rawPayload));
    for (const copy of [stamped, spanish]) {
      const seen = await portal.app.inject({
        method: 'POST',
        url: '/api/v2/public/validate',
        payload: { code, sha256: sha256(copy.rawPayload) },
      });
      expect(seen.json().data).toMatchObject({ outcome: 'match', file: 'stamped-report' });
    }
    const copies = await portal.ctx.db
      .selectFrom('stampedCopies')
      .select('language')
      .where('resourceId', '=', row.id)
      .execute();
    expect(copies.map((c) => c.language).sort()).toEqual(['es', 'pt-br']);
    // A file the portal never handed out is another file.
    const forged = Buffer.concat([stamped.rawPayload, Buffer.from('\n%tampered')]);
    const other = await portal.app.inject({
      method: 'POST',
      url: '/api/v2/public/validate',
      payload: { code, sha256: sha256(forged) },
    });
    expect(other.json().data).toMatchObject({ outcome: 'different-file', file: null });
    // Another's report is not stamped for them: the rules of the plain download hold.
    const refused = await portal.app.inject({ url: `${url}&stamp=true`, headers: bearer(world.tokens.otherPatient) });
    expect(refused.statusCode).toBe(404);
  });
});
