import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { untilReady } from '../../apps/server/src/test/ready.js';
import { ROOT, SERVER_ENTRY, ensureBuilt } from './build.js';

export interface RunningPortal {
  baseUrl: string;
  dataDir: string;
  admin: { email: string; password: string };
  /** What the server printed, for failure messages. */
  output: () => string;
  stop: () => Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

/** Stops a child with `signal` (SIGTERM: gracefully), and with SIGKILL when it is still there after `graceMs`. */
export async function terminate(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill(signal);
  const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited(child);
  clearTimeout(killer);
}

/** A loaded machine (several test runs at once) has taken 90 s to start a portal. */
export const START_TIMEOUT_MS = 150_000;

/**
 * Starts the real server (`node apps/server/dist/main.js`) on a free 127.0.0.1 port with a fresh
 * SQLite data directory, and waits until /readyz answers.
 */
export async function startPortal(
  extraEnv: Record<string, string> = {},
  /** Another built checkout of the portal to run instead of this one (its server, from its folder). */
  root = ROOT,
): Promise<RunningPortal> {
  if (root === ROOT) ensureBuilt();
  const serverEntry = root === ROOT ? SERVER_ENTRY : path.join(root, 'apps/server/dist/main.js');
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-e2e-'));
  const admin = { email: 'admin@e2e.example.com', password: `Adm-${randomBytes(6).toString('hex')}` };
  const baseUrl = `http://127.0.0.1:${port}`;
  let log = '';
  const child = spawn(process.execPath, [serverEntry], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      JWT_SECRET: randomBytes(32).toString('hex'),
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
      DEMO_DATA: 'false',
      LOG_LEVEL: 'warn',
      OUTBOX_POLL_MS: '100',
      // `{port}` in a value stands for the port chosen here (e.g. PUBLIC_URL on localhost).
      ...Object.fromEntries(
        Object.entries(extraEnv).map(([key, value]) => [key, value.replaceAll('{port}', String(port))]),
      ),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));

  const stop = async () => {
    await terminate(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    await untilReady(child, baseUrl, () => log, START_TIMEOUT_MS);
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseUrl, dataDir, admin, output: () => log, stop };
}
