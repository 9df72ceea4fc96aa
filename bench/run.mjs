// Runs the TypeScript benchmarks with tsx (no build needed).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const result = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', path.join(here, 'delivery.bench.ts')], {
  stdio: 'inherit',
  env: process.env,
});
process.exit(result.status ?? 1);
