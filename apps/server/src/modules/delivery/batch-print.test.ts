import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDict, PDFDocument, PDFName, PDFNumber } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { makeProtocol, makeResource, makeWorld, pdfBytes } from './test-factories.js';

type World = Awaited<ReturnType<typeof makeWorld>>;

describe('batch printing', () => {
  let portal: TestPortal;
  let w: World;
  let p1: Awaited<ReturnType<typeof makeProtocol>>;
  let p2: Awaited<ReturnType<typeof makeProtocol>>;
  const files = new Map<string, Buffer>();
  const print = (token: string | null, body: Record<string, unknown>) =>
    portal.app.inject({
      method: 'POST',
      url: '/api/v2/delivery/resource/batchPrinting',
      headers: token ? bearer(token) : {},
      payload: body,
    });

  beforeAll(async () => {
    portal = await startTestPortal();
    w = await makeWorld(portal.ctx, (i) => portal.sessionFor(i));
    const requester = { crm: '12345', uf: 'SP' };
    // p1: exam 0 performed last; exam 1 first with a REPORT and a REPORT_PHYSICIAN; exam 2 awaiting rectification.
    p1 = await makeProtocol(portal.ctx, {
      institutionId: w.institution.id,
      number: 'BP-1',
      exams: [
        { examKey: 'LATE', requester, performedAt: '2026-11-18T15:00:00Z' },
        { examKey: 'EARLY', requester, performedAt: '2026-11-18T08:00:00Z' },
        { examKey: 'PEND', requester, performedAt: '2026-11-18T09:00:00Z', rectificationStatus: 'PENDING' },
      ],
    });
    p2 = await makeProtocol(portal.ctx, {
      institutionId: w.institution.id,
      number: 'BP-2',
      tagId: w.tag.id,
      exams: [{ examKey: 'ONLY', requester }],
    });
    const add = async (examId: string, type: 'REPORT' | 'REPORT_PHYSICIAN', name: string, bytes: Buffer) => {
      files.set(name, bytes);
      await makeResource(portal.ctx, { examId, type, bytes });
    };
    await add(p1.exams[0]!.id, 'REPORT', 'late', await pdfBytes('late', 2, { width: 301 }));
    // Larger than the files a zip reads ahead: streamed between files read whole.
    await add(p1.exams[1]!.id, 'REPORT', 'early', await pdfBytes('early', 1, { width: 302, paddingBytes: 1_200_000 }));
    await add(p1.exams[1]!.id, 'REPORT_PHYSICIAN', 'early-physician', await pdfBytes('ep', 1, { width: 303 }));
    await add(p1.exams[2]!.id, 'REPORT', 'pending', await pdfBytes('pending', 1, { width: 304 }));
    // Written with object streams and a cross-reference stream.
    await add(p2.exams[0]!.id, 'REPORT', 'only', await pdfBytes('only', 3, { width: 305, objectStreams: true }));
  });
  afterAll(async () => portal?.destroy());

  it('is for physicians and external users only', async () => {
    const body = { userId: 'x', requestIds: [p2.protocol.id], isCompressed: false };
    expect((await print(w.tokens.physician, body)).statusCode).toBe(200);
    expect((await print(w.tokens.external, body)).statusCode).toBe(200);
    for (const caller of ['owner', 'guestA', 'share', 'admin'] as const) {
      expect((await print(w.tokens[caller], body)).statusCode, caller).toBe(403);
    }
    expect((await print(null, body)).statusCode).toBe(401);
  });

  it('refuses empty and oversized lists with the exact messages, and any protocol not the caller’s', async () => {
    const empty = await print(w.tokens.physician, { requestIds: [], isCompressed: false });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().message).toBe('The list must have at least 1 protocol selected!');
    const many = await print(w.tokens.physician, {
      requestIds: Array.from({ length: 51 }, (_, i) => `id-${i}`),
      isCompressed: false,
    });
    expect(many.statusCode).toBe(400);
    expect(many.json().message).toBe('The list must have at most 50 protocols selected!');
    const mixed = await print(w.tokens.physician, {
      requestIds: [p1.protocol.id, w.b.protocol.id],
      isCompressed: false,
    });
    expect(mixed.statusCode).toBe(404);
    const notTagged = await print(w.tokens.external, { requestIds: [p1.protocol.id], isCompressed: false });
    expect(notTagged.statusCode).toBe(404);
  });

  it('merges the reports in order into one PDF with a bookmark per protocol and marks them read', async () => {
    const p1Read = () =>
      portal.ctx.db
        .selectFrom('examReads')
        .select('examId')
        .where('viewerKey', '=', w.users.physician.id)
        .where(
          'examId',
          'in',
          p1.exams.map((e) => e.id),
        )
        .execute();
    expect(await p1Read()).toHaveLength(0);
    const res = await print(w.tokens.physician, {
      userId: w.users.physician.id,
      requestIds: [p2.protocol.id, p1.protocol.id],
      isCompressed: false,
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toBe('attachment; filename="resultados_20261120_090000.pdf"');
    const doc = await PDFDocument.load(res.rawPayload);
    // p2 (3 pages) then p1: REPORTs by performedAt (early 1, late 2), then REPORT_PHYSICIAN (1); pending left out.
    expect(doc.getPages().map((p) => p.getWidth())).toEqual([305, 305, 305, 302, 301, 301, 303]);
    const outlines = doc.catalog.lookup(PDFName.of('Outlines'), PDFDict);
    expect(outlines.lookup(PDFName.of('Count'), PDFNumber).asNumber()).toBe(2);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'batch-'));
    try {
      fs.writeFileSync(path.join(tmp, 'out.pdf'), res.rawPayload);
      const check = execFileSync('qpdf', ['--check', path.join(tmp, 'out.pdf')]).toString();
      expect(check).toContain('No syntax or stream encoding errors found');
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
    const reads = await portal.ctx.db
      .selectFrom('examReads')
      .select('examId')
      .where('viewerKey', '=', w.users.physician.id)
      .execute();
    expect(reads.map((r) => r.examId).sort()).toEqual([...p1.exams, ...p2.exams].map((e) => e.id).sort());
    const audits = await portal.ctx.db
      .selectFrom('auditEvents')
      .selectAll()
      .where('event', '=', 'BATCH_PRINT')
      .where('systemUserId', '=', w.users.physician.id)
      .execute();
    expect(audits.map((a) => a.protocolId).sort()).toEqual(expect.arrayContaining([p1.protocol.id, p2.protocol.id]));
  });

  it('zips the same files, byte for byte, in a folder per protocol', async () => {
    const res = await print(w.tokens.physician, { requestIds: [p1.protocol.id, p2.protocol.id], isCompressed: true });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="resultados_\d{8}_\d{6}\.zip"$/);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'batch-'));
    try {
      const zip = path.join(tmp, 'out.zip');
      fs.writeFileSync(zip, res.rawPayload);
      expect(execFileSync('unzip', ['-tq', zip]).toString()).toContain('No errors detected');
      const names = execFileSync('unzip', ['-Z1', zip]).toString().trim().split('\n');
      // Named by exam and date; the physician's copy says so, in the reader's language (pt-BR here).
      expect(names).toEqual([
        'BP-1/Exam 1 - 2026-11-18.pdf',
        'BP-1/Exam 0 - 2026-11-18.pdf',
        'BP-1/Exam 1 - 2026-11-18 - médico.pdf',
        'BP-2/Exam 0 - 2026-11-18.pdf',
      ]);
      const expected: Record<string, string> = {
        'BP-1/Exam 1 - 2026-11-18.pdf': 'early',
        'BP-1/Exam 0 - 2026-11-18.pdf': 'late',
        'BP-1/Exam 1 - 2026-11-18 - médico.pdf': 'early-physician',
        'BP-2/Exam 0 - 2026-11-18.pdf': 'only',
      };
      for (const [name, source] of Object.entries(expected)) {
        expect(execFileSync('unzip', ['-p', zip, name], { maxBuffer: 16 << 20 }).equals(files.get(source)!), name).toBe(
          true,
        );
      }
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
