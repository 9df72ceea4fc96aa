import { PasskeyMessage } from '@portal/shared/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseEnv, startTestPortal, TEST_DIALECT } from '../../test/helpers.js';
import { type HttpAnswer, httpBurst, httpCall } from '../../test/http-client.js';
import { killStartedServers, startServer as startServerProcess } from '../../test/server-process.js';
import { createAccount } from './auth.test-support.js';
import { SoftAuthenticator } from './soft-authenticator.test-support.js';

/*
 * Two real server processes on one database, as behind a load balancer: a passkey challenge
 * handed out by one is answered on the other, and one challenge answered 32 times at once, half
 * on each process, signs in exactly once.
 */

const PUBLIC_URL = 'https://resultados.example.test';

describe(`passkey challenges shared by two server processes on one ${TEST_DIALECT} database`, () => {
  let servers: string[] = [];
  let database: Awaited<ReturnType<typeof freshDatabaseEnv>> | undefined;
  const device = new SoftAuthenticator(PUBLIC_URL, 'resultados.example.test');

  beforeAll(async () => {
    database = await freshDatabaseEnv();
    const setup = await startTestPortal({ reuse: { env: database.env } });
    try {
      await createAccount(setup.ctx, { type: 'PATIENT', email: 'two@mail.test', password: 'Acct#Right1' });
    } finally {
      await setup.close();
    }
    const env = { ...database.env, PUBLIC_URL, HASH_CONCURRENCY: '1' };
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

  const data = <T>(answer: HttpAnswer) => (answer.body as { data: T }).data;
  interface Challenge {
    challengeId: string;
    options: { challenge: string; rp: { id?: string }; user: { id: string } };
  }

  it('registers on one process and signs in on the other; 32 answers to one challenge sign in once', async () => {
    const [a, b] = servers as [string, string];
    const login = await httpCall(a, {
      path: '/api/v2/auth/login',
      body: { userName: 'two@mail.test', password: 'Acct#Right1', appKey: 'login' },
    });
    const token = data<{ accessToken: string }>(login).accessToken;
    const creation = data<Challenge>(
      await httpCall(a, { path: '/api/v2/auth/passkeys/registrationOptions', token, body: {} }),
    );
    const registered = await httpCall(b, {
      path: '/api/v2/auth/passkeys',
      token,
      body: { challengeId: creation.challengeId, credential: device.register(creation.options), name: 'Celular' },
    });
    expect(registered.status).toBe(200);

    const request = data<Challenge>(await httpCall(b, { path: '/api/v2/auth/passkeys/signInOptions', body: {} }));
    const call = {
      path: '/api/v2/auth/passkeys/signIn',
      body: { challengeId: request.challengeId, credential: device.assert(request.options) },
    };
    const answers = (
      await Promise.all(
        servers.map((url) =>
          httpBurst(
            url,
            Array.from({ length: 16 }, () => call),
          ),
        ),
      )
    ).flat();
    expect(answers).toHaveLength(32);
    expect(answers.filter((x) => x.status === 200)).toHaveLength(1);
    for (const refused of answers.filter((x) => x.status !== 200)) {
      expect(refused.status).toBe(401);
      expect(refused.message).toBe(PasskeyMessage.challengeInvalid);
    }
    const reader = await startTestPortal({ reuse: { env: database!.env } });
    try {
      const sessions = await reader.ctx.db.selectFrom('sessions').select('id').execute();
      // One from the password, one from the passkey.
      expect(sessions).toHaveLength(2);
    } finally {
      await reader.close();
    }
  });
});
