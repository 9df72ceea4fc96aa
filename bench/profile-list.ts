/**
 * In-process cost of one protocol-list request, stage by stage (no HTTP load generator).
 *
 *   node --import tsx bench/profile-list.ts      (BENCH_PROTOCOLS sizes the clinic)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../apps/server/src/config.js';
import { issueSession, verifyAccessToken } from '../apps/server/src/plugins/auth.js';
import { createPortal } from '../apps/server/src/server.js';
import { loadViewer, buildListItems } from '../apps/server/src/modules/delivery/delivery.service.js';
import { listProtocols } from '../apps/server/src/modules/delivery/protocol-list.repository.js';
import { generateClinic } from './generate.js';
import { zProtocolPage } from '@portal/shared/schemas/delivery';
import { listAnswer } from '../apps/server/src/modules/delivery/protocol-list.service.js';

const PROTOCOLS = Number(process.env.BENCH_PROTOCOLS ?? 20_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 500);

async function per(name: string, fn: () => Promise<unknown>) {
  for (let i = 0; i < 20; i++) await fn();
  const t0 = performance.now();
  for (let i = 0; i < RUNS; i++) await fn();
  console.log(`${name.padEnd(28)} ${(((performance.now() - t0) / RUNS) * 1000).toFixed(0).padStart(7)} µs`);
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-prof-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-00',
  });
  const clock = { now: () => new Date('2026-11-20T12:00:00.000Z') };
  const portal = await createPortal(config, { clock, outbox: false, logStream: fs.createWriteStream('/dev/null') });
  const { ctx } = portal;
  const clinic = await generateClinic(ctx, {
    protocols: PROTOCOLS,
    examsPerProtocol: 5,
  });
  const cases = [
    [
      'patient',
      'PATIENT',
      clinic.patientId,
      '/api/v2/delivery/dashboard/protocols?initialDate=20/11/2025&finalDate=20/11/2026',
    ],
    [
      'physician',
      'PHYSICIAN',
      clinic.physicianId,
      '/api/delivery/persistence/protocols/physician?initialDate=21/10/2026&finalDate=20/11/2026',
    ],
    ['external', 'EXTERNAL', clinic.externalId, '/api/v2/delivery/protocols/listedByTags'],
  ] as const;
  for (const [name, role, userId, url] of cases) {
    const { accessToken } = await issueSession(ctx, { role, userId, username: 'bench' });
    console.log(`\n${name} @ ${PROTOCOLS}`);
    const auth = await verifyAccessToken(ctx, accessToken);
    await per('verifyAccessToken', () => verifyAccessToken(ctx, accessToken));
    const viewer = loadViewer(auth);
    await per('loadViewer', async () => loadViewer(auth));
    const from =
      role === 'EXTERNAL'
        ? '2026-11-13T12:00:00.000Z'
        : role === 'PATIENT'
          ? '2025-11-20T03:00:00.000Z'
          : '2026-10-21T03:00:00.000Z';
    const size = role === 'EXTERNAL' ? 50 : 10;
    const filter = { from, orderBy: 'date' as const, offset: 0, limit: size };
    const { rows } = await listProtocols(ctx.database.reader, viewer, filter);
    await per('listProtocols (page+exams, count)', () => listProtocols(ctx.database.reader, viewer, filter));
    await per('buildListItems', () => buildListItems(ctx, viewer, rows, { external: role === 'EXTERNAL' }));
    const kind = role === 'PATIENT' ? 'dashboard' : role === 'PHYSICIAN' ? 'physician' : 'external';
    const query = { page: 1, ...(role === 'EXTERNAL' ? {} : { initialDate: from.slice(0, 10) }) } as never;
    const anew = { ...(query as object), forceRefresh: true } as never;
    const page = (JSON.parse((await listAnswer(ctx, auth, kind, anew)).body) as { data: unknown }).data;
    await per('listAnswer, built anew', () => listAnswer(ctx, auth, kind, anew));
    await per('listAnswer, kept', () => listAnswer(ctx, auth, kind, query));
    await per('zod parse of the answer', async () => zProtocolPage.parse({ data: page }));
    await per('JSON.stringify', async () => JSON.stringify({ data: page }));
    await per('inject (whole request)', () =>
      portal.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${accessToken}` } }),
    );
    const res = await portal.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${accessToken}` } });
    console.log(`status ${res.statusCode}, ${res.body.length} bytes, total ${JSON.parse(res.body).data.total}`);
  }
  await portal.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
