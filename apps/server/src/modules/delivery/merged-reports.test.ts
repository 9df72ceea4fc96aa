import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { pixelDifference, seePages, type SeenPage } from '../../test/pdf-compare.js';
import { type CorpusFile, pdfCorpus } from '../../test/pdf-corpus.js';
import { makeProtocol, makeResource, makeWorld } from './test-factories.js';
import { STAMP_MAX_BYTES, stampReport } from '../signatures/margin-stamp.js';

type World = Awaited<ReturnType<typeof makeWorld>>;

/**
 * The entries of a zip of stored files, read from its central directory as readers do (`unzip`
 * shows names in the terminal's locale): each name must carry the UTF-8 flag.
 */
function zipEntries(zip: Buffer): Map<string, Buffer> {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const out = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    expect(zip.readUInt32LE(at)).toBe(0x02014b50);
    expect(zip.readUInt16LE(at + 8) & 0x0800).toBe(0x0800);
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extra = zip.readUInt16LE(at + 30);
    const comment = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    const data = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    out.set(name, zip.subarray(data, data + size));
    at += 46 + nameLength + extra + comment;
  }
  return out;
}

/**
 * What a physician's batch print, its zip and a patient's "show all" deliver, checked page by
 * page against reports made by real tools (with their verification stamp below each page): the
 * same text, the same rendering; the zip, the same bytes.
 */
