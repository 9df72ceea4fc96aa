import { ServerMessage } from '@portal/shared/errors';
import { AccountMessage } from '@portal/shared/messages';
import type { PatientEdit, UserRecord } from '@portal/shared/schemas/accounts';
import { formatCpf } from '@portal/shared/formats';
import type { Updateable } from 'kysely';
import type { AppContext } from '../../context.js';
import type { SessionRole, UserTable } from '../../db/schema.js';
import { AppError, notFound } from '../../lib/errors.js';
import type { AuthContext } from '../../plugins/auth.js';
import {
  findUserByCpf,
  findUserByEmail,
  findUserById,
  listUserTags,
  updateUser,
  type UserRow,
} from './accounts.repository.js';
import { canEditOwnRecord } from './accounts.policy.js';
import { isUniqueViolation } from '../../db/database.js';
import { documentAlreadyAssociated, normalizeCpf, normalizePhone } from './registration.service.js';
import { saveFavoriteTag } from './tags.repository.js';

/** Spec 5: the patient record is complete with full name, CPF, birth, a phone and gender. */
export function missingProfileFields(
  user: Pick<UserRow, 'name' | 'cpf' | 'birth' | 'phoneMobile' | 'phoneLandline' | 'gender'>,
) {
  const missing: string[] = [];
  if (!user.name?.trim()) missing.push('fullName');
  if (!user.cpf) missing.push('cpf');
  if (!user.birth) missing.push('birth');
  if (!user.phoneMobile && !user.phoneLandline) missing.push('phone');
  if (!user.gender) missing.push('gender');
  return missing;
}

async function ownAccount(ctx: AppContext, auth: AuthContext, roles?: SessionRole[]): Promise<UserRow> {
  if (!auth.userId || (roles && !roles.includes(auth.role))) throw new AppError(403, ServerMessage.forbidden);
  const user = await findUserById(ctx.db, auth.userId);
  if (!user) throw notFound(AccountMessage.userNotFound);
  return user;
}

export async function userRecord(ctx: AppContext, user: UserRow): Promise<UserRecord> {
  const phones = [
    ...(user.phoneMobile ? [{ number: user.phoneMobile, type: 'CELULAR' }] : []),
    ...(user.phoneLandline ? [{ number: user.phoneLandline, type: 'FIXO' }] : []),
  ];
  const tags = user.type === 'EXTERNAL' || user.type === 'PHYSICIAN' ? await listUserTags(ctx.db, user.id) : [];
  const missing = missingProfileFields(user);
  return {
    id: user.id,
    type: user.type,
    name: user.name,
    email: user.email,
    documents: user.cpf ? [{ type: { code: 'CPF' }, number: formatCpf(user.cpf) }] : [],
    birth: user.birth,
    gender: user.gender,
    phones,
    frequencyReceiveEmail: user.frequencyReceiveEmail,
    language: user.language,
    mfaEnabled: user.mfaEnabled === 1,
    licenses: user.licenseNumber && user.licenseState ? [{ number: user.licenseNumber, state: user.licenseState }] : [],
    tagId: user.favoriteTagId,
    tags,
    complete: missing.length === 0,
    missing,
  };
}

/** The caller's own record, whatever his account type. */
export async function myRecord(ctx: AppContext, auth: AuthContext): Promise<UserRecord> {
  return userRecord(ctx, await ownAccount(ctx, auth));
}

