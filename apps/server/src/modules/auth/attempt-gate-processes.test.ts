import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseEnv, startTestPortal, TEST_DIALECT } from '../../test/helpers.js';
import { type HttpAnswer, type HttpCall, httpBurst, httpCall } from '../../test/http-client.js';
import { killStartedServers, startServer as startServerProcess } from '../../test/server-process.js';
import { createAccount, createInstitution, createProtocol } from './auth.test-support.js';

/*
 * Two real server processes on one database (PostgreSQL, or one SQLite file), as behind a load
 * balancer: guesses split between them are claimed against the same counters.
 */

const login = (userName: string, password: string): HttpCall => ({
  path: '/api/v2/auth/login',
  body: { userName, password, appKey: 'login', dateOfBirth: '', tokenMFA: '' },
});

describe(`two server processes on one ${TEST_DIALECT} database share the attempt gate`, () => {
  let servers: string[] = [];
  let database: Awaited<ReturnType<typeof freshDatabaseEnv>> | undefined;

  beforeAll(async () => {
    database = await freshDatabaseEnv();
    const setup = await startTestPortal({ reuse: { env: database.env } });
    try {
      const lab = await createInstitution(setup.ctx, 'TWO');
      await createProtocol(setup.ctx, { institutionId: lab, number: 'TWO-1', password: 'proto-right' });
      await createAccount(setup.ctx, {
        type: 'PATIENT',
        email: 'two@mail.test',
        password: 'Acct#Right1',
        cpf: '111.444.777-35',
      });
    } finally {
      await setup.close();
    }
    const env = { ...database.env, HASH_CONCURRENCY: '1' };
    for (let i = 0; i < 2; i++) {
      const server = await startServerProcess(env);
      servers.push(server.url);
    }
  }, 120_000);
  afterAll(async () => {
    await killStartedServers();
    servers = [];
    await database?.drop();
  });

  /** 40 guesses, half to each process, all sent at once. */
  async function splitBurst(guess: (i: number) => HttpCall): Promise<HttpAnswer[]> {
    const calls = Array.from({ length: 40 }, (_, i) => guess(i));
    const halves = await Promise.all(
      servers.map((url, s) =>
        httpBurst(
          url,
          calls.filter((_, i) => i % servers.length === s),
        ),
      ),
    );
    return halves.flat();
  }

  async function failedSignIns(): Promise<number> {
    const reader = await startTestPortal({ reuse: { env: database!.env } });
    try {
      const row = await reader.ctx.db
        .selectFrom('auditEvents')
        .select(({ fn }) => fn.countAll<number>().as('n'))
        .where('event', '=', 'LOGIN_FAILED')
        .executeTakeFirstOrThrow();
      return Number(row.n);
    } finally {
      await reader.close();
    }
  }

  it('a protocol number: five guesses checked in all, then the right password refused by both, at every door', async () => {
    const answers = await splitBurst((i) => login('TWO-1', `guess-${i}`));
    const checked = answers.filter((a) => a.status !== 429);
    expect(checked).toHaveLength(5);
    for (const answer of checked) expect(answer.status).toBe(401);
    // The lock runs on the servers' real clock (60 s): the doors are tried first, the trail after.
    for (const url of servers) {
      const right = await httpCall(url, login('TWO-1', 'proto-right'));
      expect(right.status).toBe(429);
      expect(right.retryAfter).toBeGreaterThan(0);
      const valid = await httpCall(url, { path: '/api/v2/auth/isValidProtocol?protocol=TWO-1&password=proto-right' });
      expect(valid.status).toBe(429);
    }
    expect(await failedSignIns()).toBe(5);
  });

  it('an account: e-mail guesses on one process and CPF guesses on the other add up', async () => {
    const before = await failedSignIns();
    const answers = await splitBurst((i) => login(i % 2 === 0 ? 'two@mail.test' : '111.444.777-35', `guess-${i}`));
    const checked = answers.filter((a) => a.status !== 429);
    expect(checked).toHaveLength(5);
    for (const answer of checked) expect(answer.status).toBe(401);
    for (const url of servers) {
      expect((await httpCall(url, login('two@mail.test', 'Acct#Right1'))).status).toBe(429);
      expect((await httpCall(url, login('111.444.777-35', 'Acct#Right1'))).status).toBe(429);
    }
    expect((await failedSignIns()) - before).toBe(5);
  });
});
