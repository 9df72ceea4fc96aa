/**
 * Where a list call's time goes under load: serves one list to autocannon (50 connections, in a
 * worker thread, as in delivery.bench.ts) while the main thread's CPU profile is recorded, then
 * prints the functions with the most self time, grouped by package.
 *
 *   node --import tsx bench/profile-load.ts                 (patient list, 20,000 protocols)
 *   PROFILE_LIST=external PROFILE_SECONDS=8 node --import tsx bench/profile-load.ts
 *   PROFILE_LIST=external PROFILE_FORCE=1 ...               (the external page built anew on every call)
 *
 * PROFILE_LIST is one of reference, patient, physician, external, guest, or detail and report
 * (BENCH_USERS patients in rotation, each opening her own protocol or report), or physicians
 * (BENCH_USERS physicians in rotation, each list built anew). The clinic is the
 * one the benchmarks keep for BENCH_PROTOCOLS (generated first when there is none); PROFILE_OUT
 * keeps the .cpuprofile for Chrome's DevTools.
 */
import fs from 'node:fs';
import inspector from 'node:inspector/promises';
import { issueSession } from '../apps/server/src/plugins/auth.js';
import { type Call, load, openClinic, PATHS, physiciansOfClinic, REFERENCE_SQL } from './clinic.js';

const PROTOCOLS = Number(process.env.BENCH_PROTOCOLS ?? 20_000);
const LIST = process.env.PROFILE_LIST ?? 'patient';
const SECONDS = Number(process.env.PROFILE_SECONDS ?? 6);
const USERS = Number(process.env.BENCH_USERS ?? 2000);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

function packageOf(url: string): string {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1]!;
  if (url.includes('/apps/server/')) return 'portal';
  if (url.startsWith('node:') || url === '') return url || '(native)';
  return url;
}

async function main() {
  const { portal, ctx, clinic } = await openClinic(PROTOCOLS);
  const referenceSql = REFERENCE_SQL;
  portal.app.get('/api/bench/reference', async () =>
    ctx.database.reader.all(referenceSql, [clinic.heavyPatientId], { planWithValues: true }),
  );
  const address = await portal.app.listen({ host: '127.0.0.1', port: 0 });
  const session = async (role: 'PATIENT' | 'PHYSICIAN' | 'EXTERNAL' | 'GUEST', userId: string | null, ids?: string[]) =>
    (
      await issueSession(ctx, {
        role,
        userId,
        username: 'bench',
        protocolIds: ids,
        expiresAt: new Date(Date.now() + 3600_000),
      })
    ).accessToken;
  /** Many patients' own protocols and first reports, for the rotations of details and reports. */
  const patients = async () => {
    const rows = await ctx.db
      .selectFrom('protocols as p')
      .innerJoin('exams as e', 'e.protocolId', 'p.id')
      .innerJoin('resources as r', 'r.examId', 'e.id')
      .select(['p.id as protocolId', 'p.patientUserId as userId', 'r.id as resourceId'])
      .where('e.position', '=', 0)
      .where('p.patientUserId', 'not in', [clinic.patientId, clinic.heavyPatientId])
      .limit(USERS)
      .execute();
    return Promise.all(rows.map(async (r) => ({ ...r, token: await session('PATIENT', r.userId) })));
  };
  const targets: Record<string, () => Promise<{ url: string; token: string; rotation?: Call[] }>> = {
    reference: async () => ({ url: '/api/bench/reference', token: '' }),
    patient: async () => ({
      url: '/api/v2/delivery/dashboard/protocols',
      token: await session('PATIENT', clinic.patientId),
    }),
    physician: async () => ({
      url: '/api/delivery/persistence/protocols/physician',
      token: await session('PHYSICIAN', clinic.physicianId),
    }),
    external: async () => ({
      url: `/api/v2/delivery/protocols/listedByTags${process.env.PROFILE_FORCE ? '?forceRefresh=true' : ''}`,
      token: await session('EXTERNAL', clinic.externalId),
    }),
    guest: async () => ({
      url: '/api/v2/delivery/dashboard/protocols',
      token: await session('GUEST', null, [clinic.guestProtocolId]),
    }),
    detail: async () => {
      const rotation = (await patients()).map((p) => ({ path: `${PATHS.detail}${p.protocolId}`, token: p.token }));
      return { url: rotation[0]!.path, token: '', rotation };
    },
    physicians: async () => {
      // Many physicians' lists, each built anew (forceRefresh), as their first call of the day.
      const physicians = await physiciansOfClinic(ctx, clinic, USERS);
      const rotation = await Promise.all(
        physicians.map(async (p) => ({
          path: `${PATHS.physicianList}?forceRefresh=true`,
          token: await session('PHYSICIAN', p.id),
        })),
      );
      return { url: rotation[0]!.path, token: '', rotation };
    },
    report: async () => {
      const rotation = (await patients()).map((p) => ({ path: `${PATHS.report}${p.resourceId}`, token: p.token }));
      return { url: rotation[0]!.path, token: '', rotation };
    },
  };
  const target = await targets[LIST]!();
  const headers: Record<string, string> = target.token ? { authorization: `Bearer ${target.token}` } : {};
  const run = (seconds: number) => load(`${address}${target.url}`, headers, seconds, target.rotation);
  // Warm up, then profile a run of its own.
  await run(2);
  const inspectorSession = new inspector.Session();
  inspectorSession.connect();
  await inspectorSession.post('Profiler.enable');
  await inspectorSession.post('Profiler.setSamplingInterval', { interval: 100 });
  await inspectorSession.post('Profiler.start');
  const result = await run(SECONDS);
  const { profile } = (await inspectorSession.post('Profiler.stop')) as unknown as {
    profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  };
  inspectorSession.disconnect();
  if (process.env.PROFILE_OUT) fs.writeFileSync(process.env.PROFILE_OUT, JSON.stringify(profile));
  console.log(`${LIST} @ ${PROTOCOLS}: ${result.rps} req/s, p99 ${result.p99} ms, non-2xx ${result.errors}`);

  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  for (const [id, us] of self) {
    const frame = byId.get(id)!.callFrame;
    const key = `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*\/(node_modules|apps)\//, '$1/')}:${frame.lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
    const pkg = packageOf(frame.url);
    const group = frame.url === '' ? frame.functionName || '(native)' : pkg;
    byPackage.set(group, (byPackage.get(group) ?? 0) + us);
  }
  const requests = result.rps * SECONDS;
  const line = (name: string, us: number) =>
    `${((us / total) * 100).toFixed(1).padStart(5)} %  ${(us / requests).toFixed(1).padStart(6)} us/req  ${name}`;
  console.log('\nself time by package (µs per request of main-thread time):');
  for (const [name, us] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(line(name, us));
  console.log('\nself time by function:');
  for (const [name, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(line(name, us));
  await portal.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
