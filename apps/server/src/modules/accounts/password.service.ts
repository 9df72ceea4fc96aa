import type { FastifyRequest } from 'fastify';
import { ServerMessage } from '@portal/shared/errors';
import { DEFAULT_LANGUAGE, TOKEN_TTL_MS } from '@portal/shared/limits';
import { AccountMessage } from '@portal/shared/messages';
import { EMAIL_PATTERN } from '@portal/shared/formats';
import type { AppContext } from '../../context.js';
import { AppError, badRequest, conflict, notFound } from '../../lib/errors.js';
import { hashPassword, verifyPassword } from '../../lib/passwords.js';
import { type AuthContext, revokeUserSessions } from '../../plugins/auth.js';
import { attemptSubject, beginAttempt, forgetFailures, guarded } from '../../plugins/throttle.js';
import { queueMail } from '../outbox/outbox.service.js';
import { findUserByEmail, findUserById, retireOneTimeTokens, updateUser, type UserRow } from './accounts.repository.js';
import { mailLink } from './links.js';
import { consumeToken, findLiveToken, issueOneTimeToken } from './one-time-tokens.js';
import { assertAcceptablePassword } from './password-policy.js';
import { isUniqueViolation } from '../../db/database.js';
import { normalizeEmail } from './registration.service.js';

const RESET_KINDS = ['RESET', 'EXTERNAL_FIRST_PASSWORD'] as const;

/*
 * Password recovery answers 404 'User not found.' for an unknown e-mail, because the spec's screen
 * shows 'Usuario nao encontrado'. That tells whether an address has an account, so every request
 * counts against the address (contract 8 ceiling) and against the e-mail (lock from the 5th in
 * 12 h), which also keeps the portal from being used to flood a mailbox.
 */
export async function forgotPassword(
  ctx: AppContext,
  request: FastifyRequest,
  username: string,
  language: string | null | undefined,
): Promise<void> {
  const email = username.trim().toLowerCase();
  if (!EMAIL_PATTERN.test(email))
    throw badRequest(ServerMessage.validation, [{ field: 'username', message: 'invalid e-mail' }]);
  // Claimed and never given back: every request counts (see above).
  await beginAttempt(ctx, { subject: attemptSubject.recovery(email), address: request.ip });
  const user = await findUserByEmail(ctx.db, email);
  if (!user || user.disabled) throw notFound(AccountMessage.userNotFound);
  const lang = language ?? user.language ?? DEFAULT_LANGUAGE;
  await ctx.db.transaction().execute(async (trx) => {
    await retireOneTimeTokens(trx, email, ['RESET'], ctx.clock.now().toISOString());
    const reset = await issueOneTimeToken(ctx, trx, {
      kind: 'RESET',
      ttlMs: TOKEN_TTL_MS.reset,
      userId: user.id,
      email,
      language: lang,
    });
    await queueMail(
      ctx,
      {
        kind: 'passwordRecovery',
        to: email,
        language: lang,
        link: mailLink(ctx, '/password/reset', { token: reset.token, language: lang }),
        params: { name: user.name },
      },
      trx,
    );
  });
}

/** isValidToken: the e-mail the reset form shows read-only. */
export async function resetTokenEmail(ctx: AppContext, token: string): Promise<string> {
  const row = await findLiveToken(ctx, ctx.db, token, [...RESET_KINDS]);
  return row.email ?? '';
}

/**
 * Sets a new password from a reset or first-password link: single use; ends every session of the
 * account (whoever had the old password is out); activates the account (the link proved the mailbox).
 */
