#!/usr/bin/env node
// `npm start`: builds whatever is missing or older than its sources, then runs the portal.
// Signals are passed to the server so SIGTERM stops it gracefully.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function newestMtime(dir) {
  let newest = 0;
  const walk = (d) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist') continue;
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else newest = Math.max(newest, fs.statSync(p).mtimeMs);
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return newest;
}

function needsBuild(srcDir, marker) {
  const markerPath = path.join(root, marker);
  if (!fs.existsSync(markerPath)) return true;
  return newestMtime(path.join(root, srcDir)) > fs.statSync(markerPath).mtimeMs;
}

function run(args) {
  const result = spawnSync('npm', args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

// Merged reports (batch prints, "show all") are made by the qpdf program.
const qpdf = spawnSync(process.env.QPDF_PATH ?? 'qpdf', ['--version'], { stdio: 'ignore' });
if (qpdf.status !== 0) {
  process.stderr.write(
    'The portal needs the qpdf program to merge reports and it was not found.\n' +
      'Install it (Debian/Ubuntu: sudo apt-get install qpdf; macOS: brew install qpdf) or set QPDF_PATH, then run npm start again.\n',
  );
  process.exit(1);
}

const shared = needsBuild('packages/shared/src', 'packages/shared/dist/limits.js');
const web = shared || needsBuild('apps/web/src', 'apps/web/dist/index.html');
const server = shared || needsBuild('apps/server/src', 'apps/server/dist/main.js');
if (shared) run(['run', 'build', '-w', '@portal/shared']);
if (web) run(['run', 'build', '-w', '@portal/web']);
if (server) run(['run', 'build', '-w', '@portal/server']);

const child = spawn(process.execPath, [path.join(root, 'apps/server/dist/main.js')], {
  cwd: root,
  stdio: 'inherit',
  env: process.env,
});
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
  process.on(signal, () => child.kill(signal));
}
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
