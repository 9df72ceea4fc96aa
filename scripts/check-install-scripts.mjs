// Every package of package-lock.json that has an install script is reviewed in the root
// package.json's `allowScripts` (true: it runs, false: it does not). npm 11 only warns about the
// others; npm 12 skips their scripts, which would leave better-sqlite3 without its native build.
import fs from 'node:fs';

const root = new URL('..', import.meta.url);
const manifest = JSON.parse(fs.readFileSync(new URL('package.json', root), 'utf8'));
const lock = JSON.parse(fs.readFileSync(new URL('package-lock.json', root), 'utf8'));
const reviewed = manifest.allowScripts ?? {};

const unreviewed = [];
const allowed = [];
for (const [where, entry] of Object.entries(lock.packages)) {
  // The workspaces' own scripts (paths outside node_modules) are the project's, not gated by npm.
  if (!where.includes('node_modules/') || !entry.hasInstallScript || entry.link) continue;
  const name = where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length);
  const verdict = reviewed[`${name}@${entry.version}`] ?? reviewed[name];
  if (verdict === undefined) unreviewed.push(`${name}@${entry.version}`);
  else if (verdict) allowed.push(name);
}
if (unreviewed.length > 0) {
  console.error(`Install scripts not reviewed in package.json's allowScripts:\n${unreviewed.join('\n')}`);
  process.exit(1);
}
console.log(`Install scripts reviewed; those that run: ${[...new Set(allowed)].join(', ')}.`);
