import type { AppContext } from '../../context.js';
import type { UserType } from '../../db/schema.js';
import { newId, sha256Hex } from '../../lib/ids.js';
import { hashPassword } from '../../lib/passwords.js';

/** Factories for account and share tests: each inserts exactly the rows a test asks for. */
let seq = 0;
const next = () => ++seq;

export async function makeInstitution(
  ctx: AppContext,
  input: { code?: string; name?: string; settings?: Record<string, unknown>; apiKey?: string } = {},
) {
  const n = next();
  const now = ctx.clock.now().toISOString();
  const row = {
    id: newId(),
    code: input.code ?? `ACC${n}${newId().slice(0, 4).toUpperCase()}`,
    name: input.name ?? `Clinic ${n}`,
    token: `tok-${newId()}`,
    apiKeyHash: sha256Hex(input.apiKey ?? `key-${newId()}`),
    viewType: 1,
    logoPath: '/logos/clinic.png',
    supportEmail: 'support@clinic.test',
    supportPhoneNumber: '1133334444',
    supportWhatsappNumber: '11987654321',
    settings: JSON.stringify(input.settings ?? {}),
    createdAt: now,
    updatedAt: now,
  };
  await ctx.db.insertInto('institutions').values(row).execute();
  return row;
}

export async function makeProtocol(
  ctx: AppContext,
  input: {
    institutionId: string;
    number?: string;
    password?: string;
    patientUserId?: string | null;
    disabled?: boolean;
    tagId?: string | null;
  },
) {
  const now = ctx.clock.now().toISOString();
  const row = {
    id: newId(),
    institutionId: input.institutionId,
    number: input.number ?? `P${next()}${Date.now() % 100000}`,
    passwordHash: await hashPassword(input.password ?? 'proto-pass'),
    requestedAt: now,
    sortAt: now,
    tagId: input.tagId ?? null,
    patientExternalId: `ext-${next()}`,
    patientName: 'Maria da Silva',
    patientNameSearch: 'maria da silva',
    patientBirthDate: '1980-05-17',
    patientGender: 'FEMALE',
    patientEmail: null,
    patientPhone: null,
    patientCpf: null,
    patientMotherName: null,
    patientUserId: input.patientUserId ?? null,
    disabled: input.disabled ? 1 : 0,
    createdAt: now,
    updatedAt: now,
  };
  await ctx.db.insertInto('protocols').values(row).execute();
  return row;
}

export async function makeUser(
  ctx: AppContext,
  input: {
    type?: UserType;
    email?: string;
    password?: string | null;
    name?: string;
    active?: boolean;
    institutionId?: string | null;
    cpf?: string | null;
    licenseNumber?: string | null;
    licenseState?: string | null;
  } = {},
) {
  const now = ctx.clock.now().toISOString();
  const row = {
    id: newId(),
    type: input.type ?? 'PATIENT',
    email: input.email ?? `user${next()}-${newId().slice(0, 6)}@mail.test`,
    passwordHash: input.password === null ? null : await hashPassword(input.password ?? 'Pa55word!x'),
    name: input.name ?? 'Joana Souza',
    active: input.active === false ? 0 : 1,
    disabled: 0,
    mfaEnabled: 0,
    frequencyReceiveEmail: 'DEFAULT',
    language: 'pt-br',
    cpf: input.cpf ?? null,
    licenseNumber: input.licenseNumber ?? null,
    licenseState: input.licenseState ?? null,
    institutionId: input.institutionId ?? null,
    createdAt: now,
    updatedAt: now,
  };
  await ctx.db.insertInto('users').values(row).execute();
  return row;
}

/** The mails queued for an address, oldest first, with their plain text. */
export async function mailsTo(ctx: AppContext, to: string) {
  const rows = await ctx.db
    .selectFrom('outbox')
    .selectAll()
    .where('channel', '=', 'EMAIL')
    .where('recipient', '=', to)
    .orderBy('createdAt')
    .execute();
  return rows.map((row) => {
    const payload = JSON.parse(row.payload) as { text?: string };
    return { ...row, text: payload.text ?? row.payload };
  });
}

/** The link a mail carries: the line that starts with PUBLIC_URL (contract 4). */
export function linkIn(text: string, publicUrl: string): string {
  const line = text.split(/\r?\n/).find((l) => l.trim().startsWith(publicUrl));
  if (!line) throw new Error(`no link in mail: ${text}`);
  return line.trim();
}

/** The links of every mail to an address, oldest first. */
export async function linksTo(ctx: AppContext, to: string): Promise<URL[]> {
  return (await mailsTo(ctx, to)).map((mail) => new URL(linkIn(mail.text, ctx.config.publicUrl)));
}

/** The last link mailed to an address. */
export async function lastLinkTo(ctx: AppContext, to: string): Promise<URL> {
  const last = (await linksTo(ctx, to)).at(-1);
  if (!last) throw new Error(`no mail to ${to}`);
  return last;
}
