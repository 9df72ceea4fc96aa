import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const SERVER_DIR = fileURLToPath(new URL('..', import.meta.url));

/**
 * Records every package a module is resolved from, by a resolve hook writing it to stderr. In the
 * loading thread (`module.registerHooks`, Node 22.15 and later) where Node has it: there it sees
 * every resolution, also beside another in-thread hook (scripts/native-binding-hook.mjs, which
 * scripts/with-node.sh loads), where an off-thread hook (`module.register`) saw none of the
 * packages under Node 22. Node 20 has the off-thread kind only.
 */
const HOOK = `
const seen = (url) => {
  const name = /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(url)?.[1];
  if (name) process.stderr.write('package ' + name + '\\n');
};`;
const REGISTER = `
import module from 'node:module';
if (module.registerHooks) {
  ${HOOK}
  module.registerHooks({ resolve(specifier, context, next) { const found = next(specifier, context); seen(found.url); return found; } });
} else {
  module.register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(`${HOOK}
export async function resolve(specifier, context, next) { const found = await next(specifier, context); seen(found.url); return found; }`)}));
}`;

/** Libraries that only some calls use: a process loads them with its first such call (docs/decisions.md). */
const ON_FIRST_USE = [
  '@simplewebauthn/server',
  'pkijs',
  '@aws-sdk/client-s3',
  'pdf-lib',
  'dcmjs',
  'dcmjs-imaging',
  'dicom-parser',
  'qrcode',
  'pino-pretty',
];

describe('a portal process at its start', () => {
  it('has not loaded the libraries that only some calls need', async () => {
    const { stderr } = await promisify(execFile)(
      process.execPath,
      [
        '--import',
        `data:text/javascript,${encodeURIComponent(REGISTER)}`,
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        "await import('./src/server.ts');",
      ],
      { cwd: SERVER_DIR, maxBuffer: 16 * 1024 * 1024 },
    );
    const loaded = new Set([...stderr.matchAll(/^package (\S+)$/gm)].map((m) => m[1]));
    // The hook saw the server's own libraries load: it works.
    expect(loaded).toContain('fastify');
    expect(loaded).toContain('kysely');
    expect(ON_FIRST_USE.filter((name) => loaded.has(name))).toEqual([]);
  }, 60_000);
});