export async function resetPassword(
  ctx: AppContext,
  body: {
    token: string;
    password?: string | null;
    newPassword?: string | null;
    confirmPassword?: string | null;
    confirmNewPassword?: string | null;
    username?: string | null;
    email?: string | null;
  },
): Promise<void> {
  const row = await findLiveToken(ctx, ctx.db, body.token, [...RESET_KINDS]);
  const claimed = (body.username ?? body.email ?? '').trim().toLowerCase();
  if (claimed && claimed !== row.email) throw notFound(ServerMessage.tokenNotFound);
  const password = assertAcceptablePassword(
    body.password ?? body.newPassword,
    body.confirmPassword ?? body.confirmNewPassword,
  );
  const user = row.userId ? await findUserById(ctx.db, row.userId) : await findUserByEmail(ctx.db, row.email ?? '');
  if (!user || user.disabled) throw notFound(ServerMessage.tokenNotFound);
  const passwordHash = await hashPassword(password);
  // The new password and the end of the sessions commit together: see changePassword.
  await ctx.db.transaction().execute(async (trx) => {
    await consumeToken(ctx, trx, row);
    await updateUser(trx, user.id, { passwordHash, active: 1, updatedAt: ctx.clock.now().toISOString() });
    await revokeUserSessions(ctx, user.id, undefined, trx);
  });
  await forgetFailures(ctx, attemptSubject.recovery(user.email));
}

async function accountOf(ctx: AppContext, auth: AuthContext): Promise<UserRow> {
  if (!auth.userId) throw new AppError(403, ServerMessage.forbidden);
  const user = await findUserById(ctx.db, auth.userId);
  if (!user) throw notFound(AccountMessage.userNotFound);
  return user;
}

/*
 * A stolen session must not be enough to take the account over: changing the password or the
 * e-mail asks for the current password, and guesses at it go through the attempt gate under the
 * account's one counter (the one its sign-ins use).
 */
async function assertCurrentPassword(
  ctx: AppContext,
  request: FastifyRequest,
  user: UserRow,
  currentPassword: string | null | undefined,
) {
  if (!currentPassword) throw badRequest(ServerMessage.actualPasswordNotInformed);
  await guarded(ctx, { subject: attemptSubject.account(user.id), address: request.ip }, async () => {
    if (!(await verifyPassword(user.passwordHash, currentPassword))) {
      throw badRequest(ServerMessage.actualPasswordIncorrect);
    }
  });
}

export async function changePassword(
  ctx: AppContext,
  request: FastifyRequest,
  auth: AuthContext,
  body: { currentPassword?: string | null; newPassword?: string | null; confirmNewPassword?: string | null },
): Promise<void> {
  const user = await accountOf(ctx, auth);
  if (!body.currentPassword) throw badRequest(ServerMessage.actualPasswordNotInformed);
  if (!body.newPassword) throw badRequest(ServerMessage.newPasswordNotInformed);
  await assertCurrentPassword(ctx, request, user, body.currentPassword);
  const password = assertAcceptablePassword(body.newPassword, body.confirmNewPassword);
  const passwordHash = await hashPassword(password);
  // The new password and the end of the other sessions commit together, and a sign-in checked
  // against the old password makes its session only while that is still the account's
  // (issueSession): one in flight across the change is refused, or made before and ended here.
  await ctx.db.transaction().execute(async (trx) => {
    await updateUser(trx, user.id, { passwordHash, updatedAt: ctx.clock.now().toISOString() });
    await revokeUserSessions(ctx, user.id, auth.sessionId, trx);
  });
}

export async function changeEmail(
  ctx: AppContext,
  request: FastifyRequest,
  auth: AuthContext,
  body: { currentPassword?: string | null; newEmail?: string | null; confirmNewEmail?: string | null },
): Promise<{ email: string }> {
  const user = await accountOf(ctx, auth);
  if (!body.currentPassword) throw badRequest(ServerMessage.actualPasswordNotInformed);
  const email = normalizeEmail(body.newEmail);
  if ((body.confirmNewEmail ?? '').trim().toLowerCase() !== email)
    throw badRequest(AccountMessage.emailConfirmationMismatch);
  await assertCurrentPassword(ctx, request, user, body.currentPassword);
  if (email === user.email) return { email };
  const owner = await findUserByEmail(ctx.db, email);
  if (owner) throw conflict(ServerMessage.newEmailInUse);
  try {
    await updateUser(ctx.db, user.id, { email, updatedAt: ctx.clock.now().toISOString() });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(ServerMessage.newEmailInUse);
    throw error;
  }
  // Sessions opened under the old address end; the one that made the change goes on.
  await revokeUserSessions(ctx, user.id, auth.sessionId);
  return { email };
}
