/**
 * What the delivery benchmarks share: the generated clinics (kept by size and database, reused
 * until BENCH_FRESH=1), a portal opened on one, the reference route, and the load generator.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { loadConfig } from '../apps/server/src/config.js';
import { issueSession } from '../apps/server/src/plugins/auth.js';
import { createPortal } from '../apps/server/src/server.js';
import { BENCH_NOW, type Clinic, generateClinic } from './generate.js';

export const EXAMS = Number(process.env.BENCH_EXAMS ?? 5);
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
export const DIALECT = process.env.BENCH_DB === 'postgres' ? 'postgres' : 'sqlite';
const PG_ADMIN_URL = process.env.TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** Generated clinics are kept here by size and database, and reused until BENCH_FRESH=1. */
const CACHE_DIR = process.env.BENCH_CACHE ?? path.join(os.tmpdir(), 'portal-bench');
const JWT_SECRET = 'bench-secret-bench-secret-bench-secret-00';
const GENERATOR_VERSION = 4;

export const clock = { now: () => new Date(BENCH_NOW) };

/** The calls the benchmarks of opening results measure (a protocol's id or a resource's id follows). */
export const PATHS = {
  detail: '/api/delivery/persistence/dashboard/protocol/byId?id=',
  report: '/api/v2/delivery/resource/report?resourceId=',
  patientList: '/api/v2/delivery/dashboard/protocols',
  physicianList: '/api/delivery/persistence/protocols/physician',
} as const;

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** The configuration of a size's clinic: its own data directory and, on PostgreSQL, its own database. */
async function clinicConfig(protocolCount: number) {
  const name = `${DIALECT}-${protocolCount}x${EXAMS}-v${GENERATOR_VERSION}`;
  const dataDir = path.join(CACHE_DIR, name);
  const env: Record<string, string> = { DATA_DIR: dataDir, LOG_LEVEL: 'warn', JWT_SECRET };
  const marker = path.join(dataDir, 'clinic.json');
  const fresh = process.env.BENCH_FRESH === '1' || !fs.existsSync(marker);
  if (DIALECT === 'postgres') {
    const database = `portal_bench_${protocolCount}x${EXAMS}_v${GENERATOR_VERSION}`;
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    const exists = (await admin.query('select 1 from pg_database where datname = $1', [database])).rowCount === 1;
    if (fresh || !exists) {
      await admin.query(`drop database if exists ${database}`);
      await admin.query(`create database ${database}`);
    }
    await admin.end();
    const url = new URL(PG_ADMIN_URL);
    url.pathname = `/${database}`;
    env.DATABASE_URL = url.toString();
    if (!exists) fs.rmSync(marker, { force: true });
  }
  if (fresh) fs.rmSync(dataDir, { recursive: true, force: true });
  fs.mkdirSync(dataDir, { recursive: true });
  return { env, marker, dataDir };
}

