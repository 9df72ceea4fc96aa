import { PDFDocument } from 'pdf-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabaseEnv, startTestPortal } from '../../test/helpers.js';
import { kill, killStartedServers, startServer } from '../../test/server-process.js';
import { createInstitution } from '../institutions/institution.service.js';

describe('ingest survives a killed server', () => {
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await killStartedServers();
    await drop?.();
  });

  it('finds the protocol and its file after SIGKILL right after the answer', async () => {
    const database = await freshDatabaseEnv();
    drop = database.drop;
    const setup = await startTestPortal({ reuse: { env: database.env } });
    const { apiKey } = await createInstitution(setup.ctx, { code: 'KILL', name: 'Kill Test', viewType: 2 });
    await setup.close();

    const doc = await PDFDocument.create();
    doc.addPage().drawText('Laudo final', { x: 50, y: 700 });
    const pdf = Buffer.from(await doc.save());
    const body = JSON.stringify({
      password: 'segredo',
      requestedAt: '2026-11-01T10:00:00Z',
      patient: { patientId: 'K1', name: 'Kim', birthDate: '1970-07-07', gender: 'F' },
      exams: [{ examKey: 'E1', description: 'Laudo', type: 'IMG', modalityCode: 'CT', modalityName: 'Tomografia' }],
    });
    const send = async (url: string) => {
      const protocol = await fetch(`${url}/api/v2/delivery/ingest/protocols/K-100`, {
        method: 'PUT',
        body,
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      });
      const file = await fetch(`${url}/api/v2/delivery/ingest/protocols/K-100/exams/E1/resources/L1?type=REPORT`, {
        method: 'PUT',
        body: pdf,
        headers: { 'x-api-key': apiKey, 'content-type': 'application/pdf' },
      });
      return [protocol.status, file.status];
    };

    const first = await startServer(database.env);
    expect(await send(first.url)).toEqual([201, 201]);
    await kill(first.child);

    const second = await startServer(database.env);
    // Both already there: the same calls are now updates that change nothing.
    expect(await send(second.url)).toEqual([200, 200]);
    await kill(second.child);

    const check = await startTestPortal({ reuse: { env: database.env } });
    try {
      const protocols = await check.ctx.db.selectFrom('protocols').select(['id', 'number']).execute();
      expect(protocols.map((p) => p.number)).toEqual(['K-100']);
      const resource = await check.ctx.db.selectFrom('resources').selectAll().executeTakeFirstOrThrow();
      const chunks: Buffer[] = [];
      for await (const chunk of await check.ctx.storage.get(resource.storageKey)) chunks.push(chunk as Buffer);
      expect(Buffer.compare(Buffer.concat(chunks), pdf)).toBe(0);
    } finally {
      await check.close();
    }
  }, 180_000);
});
