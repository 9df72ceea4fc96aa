// Prints what each results screen downloads on a first visit: its chunk plus the chunks it
// imports, raw and gzip, from a built web app (argument, WEB_DIST, or apps/web/dist).
// Usage: node bench/web-bundle.mjs [dist-dir]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.resolve(process.argv[2] ?? process.env.WEB_DIST ?? path.join(here, '../apps/web/dist'));
const assets = path.join(dist, 'assets');
if (!fs.existsSync(assets)) {
  console.error(`no built app at ${dist}: run "npx vite build" in apps/web first`);
  process.exit(1);
}

const files = fs.readdirSync(assets).filter((f) => f.endsWith('.js'));
const source = new Map(files.map((f) => [f, fs.readFileSync(path.join(assets, f))]));

/** Static imports of a chunk (`from"./x.js"` and `import"./x.js"`), followed transitively. */
function closure(entry) {
  const seen = new Set();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop();
    if (seen.has(file) || !source.has(file)) continue;
    seen.add(file);
    const text = source.get(file).toString('utf8');
    for (const m of text.matchAll(/(?:from|import)\s*"\.\/([\w.-]+\.js)"/g)) queue.push(m[1]);
  }
  return seen;
}

const screens = [
  'patient-dashboard-page',
  'physician-dashboard-page',
  'external-dashboard-page',
  'unique-login-page',
  'protocol-detail-page',
];
const kb = (n) => `${(n / 1024).toFixed(1)} kB`;
console.log(`results screens in ${dist}`);
console.log('screen'.padEnd(28), 'chunks'.padStart(6), 'raw'.padStart(11), 'gzip'.padStart(11));
for (const screen of screens) {
  const entry = files.find((f) => f.startsWith(`${screen}-`));
  if (!entry) {
    console.log(screen.padEnd(28), 'not found');
    continue;
  }
  const chunks = [...closure(entry)];
  const raw = chunks.reduce((sum, f) => sum + source.get(f).length, 0);
  const gzip = chunks.reduce((sum, f) => sum + gzipSync(source.get(f)).length, 0);
  console.log(screen.padEnd(28), String(chunks.length).padStart(6), kb(raw).padStart(11), kb(gzip).padStart(11));
}