describe('merged reports through the API', () => {
  let portal: TestPortal;
  let w: World;
  let corpus: CorpusFile[];
  const seen = new Map<string, SeenPage[]>();
  const protocols: Array<{ id: string; number: string; files: CorpusFile[] }> = [];
  const requester = { crm: '12345', uf: 'SP' };

  beforeAll(async () => {
    portal = await startTestPortal();
    w = await makeWorld(portal.ctx, (i) => portal.sessionFor(i));
    corpus = await pdfCorpus();
    // Two protocols of João's, the corpus split between them, one exam a day in corpus order.
    const halves = [corpus.slice(0, 7), corpus.slice(7)];
    for (const [h, files] of halves.entries()) {
      const made = await makeProtocol(portal.ctx, {
        institutionId: w.institution.id,
        number: `2026-${h + 1}`,
        patientName: 'João Conceição',
        patientUserId: w.users.owner.id,
        tagId: w.tag.id,
        exams: files.map((f, i) => ({
          examKey: `E${i}`,
          description: i === 0 ? 'Ultrassonografia — São Paulo' : `Exame ${f.name}`,
          requester,
          performedAt: `2026-11-${String(10 + i).padStart(2, '0')}T12:00:00Z`,
        })),
      });
      for (const [i, f] of files.entries()) {
        const { id } = await makeResource(portal.ctx, { examId: made.exams[i]!.id, type: 'REPORT', bytes: f.bytes });
        if (!f.readable) continue;
        // Each report enters a merge as its copy with its verification code in the margin (issue 22.3).
        const { verificationCode } = await portal.ctx.db
          .selectFrom('resources')
          .select('verificationCode')
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        const stamped =
          f.bytes.length <= STAMP_MAX_BYTES
            ? await stampReport(f.bytes, verificationCode!, portal.ctx.config.publicUrl, 'pt-br')
            : null;
        seen.set(f.name, seePages(stamped ?? f.bytes));
      }
      protocols.push({ id: made.protocol.id, number: made.protocol.number, files });
    }
  }, 120_000);
  afterAll(async () => portal?.destroy());

  const print = (isCompressed: boolean, language = 'pt-BR,pt;q=0.9') =>
    portal.app.inject({
      method: 'POST',
      url: '/api/v2/delivery/resource/batchPrinting',
      headers: { ...bearer(w.tokens.physician), 'accept-language': language },
      payload: { requestIds: protocols.map((p) => p.id), isCompressed },
    });

  /** Every page of the answer against its source, a notice where the source is unreadable. */
  function expectPages(pdf: Buffer, files: CorpusFile[], protocolOf: (f: CorpusFile) => string) {
    const out = seePages(pdf);
    let at = 0;
    for (const file of files) {
      if (!file.readable) {
        const text = out[at++]!.text.replace(/\s+/g, ' ');
        expect(text).toContain('Laudo não incluído');
        expect(text).toContain(`do protocolo ${protocolOf(file)}`);
        continue;
      }
      for (const [i, page] of seen.get(file.name)!.entries()) {
        const got = out[at++];
        expect(got?.text, `${file.name} page ${i + 1}`).toBe(page.text);
        expect(pixelDifference(got!, page), `${file.name} page ${i + 1}`).toBeLessThan(0.01);
      }
    }
    expect(out).toHaveLength(at);
  }

  it('prints every page of every report, says which ones it left out, in a header and in the trace', async () => {
    const res = await print(false);
    expect(res.statusCode).toBe(200);
    const unreadable = corpus.filter((f) => !f.readable);
    expect(res.headers['x-reports-left-out']).toBe(String(unreadable.length));
    expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
    const all = protocols.flatMap((p) => p.files);
    expectPages(res.rawPayload, all, (f) => protocols.find((p) => p.files.includes(f))!.number);
    const audits = await portal.ctx.db
      .selectFrom('auditEvents')
      .selectAll()
      .where('event', '=', 'BATCH_PRINT')
      .where('systemUserId', '=', w.users.physician.id)
      .execute();
    const leftOut = audits.flatMap((a) => (JSON.parse(a.resource ?? '{}').leftOut ?? []) as Array<{ reason: string }>);
    expect(leftOut.map((l) => l.reason).sort()).toEqual(['damaged', 'not-pdf', 'password']);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'merged-'));
    try {
      fs.writeFileSync(path.join(dir, 'out.pdf'), res.rawPayload);
      expect(execFileSync('qpdf', ['--check', path.join(dir, 'out.pdf')]).toString()).toContain(
        'No syntax or stream encoding errors found',
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('writes the notices in Spanish or English when the reader asks for it', async () => {
    const res = await print(false, 'es-AR,es;q=0.9');
    const text = seePages(res.rawPayload)
      .map((p) => p.text)
      .join('\n');
    expect(text).toContain('Informe no incluido');
    expect(text).toContain('contraseña');
    const en = seePages((await print(false, 'en-US')).rawPayload)
      .map((p) => p.text)
      .join('\n');
    expect(en).toContain('Report not included');
  }, 120_000);

  it('zips every report byte for byte under readable names with the protocol, the exam and its date', async () => {
    const res = await print(true);
    expect(res.statusCode).toBe(200);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'merged-'));
    try {
      const zip = path.join(dir, 'out.zip');
      fs.writeFileSync(zip, res.rawPayload);
      expect(execFileSync('unzip', ['-tq', zip]).toString()).toContain('No errors detected');
      const entries = zipEntries(res.rawPayload);
      const names = [...entries.keys()];
      expect(names[0]).toBe('2026-1/Ultrassonografia — São Paulo - 2026-11-10.pdf');
      expect(names).toHaveLength(corpus.length);
      for (const p of protocols) {
        for (const [i, f] of p.files.entries()) {
          const name = `${p.number}/${i === 0 ? 'Ultrassonografia — São Paulo' : `Exame ${f.name}`} - 2026-11-${10 + i}.pdf`;
          expect(names).toContain(name);
          expect(entries.get(name)?.equals(f.bytes), name).toBe(true);
        }
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('shows all of a protocol’s reports to its patient, every page as its source', async () => {
    const p = protocols[1]!;
    const first = await portal.ctx.db
      .selectFrom('resources')
      .innerJoin('exams', 'exams.id', 'resources.examId')
      .select('resources.id')
      .where('exams.protocolId', '=', p.id)
      .executeTakeFirstOrThrow();
    const res = await portal.app.inject({
      method: 'GET',
      url: `/api/v2/delivery/resource/report?resourceId=${first.id}&showAll=true`,
      headers: bearer(w.tokens.owner),
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-reports-left-out']).toBe(String(p.files.filter((f) => !f.readable).length));
    expectPages(res.rawPayload, p.files, () => p.number);
  }, 120_000);
});
