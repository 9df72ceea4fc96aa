import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { zInstitutionCreate } from '@portal/shared/schemas/institution';
import { ConfigError, loadConfig } from './config.js';
import { backupSqlite } from './db/backup.js';
import { openDatabase, type DatabaseHandle } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { systemClock } from './lib/clock.js';
import { AppError } from './lib/errors.js';
import {
  createInstitution,
  listInstitutions,
  rotateInstitutionApiKeyByCode,
  type Institution,
} from './modules/institutions/institution.service.js';

const USAGE = `Usage: portal <command> [options]

Commands:
  migrate                                   bring the database schema up to date
  institution create --code X --name "Y"    open an institution and print its API key once
      [--view-type 1|2] [--support-email E] [--support-phone P] [--support-whatsapp W]
  institution rotate-key --code X           issue a new API key (the old one stops working)
  institution list                          list the institutions
  backup --out FILE                         copy the SQLite database while the portal runs
                                            (PostgreSQL: use pg_dump, see docs/operations.md)
  openapi                                   print the OpenAPI document of this version (JSON)

Configuration comes from the environment, as for the server (DATA_DIR, DATABASE_URL, ...).`;

/** Exit codes: 0 done, 1 refused or failed, 2 wrong usage, 78 wrong configuration. */
class UsageError extends Error {}

const OPTIONS = {
  code: { type: 'string' },
  name: { type: 'string' },
  'view-type': { type: 'string' },
  'support-email': { type: 'string' },
  'support-phone': { type: 'string' },
  'support-whatsapp': { type: 'string' },
  out: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function print(line = ''): void {
  process.stdout.write(`${line}\n`);
}

function printInstitution(institution: Institution, apiKey?: string): void {
  print(`id: ${institution.id}`);
  print(`code: ${institution.code}`);
  print(`name: ${institution.name}`);
  print(`token: ${institution.token}`);
  if (apiKey) {
    print(`apiKey: ${apiKey}`);
    print();
    print('Keep the API key now: it is shown only once (only its hash is stored).');
  }
}

/**
 * The server's configuration. `npm run portal` runs this inside apps/server, while `npm start`
 * runs the server from where npm was called: a relative DATA_DIR is taken from there (INIT_CWD),
 * so both reach the same database.
 */
function cliConfig() {
  const base = process.env.INIT_CWD ?? process.cwd();
  return loadConfig({ ...process.env, DATA_DIR: path.resolve(base, process.env.DATA_DIR || './data') });
}

async function withDatabase<T>(run: (handle: DatabaseHandle) => Promise<T>): Promise<T> {
  const config = cliConfig();
  const handle = openDatabase(config.database);
  try {
    await migrateToLatest(handle);
    return await run(handle);
  } finally {
    await handle.close();
  }
}

async function institutionCreate(values: Values): Promise<void> {
  const viewType = values['view-type'];
  const parsed = zInstitutionCreate.safeParse({
    code: values.code,
    name: values.name,
    viewType: viewType === undefined ? undefined : Number(viewType),
    supportEmail: values['support-email'],
    supportPhoneNumber: values['support-phone'],
    supportWhatsAppNumber: values['support-whatsapp'],
  });
  if (!parsed.success) {
    const flag: Record<string, string> = {
      viewType: 'view-type',
      supportEmail: 'support-email',
      supportPhoneNumber: 'support-phone',
      supportWhatsAppNumber: 'support-whatsapp',
    };
    const lines = parsed.error.issues.map((i) => {
      const field = String(i.path[0] ?? '');
      return `  --${flag[field] ?? field}: ${i.message}`;
    });
    throw new UsageError(`Invalid options:\n${lines.join('\n')}`);
  }
  await withDatabase(async ({ db }) => {
    const { institution, apiKey } = await createInstitution({ db, clock: systemClock }, parsed.data);
    print('Institution created.');
    printInstitution(institution, apiKey);
  });
}

async function institutionRotateKey(values: Values): Promise<void> {
  if (!values.code) throw new UsageError('institution rotate-key needs --code');
  const code = values.code;
  await withDatabase(async ({ db }) => {
    const { institution, apiKey } = await rotateInstitutionApiKeyByCode({ db, clock: systemClock }, code);
    print('API key rotated: the previous key no longer works.');
    printInstitution(institution, apiKey);
  });
}

async function institutionList(): Promise<void> {
  await withDatabase(async ({ db }) => {
    const institutions = await listInstitutions({ db });
    if (institutions.length === 0) {
      print('No institutions yet.');
      return;
    }
    print(['code', 'name', 'viewType', 'id', 'createdAt'].join('\t'));
    for (const i of institutions) print([i.code, i.name, i.viewType, i.id, i.createdAt].join('\t'));
  });
}

/** `portal backup --out FILE`: an online copy of the SQLite database (docs/operations.md). */
async function backup(values: Values): Promise<void> {
  if (!values.out) throw new UsageError('backup needs --out FILE');
  const config = cliConfig();
  if (config.database.dialect !== 'sqlite') {
    throw new UsageError(
      'backup copies the SQLite database; with DATABASE_URL (PostgreSQL) use pg_dump --format=custom (docs/operations.md)',
    );
  }
  const base = process.env.INIT_CWD ?? process.cwd();
  const started = Date.now();
  const result = await backupSqlite(config.database.file, path.resolve(base, values.out));
  print(`Backup written: ${result.file}`);
  print(`${result.bytes} bytes, ${result.pages} pages, integrity ok, ${Date.now() - started} ms`);
  print('Copy the result files too (DATA_DIR/files, or the S3 bucket) and keep JWT_SECRET or DATA_DIR/jwt-secret.');
}

/**
 * The OpenAPI document, as GET /api/docs/openapi.json answers it, from a portal on a throwaway
 * SQLite file: it never touches the configured database (CI lints it before any server runs).
 */
async function openapiDocument(): Promise<void> {
  // Loaded here only: the whole server is a lot to load for the other commands.
  const { createPortal } = await import('./server.js');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-openapi-'));
  try {
    const config = loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' });
    const portal = await createPortal(config, { outbox: false });
    try {
      await portal.app.ready();
      print(JSON.stringify(portal.app.swagger(), null, 2));
    } finally {
      await portal.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function runCli(argv: string[]): Promise<number> {
  try {
    const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
    const command = positionals.join(' ');
    if (values.help || command === '' || command === 'help') {
      print(USAGE);
      return values.help || command === 'help' ? 0 : 2;
    }
    switch (command) {
      case 'migrate':
        await withDatabase(async (handle) => print(`Database schema is up to date (${handle.dialect}).`));
        return 0;
      case 'institution create':
        await institutionCreate(values);
        return 0;
      case 'institution rotate-key':
        await institutionRotateKey(values);
        return 0;
      case 'institution list':
        await institutionList();
        return 0;
      case 'backup':
        await backup(values);
        return 0;
      case 'openapi':
        await openapiDocument();
        return 0;
      default:
        throw new UsageError(`Unknown command: ${command}`);
    }
  } catch (error) {
    if (error instanceof UsageError || (error instanceof TypeError && 'code' in error)) {
      // parseArgs reports unknown or malformed flags as TypeErrors with an ERR_PARSE_ARGS code.
      process.stderr.write(`${error.message}\n\n${USAGE}\n`);
      return 2;
    }
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      return 78;
    }
    if (error instanceof AppError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    process.stderr.write(`Failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

process.exitCode = await runCli(process.argv.slice(2));