/** A portal in this process on the clinic of `protocolCount` protocols, generated first when none is kept. */
export async function openClinic(protocolCount: number) {
  const { env, marker } = await clinicConfig(protocolCount);
  const config = loadConfig(env);
  const portal = await createPortal(config, { clock, outbox: false, logStream: fs.createWriteStream('/dev/null') });
  const { ctx } = portal;
  let clinic: Clinic;
  if (fs.existsSync(marker)) {
    clinic = JSON.parse(fs.readFileSync(marker, 'utf8')) as Clinic;
    console.log(`\n=== ${protocolCount} protocols x ${EXAMS} exams (generated earlier, ${config.dataDir})`);
  } else {
    const t0 = performance.now();
    clinic = await generateClinic(ctx, { protocols: protocolCount, examsPerProtocol: EXAMS }, (done) => {
      if (done % 100_000 === 0) process.stdout.write(`  ${done} protocols\n`);
    });
    if (ctx.database.sqlite) ctx.database.sqlite.exec('analyze');
    else await sql`vacuum analyze`.execute(ctx.db);
    fs.writeFileSync(marker, JSON.stringify(clinic));
    console.log(
      `\n=== ${protocolCount} protocols x ${EXAMS} exams generated in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
  }
  const token = async (role: 'PATIENT' | 'PHYSICIAN' | 'EXTERNAL' | 'GUEST', userId?: string, protocolIds?: string[]) =>
    (
      await issueSession(ctx, {
        role,
        userId: userId ?? null,
        username: 'bench',
        protocolIds,
        // Valid by the real clock as well: a separate server process on the same data runs on it.
        expiresAt: new Date(Date.now() + 6 * 3600_000),
      })
    ).accessToken;
  return { portal, ctx, clinic, env, config, token };
}

/** `Accept-Encoding` as Chromium sends it: the rows measured as a browser asks. */
export const BROWSER_ENCODINGS = 'gzip, deflate, br, zstd';

export const REFERENCE_SQL =
  'select * from protocols where patient_user_id = ? and disabled = 0 order by sort_at desc, id desc limit 10';
/** The same query for 50 rows: the size of an external user's page (spec: 50 a page). */
export const REFERENCE_50_SQL = REFERENCE_SQL.replace('limit 10', 'limit 50');

/**
 * The reference: a minimal Fastify route running one indexed 10-row query on the same database
 * through a prepared statement on SQLite. On PostgreSQL it is planned for its value on each call,
 * as the lists' pages are: the plan PostgreSQL keeps otherwise may sort the heavy patient's whole
 * range (docs/decisions.md).
 */
export async function startReference(
  ctx: Awaited<ReturnType<typeof openClinic>>['ctx'],
  clinic: Clinic,
): Promise<{ url: string; url50: string; close(): Promise<void> }> {
  const reference = Fastify();
  const reader = ctx.database.reader;
  reference.get('/reference', async () => reader.all(REFERENCE_SQL, [clinic.heavyPatientId], { planWithValues: true }));
  reference.get('/reference-50', async () =>
    reader.all(REFERENCE_50_SQL, [clinic.heavyPatientId], { planWithValues: true }),
  );
  const address = await reference.listen({ host: '127.0.0.1', port: 0 });
  return { url: `${address}/reference`, url50: `${address}/reference-50`, close: () => reference.close() };
}

/**
 * A bare Fastify route answering a file's bytes from memory, with the portal's file headers' type:
 * what sending the file alone costs the server and the load generator, with no session, read or trace.
 */
export async function startFileReference(bytes: Buffer): Promise<{ url: string; close(): Promise<void> }> {
  const reference = Fastify();
  reference.get('/file', async (_request, reply) => reply.header('content-type', 'application/pdf').send(bytes));
  const address = await reference.listen({ host: '127.0.0.1', port: 0 });
  return { url: `${address}/file`, close: () => reference.close() };
}

export interface LoadFigures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  bytes: number;
}

/** One call of a rotation: a path of the portal and the bearer token of the user asking. */
export interface Call {
  path: string;
  token: string;
}

const ROTATION_MODULE = path.join(path.dirname(new URL(import.meta.url).pathname), 'rotation.cjs');
const RAW_LOAD_MODULE = path.join(path.dirname(new URL(import.meta.url).pathname), 'raw-load.mjs');
/**
 * `BENCH_CLIENT=raw`: the load comes from bench/raw-load.mjs, a process of its own that skips each
 * answer's body unread, instead of autocannon in a thread (which decodes every body as UTF-8 text).
 */
export const CLIENT = process.env.BENCH_CLIENT === 'raw' ? 'raw' : 'autocannon';
const runFile = promisify(execFile);

/**
 * `CONNECTIONS` connections for `duration` seconds. With `rotation`, each request is the next call
 * of the list (every connection takes from the same list in turn), so consecutive requests come
 * from different users.
 */
export async function load(
  url: string,
  headers: Record<string, string>,
  duration = SECONDS,
  rotation?: readonly Call[],
): Promise<LoadFigures> {
  let rotationFile: string | undefined;
  if (rotation) {
    rotationFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'portal-rotation-')), 'calls.json');
    fs.writeFileSync(rotationFile, JSON.stringify(rotation));
    // The worker thread reads it from its copy of the environment, made when it starts.
    process.env.BENCH_ROTATION = rotationFile;
  }
  try {
    if (CLIENT === 'raw') {
      // bench/raw-load.mjs in a process of its own: answers read to their end, never decoded.
      const { stdout } = await runFile(process.execPath, [
        RAW_LOAD_MODULE,
        JSON.stringify({ url, connections: CONNECTIONS, seconds: duration, headers, rotationFile }),
      ]);
      const raw = JSON.parse(stdout) as { rps: number; p50: number; p99: number; non2xx: number; errors: number };
      return { rps: raw.rps, p50: raw.p50, p99: raw.p99, errors: raw.non2xx + raw.errors, bytes: 0 };
    }
    // The load generator runs in its own thread, so it does not share the server's event loop.
    const result = await autocannon({
      url,
      headers,
      connections: CONNECTIONS,
      duration,
      workers: 1,
      ...(rotation ? { requests: [{ method: 'GET', setupRequest: ROTATION_MODULE }] } : {}),
    });
    return {
      rps: Math.round(result.requests.average),
      p50: result.latency.p50,
      p99: result.latency.p99,
      errors: result.non2xx + result.errors,
      // Bytes on the wire per answer, headers included.
      bytes: result.requests.total > 0 ? Math.round(result.throughput.total / result.requests.total) : 0,
    };
  } finally {
    if (rotationFile) fs.rmSync(path.dirname(rotationFile), { recursive: true, force: true });
  }
}

/** Up to `count` physicians of the clinic (not the measured ones), by id: the rotations of physicians' lists. */
export async function physiciansOfClinic(
  ctx: Awaited<ReturnType<typeof openClinic>>['ctx'],
  clinic: Clinic,
  count: number,
): Promise<Array<{ id: string }>> {
  return ctx.db
    .selectFrom('users')
    .select('id')
    .where('type', '=', 'PHYSICIAN')
    .where('id', 'not in', [clinic.physicianId, clinic.heavyPhysicianId])
    .orderBy('id')
    .limit(count)
    .execute();
}

/**
 * Up to `count` patients of the clinic (not the measured ones), each with one protocol picked
 * evenly over the clinic by number and that protocol's first report: one protocol per distinct
 * patient, for the rotations of details and reports.
 */
export async function patientsOfClinic(
  ctx: Awaited<ReturnType<typeof openClinic>>['ctx'],
  clinic: Clinic,
  protocolCount: number,
  count: number,
): Promise<Array<{ protocolId: string; userId: string; resourceId: string }>> {
  const step = Math.max(1, Math.floor(protocolCount / (count * 2)));
  const numbers = Array.from({ length: count * 2 }, (_, i) => `B${String(3 + i * step).padStart(8, '0')}`).filter(
    (n) => Number(n.slice(1)) < protocolCount,
  );
  const picked = await ctx.db
    .selectFrom('protocols as p')
    .innerJoin('exams as e', 'e.protocolId', 'p.id')
    .innerJoin('resources as r', 'r.examId', 'e.id')
    .select(['p.id as protocolId', 'p.patientUserId as userId', 'r.id as resourceId'])
    .where('p.number', 'in', numbers)
    .where('e.position', '=', 0)
    .where('r.type', '=', 'REPORT')
    .where('p.patientUserId', 'not in', [clinic.patientId, clinic.heavyPatientId])
    .execute();
  const byPatient = new Map<string, { protocolId: string; userId: string; resourceId: string }>();
  for (const p of picked) if (p.userId && !byPatient.has(p.userId)) byPatient.set(p.userId, { ...p, userId: p.userId });
  return [...byPatient.values()].slice(0, count);
}
