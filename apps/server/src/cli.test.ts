import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from './lib/ids.js';
import { freshDatabaseEnv, startTestPortal } from './test/helpers.js';

const SERVER_DIR = fileURLToPath(new URL('..', import.meta.url));

describe('operator command line', () => {
  let env: Record<string, string>;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ env, drop } = await freshDatabaseEnv());
  });
  afterAll(async () => drop?.());

  function portal(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const { DATABASE_URL: _ignored, ...inherited } = process.env;
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
      cwd: SERVER_DIR,
      env: { ...inherited, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  }
  const field = (text: string, name: string) => new RegExp(`^${name}: (.+)$`, 'm').exec(text)?.[1];

  it('migrates, creates an institution with a working key, lists, rotates, and refuses bad input', async () => {
    const migrate = await portal('migrate');
    expect(migrate.code).toBe(0);

    const created = await portal(
      'institution',
      'create',
      '--code',
      'cli1',
      '--name',
      'Clinica CLI',
      '--view-type',
      '1',
    );
    expect(created.code).toBe(0);
    expect(field(created.stdout, 'code')).toBe('CLI1');
    const apiKey = field(created.stdout, 'apiKey')!;
    expect(apiKey).toMatch(/^[\w-]{43}$/);
    expect(field(created.stdout, 'token')).toBeTruthy();

    const list = await portal('institution', 'list');
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('CLI1\tClinica CLI\t1');
    expect(list.stdout).not.toContain(apiKey);

    const duplicate = await portal('institution', 'create', '--code', 'CLI1', '--name', 'Again');
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toContain('The institution code is already in use!');
    const noName = await portal('institution', 'create', '--code', 'CLI2');
    expect(noName.code).toBe(2);
    expect(noName.stderr).toContain('--name');

    const rotated = await portal('institution', 'rotate-key', '--code', 'cli1');
    expect(rotated.code).toBe(0);
    const newKey = field(rotated.stdout, 'apiKey')!;
    expect(newKey).not.toBe(apiKey);

    const check = await startTestPortal({ reuse: { env } });
    try {
      const row = await check.ctx.db.selectFrom('institutions').selectAll().executeTakeFirstOrThrow();
      expect(row.apiKeyHash).toBe(sha256Hex(newKey));
      const res = await check.app.inject({
        method: 'PUT',
        url: '/api/v2/delivery/ingest/protocols/C-1',
        payload: {
          password: 'x',
          patient: { patientId: '1', name: 'A', birthDate: '1990-01-01', gender: 'F' },
          exams: [],
        },
        headers: { 'x-api-key': newKey },
      });
      expect(res.statusCode).toBe(201);
    } finally {
      await check.close();
    }
    // Eight commands, each a process that compiles the CLI with tsx: seconds each on a busy machine.
  }, 180_000);
});
