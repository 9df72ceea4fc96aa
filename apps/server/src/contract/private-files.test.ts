import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInstitution } from '../modules/institutions/institution.service.js';
import { pdfBytes } from '../modules/delivery/test-factories.js';
import { startTestPortal, TEST_DIALECT, type TestPortal } from '../test/helpers.js';

/** Every file and folder under DATA_DIR, with its permission bits. */
function modesUnder(root: string): Array<{ path: string; mode: string; dir: boolean }> {
  const out: Array<{ path: string; mode: string; dir: boolean }> = [];
  const walk = (at: string) => {
    const stat = fs.statSync(at);
    out.push({ path: path.relative(root, at) || '.', mode: (stat.mode & 0o777).toString(8), dir: stat.isDirectory() });
    if (stat.isDirectory()) for (const name of fs.readdirSync(at)) walk(path.join(at, name));
  };
  walk(root);
  return out;
}

describe('files under DATA_DIR are private (0600, folders 0700)', () => {
  let portal: TestPortal;
  let dataDir: string;

  beforeAll(async () => {
    // A folder and a database file as an earlier version left them: readable by everyone.
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-modes-'));
    fs.chmodSync(dataDir, 0o755);
    if (TEST_DIALECT === 'sqlite') fs.writeFileSync(path.join(dataDir, 'portal.db'), '', { mode: 0o644 });
    fs.chmodSync(dataDir, 0o755);
    portal = await startTestPortal({ env: { DATA_DIR: dataDir, JWT_SECRET: '' } });
    const { apiKey } = await createInstitution(portal.ctx, { code: 'MODES', name: 'Modos', viewType: 1 });
    const put = await portal.app.inject({
      method: 'PUT',
      url: '/api/v2/delivery/ingest/protocols/M-1',
      headers: { 'x-api-key': apiKey },
      payload: {
        password: 'senha-1',
        patient: { patientId: 'M1', name: 'Marta Modo', birthDate: '1970-01-01', gender: 'F' },
        exams: [{ examKey: 'E1', description: 'Eco', type: 'US', modalityCode: 'US', modalityName: 'Ultrassom' }],
      },
    });
    expect(put.statusCode, put.body).toBeLessThan(300);
    const upload = await portal.app.inject({
      method: 'PUT',
      url: '/api/v2/delivery/ingest/protocols/M-1/exams/E1/resources/L1?type=REPORT',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/pdf' },
      payload: await pdfBytes('laudo'),
    });
    expect(upload.statusCode, upload.body).toBe(201);
  });
  afterAll(async () => {
    await portal?.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('writes the database, its WAL and shared memory, the signing secret and result files for the owner alone', () => {
    const entries = modesUnder(dataDir);
    const names = entries.map((e) => e.path);
    expect(names).toContain('jwt-secret');
    expect(names).toContain('files');
    expect(entries.filter((e) => !e.dir && e.path.startsWith('files')).length).toBeGreaterThan(0);
    if (TEST_DIALECT === 'sqlite') {
      expect(names).toEqual(expect.arrayContaining(['portal.db', 'portal.db-wal', 'portal.db-shm']));
    }
    const wrong = entries.filter((e) => e.mode !== (e.dir ? '700' : '600'));
    expect(wrong).toEqual([]);
  });
});
