import { randomBytes } from 'node:crypto';
import { ServerMessage } from '@portal/shared/errors';
import type {
  InstitutionCreate,
  InstitutionSettingsInput,
  InstitutionUpdate,
  InstitutionView,
  ProtocolNotice,
  VisualizerSetting,
} from '@portal/shared/schemas/institution';
import type { AppContext } from '../../context.js';
import { type Db, isUniqueViolation } from '../../db/database.js';
import { AppError, conflict, forbidden, notFound } from '../../lib/errors.js';
import { newId, newSecretToken, sha256Hex } from '../../lib/ids.js';
import { recordAudit } from '../../plugins/audit.js';
import {
  canChangeInstitutionCode,
  canCreateInstitution,
  canManageInstitution,
  type InstitutionActor,
} from './institution.policy.js';
import {
  findHl7FacilitiesOfOthers,
  findInstitutionRowByApiKeyHash,
  findInstitutionRowByHl7Facility,
  findInstitutionRowByCode,
  findInstitutionRowById,
  insertInstitutionRow,
  listHl7FacilityRows,
  listInstitutionRows,
  listVisualizerSettingRows,
  replaceHl7FacilityRows,
  replaceVisualizerSettingRows,
  updateInstitutionRow,
  type InstitutionRow,
} from './institution.repository.js';

/** What these functions need: callable from routes, the operator CLI and the demo loader alike. */
export type InstitutionDeps = Pick<AppContext, 'db' | 'clock'>;

export type EmailFrequencyDefault = 'EXAM' | 'DAY' | 'WEEK' | 'DISABLED';

/** An institution's settings with every default applied (the smart secret included: server use only). */
export interface InstitutionSettings {
  shareEnabled: boolean;
  createAccountDefaultDisabled: boolean;
  /** Ingest invites a patient without an account by itself (AUTO_INVITE), once per patient. */
  autoInvitePatients: boolean;
  emailFrequencyDefault: EmailFrequencyDefault;
  hasExamStatusVisualizer: boolean;
  /** "Who saw my results" names staff to patients; otherwise only "the clinic's staff". */
  accessLogStaffNames: boolean;
  smart: { url: string; secret: string } | null;
  protocolNotice: ProtocolNotice | null;
}

export interface Institution {
  id: string;
  code: string;
  name: string;
  token: string;
  viewType: number;
  logoPath: string | null;
  supportEmail: string | null;
  supportPhoneNumber: string | null;
  supportWhatsAppNumber: string | null;
  settings: InstitutionSettings;
  createdAt: string;
  updatedAt: string;
}

export const DEFAULT_INSTITUTION_SETTINGS: InstitutionSettings = {
  shareEnabled: true,
  createAccountDefaultDisabled: false,
  autoInvitePatients: false,
  emailFrequencyDefault: 'EXAM',
  hasExamStatusVisualizer: false,
  accessLogStaffNames: false,
  smart: null,
  protocolNotice: null,
};

const FREQUENCIES: readonly string[] = ['EXAM', 'DAY', 'WEEK', 'DISABLED'];

/** A stored notice counts only with its pt-br text; a language of the wrong type is left out. */
function parseProtocolNotice(value: unknown): ProtocolNotice | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const raw = value as Record<string, unknown>;
  if (typeof raw['pt-br'] !== 'string') return null;
  return {
    'pt-br': raw['pt-br'],
    ...(typeof raw.es === 'string' ? { es: raw.es } : {}),
    ...(typeof raw.en === 'string' ? { en: raw.en } : {}),
  };
}

/** Reads stored settings defensively: a key missing or of the wrong type takes its default. */
export function parseInstitutionSettings(json: string | null | undefined): InstitutionSettings {
  let raw: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(json ?? '{}');
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) raw = parsed as Record<string, unknown>;
  } catch {
    raw = {};
  }
  const bool = (key: keyof InstitutionSettings) =>
    typeof raw[key] === 'boolean' ? (raw[key] as boolean) : (DEFAULT_INSTITUTION_SETTINGS[key] as boolean);
  const smart = raw.smart as { url?: unknown; secret?: unknown } | null | undefined;
  return {
    shareEnabled: bool('shareEnabled'),
    createAccountDefaultDisabled: bool('createAccountDefaultDisabled'),
    autoInvitePatients: bool('autoInvitePatients'),
    emailFrequencyDefault: FREQUENCIES.includes(String(raw.emailFrequencyDefault))
      ? (raw.emailFrequencyDefault as EmailFrequencyDefault)
      : DEFAULT_INSTITUTION_SETTINGS.emailFrequencyDefault,
    hasExamStatusVisualizer: bool('hasExamStatusVisualizer'),
    accessLogStaffNames: bool('accessLogStaffNames'),
    smart:
      smart && typeof smart.url === 'string' && typeof smart.secret === 'string'
        ? { url: smart.url, secret: smart.secret }
        : null,
    protocolNotice: parseProtocolNotice(raw.protocolNotice),
  };
}

