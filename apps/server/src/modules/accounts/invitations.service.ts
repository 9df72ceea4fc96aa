import type { FastifyRequest } from 'fastify';
import { ServerMessage } from '@portal/shared/errors';
import { DEFAULT_LANGUAGE, TOKEN_TTL_MS } from '@portal/shared/limits';
import { AccountMessage } from '@portal/shared/messages';
import type { AppContext } from '../../context.js';
import type { Db } from '../../db/database.js';
import { AppError, conflict, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { AuthContext } from '../../plugins/auth.js';
import { recordAudit } from '../../plugins/audit.js';
import { queueMail } from '../outbox/outbox.service.js';
import {
  findInstitutionById,
  findUserByEmail,
  insertUser,
  retireOneTimeTokens,
  setOneTimeTokenStatus,
  type InstitutionRow,
  updateUser,
} from './accounts.repository.js';
import { institutionAccess, institutionActor } from './accounts.policy.js';
import { mailLink } from './links.js';
import { issueOneTimeToken } from './one-time-tokens.js';
import { isUniqueViolation } from '../../db/database.js';
import {
  addTagMember,
  deleteTagUnlessUsed,
  findTag,
  findTagByText,
  insertTag,
  institutionHasTags,
  findTagMember,
  holdTag,
  listTagMembers,
  memberInstitutionIds,
  listTags,
  removeTagMember,
  renameTag,
} from './tags.repository.js';

/** Authorises first: the caller may administer this institution (403 / 404 as contract 6 and 8 say). */
export async function administeredInstitution(
  ctx: AppContext,
  auth: AuthContext,
  institutionId: string,
): Promise<InstitutionRow> {
  const access = institutionAccess(institutionActor(auth), institutionId);
  // The caller's account came with the session statement.
  if (access === 'forbidden' || !auth.account) throw new AppError(403, ServerMessage.forbidden);
  const institution = access === 'allow' ? await findInstitutionById(ctx.db, institutionId) : undefined;
  if (!institution) throw notFound(ServerMessage.institutionNotFound);
  return institution;
}

export type InvitationKind = 'INVITE_PHYSICIAN' | 'INVITE_COMPANY' | 'INVITE_ADMIN' | 'INVITE_PATIENT';

/** Each invitation's mail and the page its link opens (admins': the console's first-password page). */
const INVITATION_MAILS: Record<
  InvitationKind,
  { mailKind: 'physicianInvitation' | 'companyInvitation' | 'adminInvitation' | 'patientInvitation'; path: string }
> = {
  INVITE_PHYSICIAN: { mailKind: 'physicianInvitation', path: '/physician/create' },
  INVITE_COMPANY: { mailKind: 'companyInvitation', path: '/company-access/create' },
  INVITE_ADMIN: { mailKind: 'adminInvitation', path: '/admin/invitation' },
  INVITE_PATIENT: { mailKind: 'patientInvitation', path: '/patient/create' },
};

export interface Invitation {
  kind: InvitationKind;
  email: string;
  /** The inviting institution; null for an admin invitation (admins belong to none). */
  institution: Pick<InstitutionRow, 'id' | 'code' | 'name'> | null;
  language: string;
  payload: Record<string, unknown>;
}

/**
 * Issues an invitation token (7 days, single use; a newer invitation of the same kind retires the
 * older ones) and queues its mail in the same transaction: CREATED, then INVITE_SEND once queued.
 */
export async function sendInvitation(ctx: AppContext, db: Db, input: Invitation) {
  await retireOneTimeTokens(db, input.email, [input.kind], ctx.clock.now().toISOString());
  const issued = await issueOneTimeToken(ctx, db, {
    kind: input.kind,
    ttlMs: TOKEN_TTL_MS.invitation,
    email: input.email,
    institutionId: input.institution?.id ?? null,
    payload: input.payload,
    language: input.language,
  });
  const { mailKind, path } = INVITATION_MAILS[input.kind];
  // The physician's page shows the inviting institution from its code.
  const query: Record<string, string> =
    input.kind === 'INVITE_PHYSICIAN' && input.institution ? { code: input.institution.code } : {};
  const link = mailLink(ctx, path, { ...query, token: issued.token, language: input.language });
  await queueMail(
    ctx,
    {
      kind: mailKind,
      to: input.email,
      language: input.language,
      link,
      institutionName: input.institution?.name ?? null,
      institutionId: input.institution?.id ?? null,
      params: { name: typeof input.payload.name === 'string' ? input.payload.name : null },
    },
    db,
  );
  await setOneTimeTokenStatus(db, issued.id, 'INVITE_SEND');
  return { id: issued.id, email: input.email, status: 'INVITE_SEND', expiresAt: issued.expiresAt };
}

export async function invitePhysician(
  ctx: AppContext,
  request: FastifyRequest,
  auth: AuthContext,
  body: { email: string; name: string; crm: string; uf: string; institutionId: string; language?: string | null },
) {
  const institution = await administeredInstitution(ctx, auth, body.institutionId);
  if (await findUserByEmail(ctx.db, body.email)) throw conflict(ServerMessage.userAlreadyExists);
  // A license never blocks another account: each account sees through it only the protocols of
  // the institutions that vouched for it (the inviting one on creation; docs/security.md).
  const sent = await ctx.db.transaction().execute((trx) =>
    sendInvitation(ctx, trx, {
      kind: 'INVITE_PHYSICIAN',
      email: body.email,
      institution,
      language: body.language ?? DEFAULT_LANGUAGE,
      payload: { name: body.name, crm: body.crm, uf: body.uf },
    }),
  );
  await auditAdmin(ctx, request, auth, 'PHYSICIAN_INVITED', institution.code, { email: body.email });
  return sent;
}

export async function inviteCompanyUser(
  ctx: AppContext,
  request: FastifyRequest,
  auth: AuthContext,
  body: { email: string; institutionId: string; language?: string | null },
) {
  const institution = await administeredInstitution(ctx, auth, body.institutionId);
  if (await findUserByEmail(ctx.db, body.email)) throw conflict(ServerMessage.userAlreadyExists);
  const sent = await ctx.db.transaction().execute((trx) =>
    sendInvitation(ctx, trx, {
      kind: 'INVITE_COMPANY',
      email: body.email,
      institution,
      language: body.language ?? DEFAULT_LANGUAGE,
      payload: {},
    }),
  );
  await auditAdmin(ctx, request, auth, 'COMPANY_INVITED', institution.code, { email: body.email });
  return sent;
}

/**
 * The patient invitation an institution sends for one of its protocols (contract 5 `…/invite`):
 * the link opens the registration with the e-mail fixed, and the new account gets the protocol.
 */
export async function invitePatient(
  ctx: AppContext,
  input: {
    email: string;
    name: string;
    protocolId: string;
    institution: Pick<InstitutionRow, 'id' | 'code' | 'name'>;
    language?: string | null;
  },
  db: Db = ctx.db,
) {
  return sendInvitation(ctx, db, {
    kind: 'INVITE_PATIENT',
    email: input.email.trim().toLowerCase(),
    institution: input.institution,
    language: input.language ?? DEFAULT_LANGUAGE,
    payload: { name: input.name, protocolId: input.protocolId },
  });
}

export async function auditAdmin(
  ctx: AppContext,
  request: FastifyRequest,
  auth: AuthContext,
  event: string,
  tenant: string,
  macro: Record<string, unknown>,
) {
  await recordAudit(
    ctx,
    { event, tenant, macro, systemUser: { id: auth.userId, name: auth.username, role: auth.role } },
    request,
  );
}

export async function tagsOf(ctx: AppContext, auth: AuthContext, institutionId: string) {
  await administeredInstitution(ctx, auth, institutionId);
  return listTags(ctx.db, institutionId);
}

export async function containsTags(ctx: AppContext, auth: AuthContext, institutionId: string) {
  await administeredInstitution(ctx, auth, institutionId);
  return institutionHasTags(ctx.db, institutionId);
}

export async function createTag(
  ctx: AppContext,
  request: FastifyRequest,
  auth: AuthContext,
  institutionId: string,
  tag: string,
) {
  const institution = await administeredInstitution(ctx, auth, institutionId);
  if (await findTagByText(ctx.db, institutionId, tag)) throw conflict(AccountMessage.tagAlreadyExists);
  const row = { id: newId(), institutionId, tag, createdAt: ctx.clock.now().toISOString() };
  try {
    await insertTag(ctx.db, row);
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(AccountMessage.tagAlreadyExists);
    throw error;
  }
  await auditAdmin(ctx, request, auth, 'TAG_CREATED', institution.code, { tagId: row.id, tag });
  return { id: row.id, tag };
}

/** A tag of an institution the caller administers, with that institution; 404 when there is none. */
async function tagOf(ctx: AppContext, auth: AuthContext, institutionId: string, tagId: string) {
  const institution = await administeredInstitution(ctx, auth, institutionId);
  const tag = await findTag(ctx.db, institutionId, tagId);
  if (!tag) throw notFound();
  return { tag, institution };
}

/** One member of such a tag, with the institution; 404 when the user is not one. */
async function memberOf(ctx: AppContext, auth: AuthContext, institutionId: string, tagId: string, userId: string) {
  const { institution } = await tagOf(ctx, auth, institutionId, tagId);
  const member = await findTagMember(ctx.db, tagId, userId);
  if (!member) throw notFound(AccountMessage.userNotFound);
  return { institution, member };
}

/** One tag of an institution, as the tag list shows it. */
export async function tagById(ctx: AppContext, auth: AuthContext, institutionId: string, tagId: string) {
  const { tag } = await tagOf(ctx, auth, institutionId, tagId);
  return { id: tag.id, tag: tag.tag };
}

export async function updateTag(
  ctx: AppContext,
  request: FastifyRequest,
  auth: AuthContext,
  institutionId: string,
  tagId: string,
  tag: string,
) {
  const { tag: before, institution } = await tagOf(ctx, auth, institutionId, tagId);
  const same = await findTagByText(ctx.db, institutionId, tag);
  if (same && same.id !== tagId) throw conflict(AccountMessage.tagAlreadyExists);
  let renamed: boolean;
  try {
    renamed = await renameTag(ctx.db, tagId, tag);
  } catch (error) {
    // Another tag took the name while this call looked: the unique (institution, tag) decides.
    if (isUniqueViolation(error)) throw conflict(AccountMessage.tagAlreadyExists);
    throw error;
  }
  if (!renamed) throw notFound();
  await auditAdmin(ctx, request, auth, 'TAG_RENAMED', institution.code, { tagId, from: before.tag, to: tag });
  return { id: tagId, tag };
}

/** A tag still on protocols stays: erasing it would silently change who sees those protocols. */
export async function removeTag(
  ctx: AppContext,
  request: FastifyRequest,
  auth: AuthContext,
  institutionId: string,
  tagId: string,
) {
  const { tag, institution } = await tagOf(ctx, auth, institutionId, tagId);
  // Looked at again with the tag held: deleted meanwhile (404), or put on a protocol (409).
  const outcome = await deleteTagUnlessUsed(ctx.db, ctx.dialect, tagId);
  if (outcome === 'missing') throw notFound();
  if (outcome === 'used') throw conflict(AccountMessage.tagInUse);
  await auditAdmin(ctx, request, auth, 'TAG_DELETED', institution.code, { tagId, tag: tag.tag });
}

const tagUserView = (u: { id: string; name: string; email: string; type: string; active: number }) => ({
  id: u.id,
  name: u.name,
  email: u.email,
  type: u.type,
  active: u.active === 1,
});

export async function tagUsers(ctx: AppContext, auth: AuthContext, institutionId: string, tagId: string) {
  await tagOf(ctx, auth, institutionId, tagId);
  return (await listTagMembers(ctx.db, tagId)).map(tagUserView);
}

/** One member of a tag; 404 when the user is not one. */
export async function tagUser(
  ctx: AppContext,
  auth: AuthContext,
  institutionId: string,
  tagId: string,
  userId: string,
) {
  return tagUserView((await memberOf(ctx, auth, institutionId, tagId, userId)).member);
}

/**
 * Corrects the name of an external user of a tag. A physician's name comes from his own
 * registration and is his (spec 6): refused (409). An external user who also belongs to other
 * institutions' tags is renamed by an admin only: a company user would change him for them too.
 */
export async function updateTagUser(
  ctx: AppContext,
  request: FastifyRequest,
  auth: AuthContext,
  institutionId: string,
  tagId: string,
  userId: string,
  body: { name: string },
) {
  const { institution, member } = await memberOf(ctx, auth, institutionId, tagId, userId);
  if (member.type !== 'EXTERNAL') throw conflict(AccountMessage.physicianKeepsOwnData);
  if (auth.role !== 'ADMIN' && (await memberInstitutionIds(ctx.db, userId)).some((id) => id !== institutionId)) {
    throw conflict(AccountMessage.userSharedWithOtherInstitutions);
  }
  await updateUser(ctx.db, userId, { name: body.name, updatedAt: ctx.clock.now().toISOString() });
  await auditAdmin(ctx, request, auth, 'TAG_USER_UPDATED', institution.code, {
    tagId,
    userId,
    name: { from: member.name, to: body.name },
  });
  return tagUserView({ ...member, name: body.name });
}

/**
 * Adds a member to a tag: an existing external user or physician is attached; a new address
 * becomes an external user without a password, who gets the first-password link. An external user
 * who never set a password gets a fresh link.
 */
export async function addTagUser(
  ctx: AppContext,
  request: FastifyRequest,
  auth: AuthContext,
  institutionId: string,
  tagId: string,
  body: { email: string; name: string; language?: string | null },
): Promise<{ created: boolean; user: ReturnType<typeof tagUserView> }> {
  const { tag, institution } = await tagOf(ctx, auth, institutionId, tagId);
  const language = body.language ?? DEFAULT_LANGUAGE;
  const existing = await findUserByEmail(ctx.db, body.email);
  if (existing && existing.type !== 'EXTERNAL' && existing.type !== 'PHYSICIAN') {
    throw conflict(ServerMessage.userAlreadyExists);
  }
  const now = ctx.clock.now().toISOString();
  const user = existing ?? {
    id: newId(),
    type: 'EXTERNAL' as const,
    email: body.email,
    passwordHash: null,
    name: body.name,
    active: 0,
    disabled: 0,
    mfaEnabled: 0,
    frequencyReceiveEmail: 'DEFAULT',
    language,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await ctx.db.transaction().execute(async (trx) => {
      // A tag deleted since it was looked up is gone for this call too (404, not its foreign key's 500).
      if (!(await holdTag(trx, ctx.dialect, tagId))) throw notFound();
      if (!existing) await insertUser(trx, user);
      await addTagMember(trx, tagId, user.id, now);
      if (user.type === 'EXTERNAL' && !user.active) {
        await retireOneTimeTokens(trx, user.email, ['EXTERNAL_FIRST_PASSWORD'], now);
        const issued = await issueOneTimeToken(ctx, trx, {
          kind: 'EXTERNAL_FIRST_PASSWORD',
          ttlMs: TOKEN_TTL_MS.invitation,
          userId: user.id,
          email: user.email,
          institutionId,
          language,
          payload: { tagId },
          status: 'INVITE_SEND',
        });
        await queueMail(
          ctx,
          {
            kind: 'externalFirstPassword',
            to: user.email,
            language,
            link: mailLink(ctx, '/password/reset', { token: issued.token, language }),
            institutionName: institution.name,
            institutionId,
            params: { name: user.name, tag: tag.tag },
          },
          trx,
        );
      }
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(ServerMessage.userAlreadyExists);
    throw error;
  }
  await auditAdmin(ctx, request, auth, 'TAG_USER_ADDED', institution.code, { tagId, userId: user.id });
  return { created: !existing, user: tagUserView(user) };
}

export async function removeTagUser(
  ctx: AppContext,
  request: FastifyRequest,
  auth: AuthContext,
  institutionId: string,
  tagId: string,
  userId: string,
) {
  const { tag, institution } = await tagOf(ctx, auth, institutionId, tagId);
  if (!(await removeTagMember(ctx.db, tag.id, userId))) throw notFound(AccountMessage.userNotFound);
  await auditAdmin(ctx, request, auth, 'TAG_USER_REMOVED', institution.code, { tagId, userId });
}
