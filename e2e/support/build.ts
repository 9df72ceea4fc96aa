import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SERVER_ENTRY = path.join(ROOT, 'apps/server/dist/main.js');
export const WEB_INDEX = path.join(ROOT, 'apps/web/dist/index.html');

/**
 * Journeys run against the built app and server. A missing build is made with the root
 * `npm run build` (no question asked); an existing one is used as it is, so run
 * `npm run build` yourself after changing sources (`npm run test:e2e` does).
 */
export function ensureBuilt(): void {
  if (fs.existsSync(SERVER_ENTRY) && fs.existsSync(WEB_INDEX)) return;
  // Vitest sets NODE_ENV=test, which would make Vite bundle React's development build.
  const env = { ...process.env, NODE_ENV: 'production' };
  const result = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit', env });
  if (result.status !== 0) throw new Error(`npm run build failed with status ${result.status}`);
  if (!fs.existsSync(SERVER_ENTRY) || !fs.existsSync(WEB_INDEX)) {
    throw new Error(`the build did not produce ${SERVER_ENTRY} and ${WEB_INDEX}`);
  }
}

/** Journeys that need only the server (no browser): its build, made as `ensureBuilt` does when missing. */
export function ensureServerBuilt(): void {
  if (!fs.existsSync(SERVER_ENTRY)) ensureBuilt();
}