function mergeSettings(current: InstitutionSettings, input: InstitutionSettingsInput | undefined): InstitutionSettings {
  if (!input) return current;
  return {
    shareEnabled: input.shareEnabled ?? current.shareEnabled,
    createAccountDefaultDisabled: input.createAccountDefaultDisabled ?? current.createAccountDefaultDisabled,
    autoInvitePatients: input.autoInvitePatients ?? current.autoInvitePatients,
    emailFrequencyDefault: input.emailFrequencyDefault ?? current.emailFrequencyDefault,
    hasExamStatusVisualizer: input.hasExamStatusVisualizer ?? current.hasExamStatusVisualizer,
    accessLogStaffNames: input.accessLogStaffNames ?? current.accessLogStaffNames,
    smart: input.smart === undefined ? current.smart : input.smart,
    protocolNotice: input.protocolNotice === undefined ? current.protocolNotice : input.protocolNotice,
  };
}

function toInstitution(row: InstitutionRow): Institution {
  return {
    id: row.id,
    code: row.code,
    name: row.name,
    token: row.token,
    viewType: row.viewType,
    logoPath: row.logoPath,
    supportEmail: row.supportEmail,
    supportPhoneNumber: row.supportPhoneNumber,
    supportWhatsAppNumber: row.supportWhatsappNumber,
    settings: parseInstitutionSettings(row.settings),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

const hashApiKey = (apiKey: string) => sha256Hex(apiKey);

/** A public, unguessable token that names the institution in protocol answers. */
const newInstitutionToken = () => randomBytes(16).toString('hex');

function visualizerRows(institutionId: string, list: VisualizerSetting[]) {
  return list.map((s) => ({
    id: newId(),
    institutionId,
    examTypeCode: s.examTypeCode,
    hideButton: s.hideButton ? 1 : 0,
    enable: s.enable ? 1 : 0,
  }));
}

/** A write refused because a sending facility is already another institution's. */
function isFacilityConflict(error: unknown): boolean {
  const e = error as { constraint?: unknown; message?: unknown } | null;
  return (
    isUniqueViolation(error) &&
    (String(e?.constraint ?? '').startsWith('hl7_sending_facilities') ||
      String(e?.message ?? '').includes('hl7_sending_facilities'))
  );
}

const facilityInUse = (facilities: string[]) =>
  new AppError(409, ServerMessage.hl7SendingFacilityInUse, { hl7SendingFacilities: facilities });

/** Contract 9: sets the institution's MSH-4 sending facilities, refusing those of another institution. */
async function writeHl7Facilities(trx: Db, institutionId: string, facilities: string[] | undefined): Promise<void> {
  if (facilities === undefined) return;
  const taken = await findHl7FacilitiesOfOthers(trx, institutionId, facilities);
  if (taken.length > 0) throw facilityInUse(taken);
  await replaceHl7FacilityRows(trx, institutionId, facilities);
}

/**
 * Opens an institution (operator level: the caller has already decided it may). The API key is
 * returned here once; only its sha256 is kept.
 */
export async function createInstitution(
  deps: InstitutionDeps,
  input: InstitutionCreate,
): Promise<{ institution: Institution; apiKey: string }> {
  const now = deps.clock.now().toISOString();
  const id = newId();
  const apiKey = newSecretToken();
  const settings = mergeSettings(DEFAULT_INSTITUTION_SETTINGS, input.settings);
  try {
    await deps.db.transaction().execute(async (trx) => {
      if (await findInstitutionRowByCode(trx, input.code)) throw conflict(ServerMessage.institutionCodeInUse);
      await insertInstitutionRow(trx, {
        id,
        code: input.code,
        name: input.name,
        token: newInstitutionToken(),
        apiKeyHash: hashApiKey(apiKey),
        viewType: input.viewType,
        logoPath: input.logoPath ?? null,
        supportEmail: input.supportEmail ?? null,
        supportPhoneNumber: input.supportPhoneNumber ?? null,
        supportWhatsappNumber: input.supportWhatsAppNumber ?? null,
        settings: JSON.stringify(settings),
        createdAt: now,
        updatedAt: now,
      });
      await replaceVisualizerSettingRows(trx, id, visualizerRows(id, input.settings?.visualizerSettings ?? []));
      await writeHl7Facilities(trx, id, input.hl7SendingFacilities);
    });
  } catch (error) {
    if (isFacilityConflict(error)) throw facilityInUse(input.hl7SendingFacilities ?? []);
    // Two creations of the same code at once: the unique index decides, the loser gets the 409.
    if (isUniqueViolation(error)) throw conflict(ServerMessage.institutionCodeInUse);
    throw error;
  }
  const row = await findInstitutionRowById(deps.db, id);
  if (!row) throw new Error('institution vanished after creation');
  return { institution: toInstitution(row), apiKey };
}

/** Changes an institution (operator level). Returns the new API key when `rotateApiKey` asked for one. */
export async function updateInstitution(
  deps: InstitutionDeps,
  id: string,
  input: InstitutionUpdate,
): Promise<{ institution: Institution; apiKey?: string }> {
  const apiKey = input.rotateApiKey ? newSecretToken() : undefined;
  try {
    await deps.db.transaction().execute(async (trx) => {
      const row = await findInstitutionRowById(trx, id);
      if (!row) throw notFound(ServerMessage.institutionNotFound);
      if (input.code !== undefined && input.code !== row.code) {
        if (await findInstitutionRowByCode(trx, input.code)) throw conflict(ServerMessage.institutionCodeInUse);
      }
      const settings = mergeSettings(parseInstitutionSettings(row.settings), input.settings);
      await updateInstitutionRow(trx, id, {
        ...(input.code !== undefined ? { code: input.code } : {}),
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.viewType !== undefined ? { viewType: input.viewType } : {}),
        ...(input.logoPath !== undefined ? { logoPath: input.logoPath } : {}),
        ...(input.supportEmail !== undefined ? { supportEmail: input.supportEmail } : {}),
        ...(input.supportPhoneNumber !== undefined ? { supportPhoneNumber: input.supportPhoneNumber } : {}),
        ...(input.supportWhatsAppNumber !== undefined ? { supportWhatsappNumber: input.supportWhatsAppNumber } : {}),
        ...(apiKey ? { apiKeyHash: hashApiKey(apiKey) } : {}),
        settings: JSON.stringify(settings),
        updatedAt: deps.clock.now().toISOString(),
      });
      const visualizer = input.settings?.visualizerSettings;
      if (visualizer) await replaceVisualizerSettingRows(trx, id, visualizerRows(id, visualizer));
      await writeHl7Facilities(trx, id, input.hl7SendingFacilities);
    });
  } catch (error) {
    if (isFacilityConflict(error)) throw facilityInUse(input.hl7SendingFacilities ?? []);
    if (isUniqueViolation(error)) throw conflict(ServerMessage.institutionCodeInUse);
    throw error;
  }
  const row = await findInstitutionRowById(deps.db, id);
  if (!row) throw notFound(ServerMessage.institutionNotFound);
  return { institution: toInstitution(row), ...(apiKey ? { apiKey } : {}) };
}

/** Issues a new API key for the institution of that code; the old one stops working at once. */
export async function rotateInstitutionApiKeyByCode(
  deps: InstitutionDeps,
  code: string,
): Promise<{ institution: Institution; apiKey: string }> {
  const row = await findInstitutionRowByCode(deps.db, code.trim().toUpperCase());
  if (!row) throw notFound(ServerMessage.institutionNotFound);
  const { institution, apiKey } = await updateInstitution(deps, row.id, { rotateApiKey: true });
  if (!apiKey) throw new Error('rotation produced no key');
  return { institution, apiKey };
}

export async function findInstitutionById(deps: Pick<AppContext, 'db'>, id: string): Promise<Institution | null> {
  const row = await findInstitutionRowById(deps.db, id);
  return row ? toInstitution(row) : null;
}

export async function findInstitutionByCode(deps: Pick<AppContext, 'db'>, code: string): Promise<Institution | null> {
  const row = await findInstitutionRowByCode(deps.db, code.trim().toUpperCase());
  return row ? toInstitution(row) : null;
}

/** The institution whose API key this is, or null. Only the key's sha256 is ever compared. */
export async function findInstitutionByApiKey(
  deps: Pick<AppContext, 'db'>,
  apiKey: string | null | undefined,
): Promise<Institution | null> {
  if (!apiKey || apiKey.length > 256) return null;
  const row = await findInstitutionRowByApiKeyHash(deps.db, hashApiKey(apiKey));
  return row ? toInstitution(row) : null;
}

/** Contract 9: the institution whose HL7 v2 systems send with that MSH-4 sending facility, or null. */
export async function findInstitutionByHl7Facility(
  deps: Pick<AppContext, 'db'>,
  facility: string,
): Promise<Institution | null> {
  const key = facility.trim().toUpperCase();
  if (key === '' || key.length > 180) return null;
  const row = await findInstitutionRowByHl7Facility(deps.db, key);
  return row ? toInstitution(row) : null;
}

export async function listInstitutions(deps: Pick<AppContext, 'db'>): Promise<Institution[]> {
  return (await listInstitutionRows(deps.db)).map(toInstitution);
}

/** The per-exam-type switches of spec 6 (hide the image button, disable the type). */
export async function listVisualizerSettings(db: Db, institutionId: string): Promise<VisualizerSetting[]> {
  return (await listVisualizerSettingRows(db, institutionId)).map((r) => ({
    examTypeCode: r.examTypeCode,
    hideButton: r.hideButton === 1,
    enable: r.enable === 1,
  }));
}

async function toView(db: Db, institution: Institution, apiKey?: string): Promise<InstitutionView> {
  const visualizer = await listVisualizerSettings(db, institution.id);
  const hl7SendingFacilities = await listHl7FacilityRows(db, institution.id);
  const { smart, ...flags } = institution.settings;
  return {
    id: institution.id,
    code: institution.code,
    name: institution.name,
    token: institution.token,
    viewType: institution.viewType,
    logoPath: institution.logoPath,
    supportEmail: institution.supportEmail,
    supportPhoneNumber: institution.supportPhoneNumber,
    supportWhatsAppNumber: institution.supportWhatsAppNumber,
    settings: { ...flags, visualizerSettings: visualizer, smart: smart ? { url: smart.url } : null },
    hl7SendingFacilities,
    institutionVisualizerExamTypeSettingsDTO: visualizer.map((v) => ({
      examType: { code: v.examTypeCode },
      hideButton: v.hideButton,
      enable: v.enable,
    })),
    createdAt: institution.createdAt,
    updatedAt: institution.updatedAt,
    ...(apiKey ? { apiKey } : {}),
  };
}

export async function createInstitutionAs(
  ctx: AppContext,
  actor: InstitutionActor,
  input: InstitutionCreate,
): Promise<{ id: string; code: string; token: string; apiKey: string }> {
  if (!canCreateInstitution(actor)) throw forbidden();
  const { institution, apiKey } = await createInstitution(ctx, input);
  await recordAudit(ctx, {
    event: 'INSTITUTION_CREATED',
    tenant: institution.code,
    resource: { type: 'INSTITUTION', id: institution.id },
    systemUser: { id: actor.userId, name: null, role: actor.role },
  });
  return { id: institution.id, code: institution.code, token: institution.token, apiKey };
}

export async function getInstitutionAs(ctx: AppContext, actor: InstitutionActor, id: string): Promise<InstitutionView> {
  // Another institution looks exactly like one that does not exist.
  if (!canManageInstitution(actor, id)) throw notFound(ServerMessage.institutionNotFound);
  const institution = await findInstitutionById(ctx, id);
  if (!institution) throw notFound(ServerMessage.institutionNotFound);
  return toView(ctx.db, institution);
}

export async function updateInstitutionAs(
  ctx: AppContext,
  actor: InstitutionActor,
  id: string,
  input: InstitutionUpdate,
): Promise<InstitutionView> {
  if (!canManageInstitution(actor, id)) throw notFound(ServerMessage.institutionNotFound);
  if (input.code !== undefined && !canChangeInstitutionCode(actor)) {
    const current = await findInstitutionById(ctx, id);
    if (current && current.code !== input.code) throw new AppError(403, ServerMessage.forbidden);
  }
  const { institution, apiKey } = await updateInstitution(ctx, id, input);
  await recordAudit(ctx, {
    event: apiKey ? 'INSTITUTION_API_KEY_ROTATED' : 'INSTITUTION_UPDATED',
    tenant: institution.code,
    resource: { type: 'INSTITUTION', id: institution.id },
    systemUser: { id: actor.userId, name: null, role: actor.role },
  });
  return toView(ctx.db, institution, apiKey);
}
