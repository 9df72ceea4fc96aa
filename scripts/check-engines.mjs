// Every runtime dependency (package-lock.json, dev-only packages left out) must accept every Node
// version the portal supports, so that `npm ci` prints no engine warning for them: the lowest
// version of each range of the root package.json's `engines.node` (20.19, 22.12, 24.0) and the
// newest of each line CI runs (scripts/with-node.sh). A dependency that drops one fails here.
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const semver = require('semver');
const root = new URL('..', import.meta.url);
const manifest = JSON.parse(fs.readFileSync(new URL('package.json', root), 'utf8'));
const lock = JSON.parse(fs.readFileSync(new URL('package-lock.json', root), 'utf8'));

const supported = manifest.engines.node.split('||').map((range) => semver.minVersion(range.trim()).version);
const pinned = fs.readFileSync(new URL('scripts/with-node.sh', root), 'utf8').matchAll(/version=(\d+\.\d+\.\d+)/g);
const versions = [...new Set([...supported, process.versions.node, ...[...pinned].map((m) => m[1])])];

const refused = [];
let checked = 0;
for (const [where, entry] of Object.entries(lock.packages)) {
  if (!where || entry.dev || entry.link) continue;
  checked += 1;
  const range = entry.engines?.node;
  if (!range) continue;
  for (const version of versions) {
    if (!semver.satisfies(version, range))
      refused.push(`${where}@${entry.version} wants node ${range}: not ${version}`);
  }
}
if (refused.length > 0) {
  console.error(`Runtime dependencies that refuse a supported Node version:\n${refused.join('\n')}`);
  process.exit(1);
}
console.log(`${checked} runtime packages accept Node ${versions.join(', ')}.`);
