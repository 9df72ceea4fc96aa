import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { freePort } from './helpers.js';

/* The real server in its own process, for tests of what survives a kill. */

const SERVER_DIR = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Every server started here and still running. A test that times out while one is starting never
 * gets to kill it itself: what is left is killed after the test file, so no server outlives it
 * (vitest ends its workers without their exit handlers).
 */
const running = new Set<ChildProcess>();
afterAll(async () => {
  for (const child of running) await kill(child);
});

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
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited early:\n${output}`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 150));
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
