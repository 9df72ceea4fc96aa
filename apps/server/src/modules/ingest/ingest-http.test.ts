import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPortal, type TestPortal } from '../../test/helpers.js';
import { createInstitution } from '../institutions/institution.service.js';

const LIMIT = 1024 * 1024;

describe('ingest uploads over a real connection', () => {
  let portal: TestPortal;
  let apiKey: string;
  let port: number;

  beforeAll(async () => {
    portal = await startTestPortal({ env: { INGEST_MAX_BYTES: String(LIMIT) } });
    ({ apiKey } = await createInstitution(portal.ctx, { code: 'HTTP1', name: 'Http', viewType: 2 }));
    const created = await portal.app.inject({
      method: 'PUT',
      url: '/api/v2/delivery/ingest/protocols/H-1',
      payload: {
        password: 'segredo',
        patient: { patientId: '1', name: 'Ana', birthDate: '1980-01-01', gender: 'F' },
        exams: [{ examKey: 'E1', description: 'Laudo', type: 'IMG', modalityCode: 'CT', modalityName: 'Tomografia' }],
      },
      headers: { 'x-api-key': apiKey },
    });
    expect(created.statusCode).toBe(201);
    await portal.app.listen({ port: 0, host: '127.0.0.1' });
    port = (portal.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => portal?.destroy());

  /** Streams `first` then `total` bytes of filler without a Content-Length, as a chunked upload. */
  function upload(identifier: string, first: Buffer, total: number): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'PUT',
          path: `/api/v2/delivery/ingest/protocols/H-1/exams/E1/resources/${identifier}?type=REPORT`,
          headers: { 'x-api-key': apiKey, 'content-type': 'application/pdf', 'transfer-encoding': 'chunked' },
        },
        (res) => {
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.write(first);
      const filler = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const pump = () => {
        while (sent < total) {
          sent += filler.length;
          if (!req.write(filler)) return void req.once('drain', pump);
        }
        req.end();
      };
      pump();
    });
  }

  it('answers 413 to the client, not a reset connection, and keeps nothing of the upload', async () => {
    const res = await upload('BIG', Buffer.from('%PDF-1.7\n'), 8 * LIMIT);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).message).toBe('Payload too large.');
    const files = path.join(portal.ctx.config.dataDir, 'files');
    const left = fs.existsSync(files) ? (fs.readdirSync(files, { recursive: true }) as string[]) : [];
    expect(left.filter((f) => fs.statSync(path.join(files, f)).isFile())).toEqual([]);
    expect(await portal.ctx.db.selectFrom('resources').select('id').execute()).toEqual([]);
  });

  it('answers 400 to a file whose bytes do not match its declared type', async () => {
    const res = await upload('FAKE', Buffer.from('GIF89a'), LIMIT / 2);
    expect(res.status).toBe(400);
    expect(res.body).toContain('%PDF-');
  });

  it('takes a file within the limit', async () => {
    const res = await upload('OK', Buffer.from('%PDF-1.7\n'), LIMIT / 2);
    expect(res.status).toBe(201);
  });
});
