import { ServerMessage } from '@portal/shared/errors';
import type { AppContext } from '../../context.js';
import { notFound } from '../../lib/errors.js';
import { findInstitutionByCode, findInstitutionById, type InstitutionRow } from './accounts.repository.js';

/** What anyone may see of an institution: its branded login page (spec 2.4, 3). Never its API key. */
function page(row: InstitutionRow) {
  return {
    name: row.name,
    logoPath: row.logoPath,
    viewType: row.viewType,
    supportEmail: row.supportEmail,
    supportPhoneNumber: row.supportPhoneNumber,
    supportWhatsAppNumber: row.supportWhatsappNumber,
  };
}

export async function customLoginPage(ctx: AppContext, code: string) {
  const row = await findInstitutionByCode(ctx.db, code.trim().toUpperCase());
  if (!row) throw notFound(ServerMessage.institutionNotFound);
  return page(row);
}

export async function publicInstitution(ctx: AppContext, id: string) {
  const row = await findInstitutionById(ctx.db, id);
  if (!row) throw notFound(ServerMessage.institutionNotFound);
  return { id: row.id, code: row.code, token: row.token, ...page(row) };
}

export function institutionSettings(row: Pick<InstitutionRow, 'settings'>): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(row.settings);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/*
 * Settings that anyone may read, with the defaults of an institution that never set them. Others
 * (the SMART connection's secret among them) never leave the server: they answer 404 here.
 */
const PUBLIC_SETTINGS: Record<string, unknown> = {
  shareEnabled: true,
  createAccountDefaultDisabled: false,
  emailFrequencyDefault: 'EXAM',
  hasExamStatusVisualizer: false,
};

export async function institutionSetting(ctx: AppContext, id: string, name: string) {
  const row = await findInstitutionById(ctx.db, id);
  if (!row || !Object.hasOwn(PUBLIC_SETTINGS, name))
    throw notFound(row ? ServerMessage.notFound : ServerMessage.institutionNotFound);
  const value = institutionSettings(row)[name];
  const fallback = PUBLIC_SETTINGS[name];
  return value !== undefined && typeof value === typeof fallback ? value : fallback;
}
