import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { freePort } from './helpers.js';
import { untilReady } from './ready.js';

/* The real server in its own process, for tests of what survives a kill. */

const SERVER_DIR = fileURLToPath(new URL('../..', import.meta.url));

/** Every server started here and still running, a server still starting included. */
const running = new Set<ChildProcess>();

/**
 * Kills every server this file's tests started and that still runs. A test file calls it first in
 * its own `afterAll`, before it drops the database those servers use; it also runs after the test
 * file, so a server whose test timed out while it was starting never outlives the file (vitest
 * ends its workers without their exit handlers).
 */
export async function killStartedServers(): Promise<void> {
  await Promise.all([...running].map((child) => kill(child)));
}
afterAll(killStartedServers);

/** The real server in its own process, as `npm start` runs it. */
export async function startServer(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const port = await freePort();
  const { DATABASE_URL: _ignored, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: SERVER_DIR,
    env: {
      ...inherited,
      JWT_SECRET: 'restart-test-secret-restart-test-secret-0123',
      LOG_LEVEL: 'warn',
      DEMO_DATA: 'false',
      ...env,
      HOST: '127.0.0.1',
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  // A server that never gets ready fails here with what it printed, rather than as a test timeout.
  try {
    await untilReady(child, url, () => output, 120_000);
  } catch (error) {
    await kill(child);
    throw error;
  }
  return { child, url, output: () => output };
}

export function kill(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
