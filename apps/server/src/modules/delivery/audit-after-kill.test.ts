import http from 'node:http';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseEnv, startTestPortal, TEST_DIALECT } from '../../test/helpers.js';
import { kill, killStartedServers, startServer } from '../../test/server-process.js';
import { makeInstitution, makeProtocol, makeResource, makeUser, pdfBytes } from './test-factories.js';

/*
 * Views are traced before they are answered: a real server process under load from many distinct
 * patients is killed with SIGKILL, and every protocol detail and report it answered 200 must have
 * its audit record (found by the request id the answer carried), and every report its read mark.
 * Just before the kill, another connection holds the database's write lock for a moment (a slow
 * disk, a long commit): a server that answered before its writes committed would answer then, and
 * lose those records with the kill.
 */

/** Takes the write lock of the database (SQLite) or of the audit table (PostgreSQL) until released. */
async function holdWrites(env: Record<string, string>): Promise<() => Promise<void>> {
  if (env.DATABASE_URL) {
    const client = new pg.Client({ connectionString: env.DATABASE_URL });
    await client.connect();
    await client.query('begin');
    await client.query('lock table audit_events in share row exclusive mode');
    return async () => {
      await client.query('rollback');
      await client.end();
    };
  }
  const connection = new SQLite(path.join(env.DATA_DIR!, 'portal.db'));
  connection.exec('begin immediate');
  return async () => {
    connection.exec('rollback');
    connection.close();
  };
}

const USERS = 40;
const JWT_SECRET = 'kill-test-secret-kill-test-secret-0123456789';

interface Answer {
  kind: 'detail' | 'report';
  status: number;
  requestId?: string;
  userId: string;
  examId: string;
}

/** GET over a keep-alive agent; resolves with the status as soon as the answer's head arrives. */
function get(agent: http.Agent, url: string, token: string): Promise<{ status: number; requestId?: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent, headers: { authorization: `Bearer ${token}` } }, (response) => {
      resolve({ status: response.statusCode ?? 0, requestId: response.headers['x-request-id'] as string | undefined });
      response.resume();
      response.on('error', () => {});
    });
    request.on('error', reject);
  });
}

describe(`every answered view is traced after a SIGKILL (${TEST_DIALECT})`, () => {
  let database: Awaited<ReturnType<typeof freshDatabaseEnv>> | undefined;
  const users: Array<{ userId: string; token: string; protocolId: string; resourceId: string; examId: string }> = [];

  beforeAll(async () => {
    database = await freshDatabaseEnv();
    const env = { ...database.env, JWT_SECRET };
    const setup = await startTestPortal({ reuse: { env } });
    try {
      const institution = await makeInstitution(setup.ctx);
      const report = await pdfBytes('report');
      for (let i = 0; i < USERS; i++) {
        const patient = await makeUser(setup.ctx, { type: 'PATIENT' });
        const { protocol, exams } = await makeProtocol(setup.ctx, {
          institutionId: institution.id,
          patientUserId: patient.id,
          exams: [{}, {}],
        });
        const resource = await makeResource(setup.ctx, { examId: exams[0]!.id, type: 'REPORT', bytes: report });
        await makeResource(setup.ctx, { examId: exams[1]!.id, type: 'REPORT', bytes: report });
        const token = await setup.sessionFor({
          role: 'PATIENT',
          userId: patient.id,
          username: patient.email,
          // The server process runs on the real clock.
          expiresAt: new Date(Date.now() + 3600_000),
        });
        users.push({
          userId: patient.id,
          token,
          protocolId: protocol.id,
          resourceId: resource.id,
          examId: exams[0]!.id,
        });
      }
    } finally {
      await setup.close();
    }
  }, 120_000);
  afterAll(async () => {
    await killStartedServers();
    await database?.drop();
  });

  it('finds the audit record of every detail and report answered 200, and the read mark of every report', async () => {
    const server = await startServer({ ...database!.env, JWT_SECRET });
    const agent = new http.Agent({ keepAlive: true, maxSockets: USERS });
    const answers: Answer[] = [];
    let failed = 0;
    let running = true;
    // Each patient opens her protocol, then her report, again and again, all at once.
    const loops = users.map(async (u) => {
      for (let n = 0; running; n++) {
        const kind = n % 2 === 0 ? 'detail' : 'report';
        const path =
          kind === 'detail'
            ? `/api/delivery/persistence/dashboard/protocol/byId?id=${u.protocolId}`
            : `/api/v2/delivery/resource/report?resourceId=${u.resourceId}`;
        try {
          const answer = await get(agent, `${server.url}${path}`, u.token);
          answers.push({ kind, ...answer, userId: u.userId, examId: u.examId });
        } catch {
          failed++;
          return;
        }
      }
    });
    // Killed while the calls are in flight, once each user has been answered a few times (however
    // long a loaded machine takes to get there, within the test's own time).
    while (answers.length < USERS * 6) await new Promise((r) => setTimeout(r, 20));
    const release = await holdWrites(database!.env);
    await new Promise((r) => setTimeout(r, 500));
    await kill(server.child);
    await release();
    running = false;
    await Promise.all(loops);
    agent.destroy();

    const answered = answers.filter((a) => a.status === 200);
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(answered.length).toBeGreaterThanOrEqual(USERS * 6);
    expect(failed).toBeGreaterThan(0);

    const reader = await startTestPortal({ reuse: { env: { ...database!.env, JWT_SECRET } } });
    try {
      const traced = await reader.ctx.db
        .selectFrom('auditEvents')
        .select(['requestId', 'event', 'systemUserId'])
        .where('event', 'in', ['VIEW_PROTOCOL', 'VIEW_REPORT'])
        .execute();
      const byRequest = new Map(traced.map((t) => [t.requestId, t]));
      const untraced = answered.filter((a) => {
        const t = byRequest.get(a.requestId ?? '');
        return !t || t.systemUserId !== a.userId || t.event !== (a.kind === 'detail' ? 'VIEW_PROTOCOL' : 'VIEW_REPORT');
      });
      expect(untraced).toEqual([]);
      const reads = await reader.ctx.db.selectFrom('examReads').select(['viewerKey', 'examId']).execute();
      const read = new Set(reads.map((r) => `${r.viewerKey}|${r.examId}`));
      const unmarked = answered.filter((a) => a.kind === 'report' && !read.has(`${a.userId}|${a.examId}`));
      expect(unmarked).toEqual([]);
    } finally {
      await reader.close();
    }
  }, 180_000);
});
