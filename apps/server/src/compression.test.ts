import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInstitution } from './modules/institutions/institution.service.js';
import { pdfBytes } from './modules/delivery/test-factories.js';
import { bearer, startTestPortal, type TestPortal } from './test/helpers.js';

/**
 * What a phone downloads: the web app's files precompressed at build time and chosen by
 * Accept-Encoding, JSON answers compressed above 1 KiB, stored files sent byte for byte.
 */
describe('compressed answers', () => {
  let portal: TestPortal;
  let webDist: string;
  let apiKey: string;
  const script = `export const words = ${JSON.stringify(Array.from({ length: 400 }, (_, i) => `palavra-${i}`))};\n`;

  beforeAll(async () => {
    webDist = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-web-dist-'));
    fs.mkdirSync(path.join(webDist, 'assets'));
    const write = (file: string, text: string) => {
      fs.writeFileSync(file, text);
      fs.writeFileSync(`${file}.br`, zlib.brotliCompressSync(text));
      fs.writeFileSync(`${file}.gz`, zlib.gzipSync(text));
    };
    write(path.join(webDist, 'index.html'), `<!doctype html><title>Portal</title>${'<p>x</p>'.repeat(200)}`);
    write(path.join(webDist, 'login.html'), `<!doctype html><title>Acesso</title>${'<p>drawn</p>'.repeat(200)}`);
    // One dashboard drawn, the other not (each drawn screen is sent only where the build has it).
    fs.mkdirSync(path.join(webDist, 'dashboard', 'patient'), { recursive: true });
    write(
      path.join(webDist, 'dashboard', 'patient', 'protocols.html'),
      `<!doctype html><title>Meus protocolos</title>${'<p>drawn</p>'.repeat(200)}`,
    );
    write(path.join(webDist, 'assets', 'app-abc123.js'), script);
    fs.writeFileSync(path.join(webDist, 'robots.txt'), 'User-agent: *\nDisallow: /api\n');
    portal = await startTestPortal({ env: { WEB_DIST: webDist } });
    ({ apiKey } = await createInstitution(portal.ctx, { code: 'LABZ', name: 'Lab Z', viewType: 1 }));
  });
  afterAll(async () => {
    await portal?.destroy();
    fs.rmSync(webDist, { recursive: true, force: true });
  });

  const get = (url: string, acceptEncoding?: string, token?: string) =>
    portal.app.inject({
      url,
      headers: { ...(acceptEncoding ? { 'accept-encoding': acceptEncoding } : {}), ...(token ? bearer(token) : {}) },
    });

  it('sends the brotli copy of a hashed file to a browser that accepts it, cached for good', async () => {
    const res = await get('/assets/app-abc123.js', 'gzip, deflate, br, zstd');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.rawPayload.length).toBeLessThan(script.length / 3);
    expect(zlib.brotliDecompressSync(res.rawPayload).toString()).toBe(script);
  });

  it('sends the gzip copy to a browser without brotli, and the file itself to one without either', async () => {
    const gzip = await get('/assets/app-abc123.js', 'gzip');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.headers.vary).toMatch(/accept-encoding/i);
    expect(zlib.gunzipSync(gzip.rawPayload).toString()).toBe(script);
    const plain = await get('/assets/app-abc123.js');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    expect(plain.body).toBe(script);
  });

  it('sends each screen drawn at build time for its own path, with or without a query, and only there', async () => {
    for (const [url, title] of [
      ['/login', 'Acesso'],
      ['/login?activeSuccess=true', 'Acesso'],
      ['/dashboard/patient/protocols', 'Meus protocolos'],
      ['/dashboard/patient/protocols?page=2', 'Meus protocolos'],
    ] as const) {
      const page = await get(url, 'br');
      expect(page.headers['content-encoding'], url).toBe('br');
      expect(page.headers['cache-control']).toBe('no-cache');
      expect(zlib.brotliDecompressSync(page.rawPayload).toString(), url).toContain(`<title>${title}</title>`);
    }
    for (const url of [
      '/',
      '/login-cv',
      '/login/x',
      '/dashboard/patient',
      '/dashboard/patient/protocols/x',
      '/dashboard/patient/showprotocol?id=1',
      // Not drawn by this build: the app's page.
      '/dashboard/physician/protocols',
    ]) {
      expect((await get(url)).body, url).toContain('<title>Portal</title>');
    }
    // By the file's own name it is sent to its path, the query kept.
    for (const [url, location] of [
      ['/login.html', '/login'],
      ['/login.html?activeSuccess=true', '/login?activeSuccess=true'],
      ['/dashboard/patient/protocols.html', '/dashboard/patient/protocols'],
      ['/dashboard/patient/protocols.html?page=2', '/dashboard/patient/protocols?page=2'],
    ] as const) {
      const moved = await get(url);
      expect(moved.statusCode, url).toBe(301);
      expect(moved.headers.location).toBe(location);
    }
  });

  it('compresses the app page of every route and a large JSON answer, not a small one', async () => {
    const page = await get('/dashboard/physician/protocols', 'br');
    expect(page.headers['content-encoding']).toBe('br');
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(zlib.brotliDecompressSync(page.rawPayload).toString()).toContain('<title>Portal</title>');
    const docs = await get('/api/docs/openapi.json', 'gzip, br');
    expect(docs.headers['content-encoding']).toBe('br');
    expect(docs.headers.vary).toMatch(/accept-encoding/i);
    expect(docs.headers['cache-control']).toBe('no-store');
    expect(JSON.parse(zlib.brotliDecompressSync(docs.rawPayload).toString()).openapi).toMatch(/^3\./);
    const small = await get('/readyz', 'gzip, br');
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.statusCode).toBe(200);
  });

  it('answers robots.txt as plain text', async () => {
    const robots = await get('/robots.txt', 'gzip, br');
    expect(robots.statusCode).toBe(200);
    expect(robots.headers['content-type']).toMatch(/^text\/plain/);
    expect(robots.body).toContain('Disallow: /api');
  });

  it('sends a list compressed and a report byte for byte, its ranges untouched', async () => {
    const put = await portal.app.inject({
      method: 'PUT',
      url: '/api/v2/delivery/ingest/protocols/556677',
      headers: { 'x-api-key': apiKey },
      payload: {
        password: 'secret-1',
        requestedAt: '2026-11-19T10:00:00-03:00',
        patient: { patientId: 'Z1', name: 'Ana Compressa', birthDate: '1975-05-06', gender: 'F' },
        exams: Array.from({ length: 6 }, (_, i) => ({
          examKey: `EX-${i}`,
          description: `Exame número ${i} com uma descrição longa o bastante`,
          type: 'LAB',
          modalityCode: 'LAB',
          modalityName: 'Laboratório',
          requester: { identifier: 'R9', name: 'Dr. Compressão', crm: '99123', uf: 'sp' },
          status: 'L',
          performedAt: '2026-11-19T11:00:00-03:00',
        })),
      },
    });
    expect(put.statusCode).toBe(201);
    const pdf = await pdfBytes('laudo', 2);
    const upload = await portal.app.inject({
      method: 'PUT',
      url: '/api/v2/delivery/ingest/protocols/556677/exams/EX-0/resources/LAUDO-9?type=REPORT',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/pdf' },
      payload: pdf,
    });
    expect(upload.statusCode).toBe(201);
    const requestId = put.json().data.requestId as string;
    const token = await portal.sessionFor({ role: 'GUEST', username: '556677', protocolIds: [requestId] });
    const exams = await get(`/api/v2/delivery/dashboard/protocols/exams?request=${requestId}`, 'gzip', token);
    expect(exams.headers['content-encoding']).toBe('gzip');
    const examList = JSON.parse(zlib.gunzipSync(exams.rawPayload).toString()).data as Array<{
      examKey: string;
      identifierReport?: string;
    }>;
    expect(examList).toHaveLength(6);
    const reportId = examList.find((e) => e.examKey === 'EX-0')!.identifierReport!;

    const report = await get(`/api/v2/delivery/resource/report?resourceId=${reportId}`, 'gzip, br', token);
    expect(report.statusCode).toBe(200);
    expect(report.headers['content-encoding']).toBeUndefined();
    expect(Number(report.headers['content-length'])).toBe(pdf.length);
    expect(Buffer.compare(report.rawPayload, Buffer.from(pdf))).toBe(0);
    const part = await portal.app.inject({
      url: `/api/v2/delivery/resource/report?resourceId=${reportId}`,
      headers: { 'accept-encoding': 'gzip, br', range: 'bytes=0-99', ...bearer(token) },
    });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-encoding']).toBeUndefined();
    expect(Buffer.compare(part.rawPayload, Buffer.from(pdf).subarray(0, 100))).toBe(0);
  });
});