async function personalDataPatch(ctx: AppContext, user: UserRow, body: PatientEdit): Promise<Updateable<UserTable>> {
  const patch: Updateable<UserTable> = {};
  if (body.documents) {
    const cpfDocument = body.documents.find((d) => d.type.code.toUpperCase() === 'CPF');
    if (cpfDocument) {
      const cpf = cpfDocument.number.trim() ? normalizeCpf(cpfDocument.number) : null;
      if (cpf && cpf !== user.cpf) {
        const owner = await findUserByCpf(ctx.db, cpf);
        if (owner && owner.id !== user.id) throw documentAlreadyAssociated();
      }
      patch.cpf = cpf;
    }
  }
  if (body.birth !== undefined && body.birth !== null) patch.birth = body.birth;
  if (body.gender) patch.gender = body.gender;
  if (body.phones) {
    const [first, second] = body.phones.filter((p) => p.number.trim());
    const mobile =
      body.phones.find((p) => p.type === 'CELULAR' && p.number.trim()) ?? (first?.type ? undefined : first);
    const landline =
      body.phones.find((p) => p.type === 'FIXO' && p.number.trim()) ?? (second?.type ? undefined : second);
    patch.phoneMobile = mobile ? normalizePhone(mobile.number) : null;
    patch.phoneLandline = landline && landline !== mobile ? normalizePhone(landline.number) : null;
  }
  if (body.frequencyReceiveEmail) patch.frequencyReceiveEmail = body.frequencyReceiveEmail;
  if (body.language) patch.language = body.language;
  return patch;
}

async function saveAndReturn(ctx: AppContext, user: UserRow, patch: Updateable<UserTable>): Promise<UserRecord> {
  try {
    await updateUser(ctx.db, user.id, { ...patch, updatedAt: ctx.clock.now().toISOString() });
  } catch (error) {
    if (isUniqueViolation(error)) throw documentAlreadyAssociated();
    throw error;
  }
  return currentRecord(ctx, user.id);
}

/** The account's record as it is now in the database. */
async function currentRecord(ctx: AppContext, userId: string): Promise<UserRecord> {
  return userRecord(ctx, (await findUserById(ctx.db, userId)) as UserRow);
}

/** Patient edit (spec 2.10, 3): absent fields stay as they are. */
export async function editPatient(ctx: AppContext, auth: AuthContext, body: PatientEdit): Promise<UserRecord> {
  const user = await ownAccount(ctx, auth);
  if (!canEditOwnRecord(auth.role, user.type, 'patient')) throw new AppError(403, ServerMessage.forbidden);
  const patch = await personalDataPatch(ctx, user, body);
  const name = body.name?.trim();
  if (name) patch.name = name;
  return saveAndReturn(ctx, user, patch);
}

/** Physician edit: name, CRM and UF are read-only (spec 6), so they are ignored when sent. */
export async function editPhysician(ctx: AppContext, auth: AuthContext, body: PatientEdit): Promise<UserRecord> {
  const user = await ownAccount(ctx, auth, ['PHYSICIAN']);
  return saveAndReturn(ctx, user, await personalDataPatch(ctx, user, { ...body, name: undefined }));
}

/** External user's favourite group: one of his own tags, else it looks like it does not exist. */
export async function setFavoriteTag(ctx: AppContext, auth: AuthContext, tagId: string): Promise<UserRecord> {
  const user = await ownAccount(ctx, auth, ['EXTERNAL']);
  // Checked and written at once: a tag deleted or left meanwhile never stays his favourite.
  if (!(await saveFavoriteTag(ctx.db, ctx.dialect, user.id, tagId, ctx.clock.now().toISOString()))) {
    throw notFound(AccountMessage.favoriteTagNotYours);
  }
  return currentRecord(ctx, user.id);
}

/** getEmailFrequencyOfUser: one's own setting; admins may ask about anyone. */
export async function emailFrequencyOf(
  ctx: AppContext,
  auth: AuthContext,
  query: { userId?: string | null; email?: string | null },
): Promise<string> {
  const me = await ownAccount(ctx, auth);
  let target: UserRow | undefined = me;
  if (query.userId && query.userId !== me.id) {
    target = me.type === 'ADMIN' ? await findUserById(ctx.db, query.userId) : undefined;
  } else if (!query.userId && query.email && query.email.trim().toLowerCase() !== me.email) {
    target = me.type === 'ADMIN' ? await findUserByEmail(ctx.db, query.email) : undefined;
  }
  if (!target) throw notFound(AccountMessage.userNotFound);
  return target.frequencyReceiveEmail;
}
