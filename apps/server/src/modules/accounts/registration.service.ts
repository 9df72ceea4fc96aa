import type { FastifyRequest } from 'fastify';
import { ServerMessage } from '@portal/shared/errors';
import { DEFAULT_LANGUAGE, TOKEN_TTL_MS } from '@portal/shared/limits';
import { AccountMessage } from '@portal/shared/messages';
import type { PatientCreate } from '@portal/shared/schemas/accounts';
import { digitsOnly, EMAIL_PATTERN, isValidBrazilianPhone, isValidCpf } from '@portal/shared/formats';
import type { AppContext } from '../../context.js';
import { type Db, isUniqueViolation } from '../../db/database.js';
import type { UserType } from '../../db/schema.js';
import { AppError, badRequest, conflict, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { hashPassword } from '../../lib/passwords.js';
import { recordAudit } from '../../plugins/audit.js';
import { parseInstitutionSettings } from '../institutions/institution.service.js';
import { queueMail } from '../outbox/outbox.service.js';
import { acceptCurrentTermsOnCreation } from '../terms/terms.service.js';
import { findInstitutionById, findUserByCpf, findUserByEmail, insertUser, updateUser } from './accounts.repository.js';
import { mailLink } from './links.js';
import { insertVouch } from './vouches.repository.js';
import { consumeToken, findLiveToken, issueOneTimeToken, tokenPayload } from './one-time-tokens.js';
import { assertAcceptablePassword } from './password-policy.js';
import { linkProtocolIds, protocolsForNewAccount } from './protocol-link.service.js';

/**
 * The first of these institutions that holds the accounts it brings until it enables them
 * (`createAccountDefaultDisabled`), or null: such an account is created disabled, waiting for it.
 */
async function holdingInstitution(db: Db, institutionIds: ReadonlyArray<string | null | undefined>) {
  for (const id of new Set(institutionIds)) {
    if (!id) continue;
    const row = await findInstitutionById(db, id);
    if (row && parseInstitutionSettings(row.settings).createAccountDefaultDisabled) return id;
  }
  return null;
}

async function institutionsOfProtocols(db: Db, protocolIds: readonly string[]): Promise<string[]> {
  if (protocolIds.length === 0) return [];
  const rows = await db.selectFrom('protocols').select('institutionId').where('id', 'in', protocolIds).execute();
  return rows.map((r) => r.institutionId);
}

export const userAlreadyExists = () => notFound(ServerMessage.userAlreadyExists);
export const documentAlreadyAssociated = () => conflict(ServerMessage.documentAlreadyAssociated);

/** A unique-constraint violation on either database (a concurrent sign-up with the same e-mail). */
export function normalizeEmail(value: string | null | undefined): string {
  const email = (value ?? '').trim().toLowerCase();
  if (!email) throw badRequest(AccountMessage.emailRequired);
  if (!EMAIL_PATTERN.test(email) || email.length > 254) {
    throw badRequest(ServerMessage.validation, [{ field: 'email', message: 'invalid e-mail' }]);
  }
  return email;
}

/** A CPF sent by a form, as 11 digits; 400 with the catalogue text when the check digits fail. */
export function normalizeCpf(value: string): string {
  if (!isValidCpf(value)) throw badRequest(ServerMessage.cpfInvalid);
  return digitsOnly(value);
}

export function normalizePhone(value: string): string {
  if (!isValidBrazilianPhone(value)) throw badRequest(AccountMessage.phoneInvalid);
  return digitsOnly(value);
}

function baseUser(now: string, type: UserType, email: string, name: string, language: string) {
  return {
    id: newId(),
    type,
    email,
    name,
    active: 0,
    disabled: 0,
    mfaEnabled: 0,
    frequencyReceiveEmail: 'DEFAULT',
    language,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * Patient self-registration (spec 3, 4.5). Without an invitation the account stays inactive until
 * the activation link is followed; with a patient invitation it is active at once and its e-mail
 * is the invited one (the invitation proved it).
 */
export async function createPatient(ctx: AppContext, request: FastifyRequest, body: PatientCreate) {
  const language = body.language ?? DEFAULT_LANGUAGE;
  const name = (body.name ?? body.fullName ?? '').trim();
  if (!name) throw badRequest(AccountMessage.nameRequired);
  const invitation = body.token ? await findLiveToken(ctx, ctx.db, body.token, ['INVITE_PATIENT']) : undefined;
  const email = normalizeEmail(invitation?.email ?? body.login ?? body.email ?? body.emailAddress);
  if (!invitation && body.confirmEmailAddress && body.confirmEmailAddress.trim().toLowerCase() !== email) {
    throw badRequest(AccountMessage.emailConfirmationMismatch);
  }
  assertAcceptablePassword(body.password, body.confirmPassword);
  if (body.serviceTerms === false) throw badRequest(AccountMessage.termsNotAccepted);
  const cpf = body.cpf?.trim() ? normalizeCpf(body.cpf) : null;
  const phone = body.phone?.trim() ? normalizePhone(body.phone) : null;

  if (await findUserByEmail(ctx.db, email)) throw userAlreadyExists();
  if (cpf && (await findUserByCpf(ctx.db, cpf))) throw documentAlreadyAssociated();

  // The protocols given with their password: each must still be free when the account is made.
  const claimed: string[] = [];
  if (body.protocol?.trim() || body.protocolPassword) {
    if (!body.protocol?.trim() || !body.protocolPassword) throw badRequest(AccountMessage.protocolPasswordRequired);
    claimed.push(
      ...(await protocolsForNewAccount(ctx, request, { protocol: body.protocol, password: body.protocolPassword })),
    );
  }
  const invitedProtocol = invitation ? tokenPayload(invitation).protocolId : undefined;
  const invited = typeof invitedProtocol === 'string' && !claimed.includes(invitedProtocol) ? [invitedProtocol] : [];
  const protocolIds = [...claimed, ...invited];

  // The inviting institution first, then those of the protocols the account is made with.
  const holder = await holdingInstitution(ctx.db, [
    invitation?.institutionId,
    ...(await institutionsOfProtocols(ctx.db, protocolIds)),
  ]);
  const passwordHash = await hashPassword(body.password);
  const now = ctx.clock.now().toISOString();
  const user = {
    ...baseUser(now, 'PATIENT', email, name, language),
    passwordHash,
    active: invitation ? 1 : 0,
    disabled: holder ? 1 : 0,
    awaitingInstitutionId: holder,
    birth: body.dateOfBirth,
    cpf,
    phoneMobile: phone,
  };
  try {
    await ctx.db.transaction().execute(async (trx) => {
      await insertUser(trx, user);
      if (invitation) await consumeToken(ctx, trx, invitation);
      // Sign-ups in flight with one protocol all found it free: the first to link it keeps it, and
      // the others' accounts are not made (their transaction rolls back), as if they came after.
      if ((await linkProtocolIds(ctx, trx, claimed, user.id)) !== claimed.length) {
        throw conflict(AccountMessage.protocolLinkedToAnotherAccount);
      }
      await linkProtocolIds(ctx, trx, invited, user.id);
      if (body.serviceTerms) await acceptCurrentTermsOnCreation(ctx, trx, user.id, 'PATIENT');
      if (!invitation) {
        const activation = await issueOneTimeToken(ctx, trx, {
          kind: 'ACTIVATION',
          ttlMs: TOKEN_TTL_MS.activation,
          userId: user.id,
          email,
          language,
        });
        await queueMail(
          ctx,
          {
            kind: 'activation',
            to: email,
            language,
            link: mailLink(ctx, '/api/v2/auth/user/registerValidate', { token: activation.token }),
            params: { name },
          },
          trx,
        );
      }
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw cpf && (await findUserByCpf(ctx.db, cpf)) ? documentAlreadyAssociated() : userAlreadyExists();
    }
    throw error;
  }
  return { id: user.id, email, active: user.active === 1, awaitingInstitution: holder !== null };
}

/** The activation link: true when the account was activated now, false for unknown, used or expired. */
export async function activateAccount(ctx: AppContext, token: string): Promise<boolean> {
  try {
    await ctx.db.transaction().execute(async (trx) => {
      const row = await findLiveToken(ctx, trx, token, ['ACTIVATION']);
      await consumeToken(ctx, trx, row);
      if (!row.userId) throw notFound(ServerMessage.tokenNotFound);
      await updateUser(trx, row.userId, { active: 1, updatedAt: ctx.clock.now().toISOString() });
    });
    return true;
  } catch (error) {
    if (error instanceof AppError) return false;
    throw error;
  }
}

/** What an invitation link shows before the form is filled: the fixed e-mail and name. */
export async function patientInvitationInfo(ctx: AppContext, token: string) {
  const row = await findLiveToken(ctx, ctx.db, token, ['INVITE_PATIENT']);
  const name = tokenPayload(row).name;
  return { email: row.email ?? '', name: typeof name === 'string' ? name : null };
}

export async function externalUserInvitationInfo(ctx: AppContext, token: string) {
  const row = await findLiveToken(ctx, ctx.db, token, ['EXTERNAL_FIRST_PASSWORD']);
  const user = await findUserByEmail(ctx.db, row.email ?? '');
  return { email: row.email ?? '', name: user?.name ?? null };
}

export async function companyInvitationEmail(ctx: AppContext, token: string): Promise<string> {
  const row = await findLiveToken(ctx, ctx.db, token, ['INVITE_COMPANY']);
  return row.email ?? '';
}

export async function physicianInvitationInfo(ctx: AppContext, token: string) {
  const row = await findLiveToken(ctx, ctx.db, token, ['INVITE_PHYSICIAN']);
  const payload = tokenPayload(row);
  const institution = row.institutionId ? await findInstitutionById(ctx.db, row.institutionId) : undefined;
  return {
    email: row.email ?? '',
    name: typeof payload.name === 'string' ? payload.name : null,
    crm: String(payload.crm ?? ''),
    uf: String(payload.uf ?? ''),
    institutionCode: institution?.code ?? null,
    institutionName: institution?.name ?? null,
  };
}

/** Physician registration: CRM and UF come from the invitation, never from the form. */
export async function createPhysician(
  ctx: AppContext,
  body: {
    token: string;
    fullName?: string | null;
    name?: string | null;
    password: string;
    confirmPassword?: string | null;
    language?: string | null;
  },
) {
  const row = await findLiveToken(ctx, ctx.db, body.token, ['INVITE_PHYSICIAN']);
  const payload = tokenPayload(row);
  const email = normalizeEmail(row.email);
  const name = (body.fullName ?? body.name ?? (typeof payload.name === 'string' ? payload.name : '')).trim();
  if (!name) throw badRequest(AccountMessage.nameRequired);
  assertAcceptablePassword(body.password, body.confirmPassword);
  if (await findUserByEmail(ctx.db, email)) throw userAlreadyExists();
  const now = ctx.clock.now().toISOString();
  const holder = await holdingInstitution(ctx.db, [row.institutionId]);
  const user = {
    ...baseUser(now, 'PHYSICIAN', email, name, body.language ?? row.language),
    passwordHash: await hashPassword(body.password),
    active: 1,
    disabled: holder ? 1 : 0,
    awaitingInstitutionId: holder,
    licenseNumber: String(payload.crm ?? ''),
    licenseState: String(payload.uf ?? ''),
    institutionId: row.institutionId,
  };
  // The inviting institution vouches for the physician: his license opens its protocols.
  await createInvitedUser(ctx, row, user, false, async (trx) => {
    if (row.institutionId)
      await insertVouch(trx, { userId: user.id, institutionId: row.institutionId, createdBy: null, createdAt: now });
  });
  return { id: user.id, email, active: true, awaitingInstitution: holder !== null };
}

/** Company access (spec 2.5): the terms are accepted on the form, so they are recorded with the account. */
export async function createCompanyUser(
  ctx: AppContext,
  body: { token: string; fullName: string; password: string; confirmPassword: string; language?: string | null },
) {
  const row = await findLiveToken(ctx, ctx.db, body.token, ['INVITE_COMPANY']);
  const email = normalizeEmail(row.email);
  assertAcceptablePassword(body.password, body.confirmPassword);
  if (await findUserByEmail(ctx.db, email)) throw userAlreadyExists();
  const now = ctx.clock.now().toISOString();
  const user = {
    ...baseUser(now, 'COMPANY', email, body.fullName.trim(), body.language ?? row.language),
    passwordHash: await hashPassword(body.password),
    active: 1,
    frequencyReceiveEmail: 'DISABLED',
    institutionId: row.institutionId,
  };
  await createInvitedUser(ctx, row, user, true);
  return { id: user.id, email, active: true };
}

/** The console's first-password page of an admin invitation: the fixed e-mail and name. */
export async function adminInvitationInfo(ctx: AppContext, token: string) {
  const row = await findLiveToken(ctx, ctx.db, token, ['INVITE_ADMIN']);
  const name = tokenPayload(row).name;
  return { email: row.email ?? '', name: typeof name === 'string' ? name : null };
}

/**
 * An invited admin chooses a password: the account is active at once (the invitation proved the
 * e-mail) and signs in to the console only (spec 6 keeps admins out of the patient app).
 */
export async function createAdminUser(
  ctx: AppContext,
  request: FastifyRequest,
  body: { token: string; fullName: string; password: string; confirmPassword: string; language?: string | null },
) {
  const row = await findLiveToken(ctx, ctx.db, body.token, ['INVITE_ADMIN']);
  const email = normalizeEmail(row.email);
  assertAcceptablePassword(body.password, body.confirmPassword);
  if (await findUserByEmail(ctx.db, email)) throw userAlreadyExists();
  const now = ctx.clock.now().toISOString();
  const user = {
    ...baseUser(now, 'ADMIN', email, body.fullName.trim(), body.language ?? row.language),
    passwordHash: await hashPassword(body.password),
    active: 1,
    frequencyReceiveEmail: 'DISABLED',
  };
  await createInvitedUser(ctx, row, user, false);
  await recordAudit(
    ctx,
    {
      event: 'ADMIN_CREATED',
      resource: { type: 'ACCOUNT', id: user.id, accountType: 'ADMIN', invitationId: row.id },
      systemUser: { id: user.id, name: user.email, role: 'ADMIN' },
    },
    request,
  );
  return { id: user.id, email, active: true };
}

async function createInvitedUser(
  ctx: AppContext,
  row: Awaited<ReturnType<typeof findLiveToken>>,
  user: Parameters<typeof insertUser>[1] & { id: string; type: UserType },
  acceptTerms = false,
  alongside?: (trx: Db) => Promise<void>,
) {
  try {
    await ctx.db.transaction().execute(async (trx) => {
      await consumeToken(ctx, trx, row);
      await insertUser(trx, user);
      if (acceptTerms) await acceptCurrentTermsOnCreation(ctx, trx, user.id, user.type);
      await alongside?.(trx);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw userAlreadyExists();
    throw error;
  }
}

export const forbiddenForRole = () => new AppError(403, ServerMessage.forbidden);
