/**
 * Opening results under load: protocol details, reports and lists asked by many distinct users in
 * rotation (each request from another user, as a morning of released results looks), beside the
 * same calls of one user and the reference route, measured in the same run. Prints figures;
 * asserts nothing.
 *
 *   node --import tsx bench/open.bench.ts                      (100,000 protocols, 3 rounds of 5 s)
 *   BENCH_PROTOCOLS=10000,100000 BENCH_ROUNDS=3 BENCH_SECONDS=5 BENCH_USERS=2000 node --import tsx bench/open.bench.ts
 *   BENCH_DB=postgres ...
 *
 * BENCH_ONLY_ROWS=detail,report keeps the rows whose name starts with one of those words. Each
 * round measures the reference, then every row; the table gives per row the median over the
 * rounds of req/s, p99 and of its ratio to that round's reference.
 */
import os from 'node:os';
import { sql } from 'kysely';
import {
  type Call,
  DIALECT,
  load,
  type LoadFigures,
  median,
  openClinic,
  PATHS,
  patientsOfClinic,
  physiciansOfClinic,
  SECONDS,
  startFileReference,
  startReference,
} from './clinic.js';

const SIZES = (process.env.BENCH_PROTOCOLS ?? '100000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const USERS = Number(process.env.BENCH_USERS ?? 2000);
const ONLY = process.env.BENCH_ONLY_ROWS?.split(',');

interface Row {
  name: string;
  /** One user's call repeated (a path and its token), or calls of many users in rotation. */
  calls: Call[];
}

async function runSize(protocolCount: number) {
  const { portal, ctx, clinic, token } = await openClinic(protocolCount);
  const address = await portal.app.listen({ host: '127.0.0.1', port: 0 });
  const reference = await startReference(ctx, clinic);

  const patients = await patientsOfClinic(ctx, clinic, protocolCount, USERS);
  const physicians = await physiciansOfClinic(ctx, clinic, USERS);
  const t0 = performance.now();
  const patientTokens = await Promise.all(patients.map((p) => token('PATIENT', p.userId)));
  const physicianTokens = await Promise.all(physicians.map((p) => token('PHYSICIAN', p.id)));
  console.log(
    `${patients.length} patients and ${physicians.length} physicians signed in (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
  );

  // One user's own protocol and report, for the single-user rows.
  const own = await ctx.db
    .selectFrom('protocols as p')
    .innerJoin('exams as e', 'e.protocolId', 'p.id')
    .innerJoin('resources as r', 'r.examId', 'e.id')
    .select(['p.id as protocolId', 'r.id as resourceId'])
    .where('p.patientUserId', '=', clinic.patientId)
    .where('r.type', '=', 'REPORT')
    .orderBy('p.sortAt', 'desc')
    .limit(1)
    .executeTakeFirstOrThrow();
  const ownToken = await token('PATIENT', clinic.patientId);

  const rows: Row[] = [
    { name: 'detail, one patient', calls: [{ path: `${PATHS.detail}${own.protocolId}`, token: ownToken }] },
    {
      name: `detail, ${patients.length} patients in rotation`,
      calls: patients.map((p, i) => ({ path: `${PATHS.detail}${p.protocolId}`, token: patientTokens[i]! })),
    },
    { name: 'report, one patient', calls: [{ path: `${PATHS.report}${own.resourceId}`, token: ownToken }] },
    {
      name: `report, ${patients.length} patients in rotation`,
      calls: patients.map((p, i) => ({ path: `${PATHS.report}${p.resourceId}`, token: patientTokens[i]! })),
    },
    { name: 'patient list, one patient (kept answer)', calls: [{ path: PATHS.patientList, token: ownToken }] },
    {
      // Each asks with forceRefresh: the answer is built as for a user's first call of the day.
      name: `patient list, ${patients.length} patients in rotation, each built anew`,
      calls: patientTokens.map((t) => ({ path: `${PATHS.patientList}?forceRefresh=true`, token: t })),
    },
    {
      name: `patient list, ${patients.length} patients in rotation, kept answers`,
      calls: patientTokens.map((t) => ({ path: PATHS.patientList, token: t })),
    },
    {
      name: `physician list, ${physicians.length} physicians in rotation, each built anew`,
      calls: physicianTokens.map((t) => ({ path: `${PATHS.physicianList}?forceRefresh=true`, token: t })),
    },
  ].filter((r) => !ONLY || ONLY.some((word) => r.name.startsWith(word)));

  // autocannon appends every answer's body to a string: a binary file costs the load generator a
  // UTF-8 decoding of its bytes, which for an 80 KB PDF caps it near 900 answers a second on this
  // machine whoever sends them. A bare Fastify route sending the same report's bytes from memory
  // shows that ceiling in the same run; the report rows are also given as a share of it.
  const reportRows = rows.some((r) => r.name.startsWith('report'));
  const fileReference = reportRows ? await startFileReference(await storedBytes(ctx, own.resourceId)) : null;

  const figures = new Map<string, Array<LoadFigures & { ratio: number; fileRatio: number | null }>>();
  const references: LoadFigures[] = [];
  const fileReferences: LoadFigures[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const ref = await load(reference.url, {});
    references.push(ref);
    const line = [`round ${round + 1}: reference ${ref.rps} req/s p99 ${ref.p99}`];
    const fileRef = fileReference ? await load(fileReference.url, {}) : null;
    if (fileRef) {
      fileReferences.push(fileRef);
      line.push(`file reference ${fileRef.rps}`);
    }
    for (const row of rows) {
      const r = await load(`${address}${row.calls[0]!.path}`, {}, SECONDS, row.calls);
      const list = figures.get(row.name) ?? [];
      const fileRatio = fileRef && row.name.startsWith('report') ? r.rps / fileRef.rps : null;
      list.push({ ...r, ratio: r.rps / ref.rps, fileRatio });
      figures.set(row.name, list);
      line.push(`${row.name.split(',')[0]} ${r.rps}${r.errors ? ` (${r.errors} errors)` : ''}`);
    }
    console.log(line.join('; '));
  }

  const stat = (list: LoadFigures[], key: 'rps' | 'p99') => median(list.map((f) => f[key]));
  console.log(
    `\n${DIALECT}, ${protocolCount} protocols, ${ROUNDS} rounds of ${SECONDS} s, load average ${os.loadavg()[0]!.toFixed(1)}: medians`,
  );
  console.log(
    '| call | req/s | p99 ms | ratio to the reference | ratio to the file reference | non-2xx (all rounds) |',
  );
  console.log('|---|---|---|---|---|---|');
  console.log(
    `| reference: Fastify route, one indexed 10-row query | ${stat(references, 'rps')} | ${stat(references, 'p99')} | 1.00 | | ${references.reduce((a, f) => a + f.errors, 0)} |`,
  );
  if (fileReferences.length > 0) {
    const ratio = median(fileReferences.map((f, i) => f.rps / references[i]!.rps));
    console.log(
      `| file reference: Fastify route, the same report's bytes from memory | ${stat(fileReferences, 'rps')} | ${stat(fileReferences, 'p99')} | ${ratio.toFixed(2)} | 1.00 | ${fileReferences.reduce((a, f) => a + f.errors, 0)} |`,
    );
  }
  for (const row of rows) {
    const list = figures.get(row.name)!;
    const fileRatios = list.flatMap((f) => (f.fileRatio === null ? [] : [f.fileRatio]));
    console.log(
      `| ${row.name} | ${stat(list, 'rps')} | ${stat(list, 'p99')} | ${median(list.map((f) => f.ratio)).toFixed(2)} | ${fileRatios.length > 0 ? median(fileRatios).toFixed(2) : ''} | ${list.reduce((a, f) => a + f.errors, 0)} |`,
    );
  }
  const audits = await sql<{ n: number }>`select count(*) as n from audit_events`.execute(ctx.db);
  console.log(`audit records now: ${Number(audits.rows[0]!.n)}`);
  await reference.close();
  await fileReference?.close();
  await portal.close();
}

/** A resource's stored file, read whole. */
async function storedBytes(ctx: Awaited<ReturnType<typeof openClinic>>['ctx'], resourceId: string): Promise<Buffer> {
  const file = await ctx.db
    .selectFrom('resources')
    .select(['storageKey', 'size'])
    .where('id', '=', resourceId)
    .executeTakeFirstOrThrow();
  return ctx.storage.read(file.storageKey, file.size);
}

async function main() {
  console.log(
    `${DIALECT}, load average at start: ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  for (const size of SIZES) await runSize(size);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
