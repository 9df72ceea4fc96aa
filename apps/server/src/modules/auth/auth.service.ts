import type { FastifyRequest } from 'fastify';
import { ServerMessage } from '@portal/shared/errors';
import { AuthMessage, mfaNeedsValidationMessage, PasskeyMessage } from '@portal/shared/messages';
import type { LoginInput, SessionUser } from '@portal/shared/schemas/auth';
import type { passkeySignInBody } from '@portal/shared/schemas/passkeys';
import { formatCpf, maskCpf, parseBrDate } from '@portal/shared/formats';
import type { z } from 'zod';
import type { AppContext } from '../../context.js';
import { AppError, badRequest, forbidden, notFound, unauthorized } from '../../lib/errors.js';
import { verifyPassword } from '../../lib/passwords.js';
import { recordAudit } from '../../plugins/audit.js';
import { type AuthContext, issueSession, PasswordChangedMeanwhile, revokeSession } from '../../plugins/auth.js';
import { type Attempt, attemptSubject, guarded, type ThrottleKeys } from '../../plugins/throttle.js';
import {
  type AccountRow,
  countPatientProtocols,
  findAccountByCpf,
  findAccountByEmail,
  findAccountById,
  findProtocolsByNumber,
  findProtocolsByPatientEmail,
  institutionCodeById,
  type ProtocolCandidate,
  sessionProtocolSummary,
  shareEnd,
  shareOpeningFacts,
} from './auth.repository.js';
import {
  appKeyDecision,
  classifyUserName,
  guestUsername,
  isAdministrationType,
  roleOfUserType,
} from './auth.policy.js';
import { asChannel, checkCode, sendCode } from './mfa.service.js';
import { claimAssertion, PasskeyRefused, verifyAssertion } from './passkeys.service.js';

/** A unique login opens at most this many protocols; each one costs an argon2 check. */
const UNIQUE_LOGIN_MAX_PROTOCOLS = 200;

export interface LoginResult {
  accessToken: string;
  user: SessionUser;
}

type Failure = { kind: string; reason: string; userId?: string | null; protocolIds?: string[]; tenant?: string | null };

/**
 * Signs in by account e-mail, CPF, patient e-mail (unique login) or protocol number
 * (contract 3 and 8). Every guess is throttled per subject and per client address before any
 * secret is checked.
 */
export async function login(ctx: AppContext, input: LoginInput, request: FastifyRequest): Promise<LoginResult> {
  const name = classifyUserName(input.userName);
  const address = request.ip;

  if (name.kind === 'cpf' && !name.valid) throw badRequest(ServerMessage.cpfInvalid);

  // One counter per account, whichever of its names is typed; one per protocol number.
  if (name.kind === 'email') {
    const account = await findAccountByEmail(ctx.db, name.email);
    const subject = account ? attemptSubject.account(account.id) : attemptSubject.email(name.email);
    return settle(ctx, request, { subject, address }, (attempt) =>
      loginByEmail(ctx, input, name.email, account, request, attempt),
    );
  }
  if (name.kind === 'cpf' || name.kind === 'digits') {
    const account = await findAccountByCpf(ctx.db, name.digits, formatCpf(name.digits));
    if (account || name.kind === 'cpf') {
      const subject = account ? attemptSubject.account(account.id) : attemptSubject.cpf(name.digits);
      return settle(ctx, request, { subject, address }, (attempt) => loginByCpf(ctx, input, account, request, attempt));
    }
  }
  const number = name.kind === 'protocol' ? name.number : name.digits;
  return settle(ctx, request, { subject: attemptSubject.protocol(number), address }, () =>
    loginByProtocol(ctx, input, number, request),
  );
}

class LoginFailure extends Error {
  constructor(
    readonly error: AppError,
    readonly audit: Failure,
  ) {
    super(error.message);
  }
}

const fail = (error: AppError, audit: Failure) => new LoginFailure(error, audit);

/**
 * Runs a sign-in through the attempt gate: a failure stays counted (the claim is kept) and is
 * traced as LOGIN_FAILED, without the typed user name or password.
 */
async function settle(
  ctx: AppContext,
  request: FastifyRequest,
  keys: ThrottleKeys,
  run: (attempt: Attempt) => Promise<LoginResult>,
): Promise<LoginResult> {
  try {
    return await guarded(ctx, keys, run);
  } catch (error) {
    if (!(error instanceof LoginFailure)) throw error;
    const protocolIds = error.audit.protocolIds?.length ? error.audit.protocolIds : [null];
    for (const protocolId of protocolIds.slice(0, 20)) {
      await recordAudit(
        ctx,
        {
          event: 'LOGIN_FAILED',
          tenant: error.audit.tenant ?? null,
          protocolId,
          systemUser: error.audit.userId ? { id: error.audit.userId, name: null, role: null } : null,
          resource: { type: 'LOGIN', method: error.audit.kind },
          macro: { reason: error.audit.reason, status: error.error.statusCode },
        },
        request,
      );
    }
    throw error.error;
  }
}

async function loginByEmail(
  ctx: AppContext,
  input: LoginInput,
  email: string,
  account: AccountRow | undefined,
  request: FastifyRequest,
  attempt: Attempt,
): Promise<LoginResult> {
  if (await verifyPassword(account?.passwordHash, input.password)) {
    return accountSession(ctx, input, account!, request, attempt, 'EMAIL');
  }
  // Not the account's password: maybe the protocol password of this patient e-mail's protocols.
  const protocols = await findProtocolsByPatientEmail(ctx.db, email, input.customLogin, UNIQUE_LOGIN_MAX_PROTOCOLS);
  const matching = await matchingProtocols(protocols, input.password);
  if (matching.length > 0) {
    return guestSession(ctx, request, matching, email, input.customLogin, 'UNIQUE_LOGIN');
  }
  if (account) {
    throw fail(unauthorized(ServerMessage.invalidCredentials), {
      kind: 'EMAIL',
      reason: 'WRONG_PASSWORD',
      userId: account.id,
    });
  }
  throw fail(notFound(ServerMessage.protocolOrEmailDoesNotExist), {
    kind: 'EMAIL',
    reason: protocols.length > 0 ? 'WRONG_PROTOCOL_PASSWORD' : 'UNKNOWN',
    protocolIds: protocols.map((p) => p.id),
  });
}

async function loginByCpf(
  ctx: AppContext,
  input: LoginInput,
  account: AccountRow | undefined,
  request: FastifyRequest,
  attempt: Attempt,
): Promise<LoginResult> {
  const ok = await verifyPassword(account?.passwordHash, input.password);
  if (!account) throw fail(notFound(ServerMessage.documentNotFound), { kind: 'CPF', reason: 'UNKNOWN' });
  if (!ok) {
    throw fail(unauthorized(ServerMessage.invalidCredentials), {
      kind: 'CPF',
      reason: 'WRONG_PASSWORD',
      userId: account.id,
    });
  }
  return accountSession(ctx, input, account, request, attempt, 'CPF');
}

async function loginByProtocol(
  ctx: AppContext,
  input: LoginInput,
  number: string,
  request: FastifyRequest,
): Promise<LoginResult> {
  const protocols = await findProtocolsByNumber(ctx.db, number, input.customLogin);
  const matching = await matchingProtocols(protocols, input.password);
  if (protocols.length === 0) {
    // The same hashing time as a known protocol, so timing does not reveal which numbers exist.
    await verifyPassword(null, input.password);
    throw fail(notFound(ServerMessage.protocolOrEmailDoesNotExist), { kind: 'PROTOCOL', reason: 'UNKNOWN' });
  }
  const audit = { kind: 'PROTOCOL', protocolIds: protocols.map((p) => p.id), tenant: protocols[0]!.institutionCode };
  if (matching.length === 0) {
    throw fail(unauthorized(ServerMessage.passwordsNotTheSame), { ...audit, reason: 'WRONG_PASSWORD' });
  }
  // The birth date is checked only after the password, so it cannot be probed without it.
  let opened = matching;
  if (input.dateOfBirth) {
    const birth = parseBrDate(input.dateOfBirth);
    opened = matching.filter((p) => birth !== null && p.patientBirthDate.slice(0, 10) === birth);
    if (opened.length === 0) {
      throw fail(notFound(ServerMessage.protocolNotFoundWithDate), { ...audit, reason: 'WRONG_BIRTH_DATE' });
    }
  }
  return guestSession(ctx, request, opened, number, input.customLogin, 'PROTOCOL');
}

/** The protocols whose password is this one (each has its own salted hash). */
async function matchingProtocols(protocols: ProtocolCandidate[], password: string): Promise<ProtocolCandidate[]> {
  const matching: ProtocolCandidate[] = [];
  // One at a time: argon2 takes 19 MiB per check, and the machine's cores are shared.
  for (const p of protocols) if (await verifyPassword(p.passwordHash, password)) matching.push(p);
  return matching;
}

async function guestSession(
  ctx: AppContext,
  request: FastifyRequest,
  protocols: ProtocolCandidate[],
  username: string,
  customLogin: string | undefined,
  method: 'PROTOCOL' | 'UNIQUE_LOGIN',
): Promise<LoginResult> {
  const live = protocols.filter((p) => p.disabled === 0);
  if (live.length === 0) {
    throw fail(forbidden(ServerMessage.protocolOrEmailDisabled), {
      kind: method,
      reason: 'DISABLED',
      protocolIds: protocols.map((p) => p.id),
      tenant: protocols[0]?.institutionCode,
    });
  }
  const codes = new Set(live.map((p) => p.institutionCode));
  const institutionCode = customLogin ?? (codes.size === 1 ? live[0]!.institutionCode : null);
  const session = await issueSession(ctx, {
    role: 'GUEST',
    username,
    institutionCode,
    appKey: 'login',
    protocolIds: live.map((p) => p.id),
  });
  for (const p of live) {
    await recordAudit(
      ctx,
      {
        event: 'LOGIN',
        tenant: p.institutionCode,
        protocolId: p.id,
        systemUser: { id: null, name: p.patientName, role: 'GUEST' },
        resource: { type: 'LOGIN', method, sessionId: session.sessionId },
      },
      request,
    );
  }
  const first = live[0]!;
  return {
    accessToken: session.accessToken,
    user: {
      identifier: username,
      username: guestUsername(username, session.sessionId),
      name: first.patientName,
      birthdate: first.patientBirthDate.slice(0, 10),
      personalInfo: null,
      ...NO_FLAGS,
      adminInstitutionID: null,
      countProtocols: live.length,
      role: 'GUEST',
    },
  };
}

const NO_FLAGS = {
  isUserType: false,
  isPhysicianType: false,
  isExternalType: false,
  isAdminType: false,
  isCompanyType: false,
} as const;

/** The account's password was right: the remaining gates, then MFA, then the session. */
async function accountSession(
  ctx: AppContext,
  input: LoginInput,
  account: AccountRow,
  request: FastifyRequest,
  attempt: Attempt,
  method: 'EMAIL' | 'CPF',
): Promise<LoginResult> {
  let passkeyId: string | null = null;
  const audit = { kind: method, userId: account.id };
  checkAccountGates(account, input.appKey, method);

  let secondFactor: 'CODE' | 'PASSKEY' | null = null;
  if (account.mfaEnabled && input.passkey) {
    // A passkey of this account in place of the SMS code.
    try {
      const claimed = await claimAssertion(ctx, input.passkey);
      if (claimed.passkey.userId !== account.id) {
        throw new PasskeyRefused(unauthorized(PasskeyMessage.passkeyRejected), 'PASSKEY_REJECTED', null);
      }
      await verifyAssertion(ctx, input.passkey, claimed);
      secondFactor = 'PASSKEY';
      passkeyId = claimed.passkey.id;
    } catch (error) {
      if (!(error instanceof PasskeyRefused)) throw error;
      throw fail(error.error, { ...audit, reason: `MFA_${error.reason}` });
    }
  } else if (account.mfaEnabled) {
    secondFactor = 'CODE';
    const phone = account.mfaPhone ?? account.phoneMobile;
    if (!input.tokenMFA) {
      if (phone) {
        // A code sent less than 30 s ago (or the phone's hourly five) is still the one to type.
        await sendCode(ctx, account, 'LOGIN', phone, asChannel(account.mfaChannel)).catch((error: unknown) => {
          if (!(error instanceof AppError && error.statusCode === 429)) throw error;
        });
      } else {
        ctx.log.warn({ userId: account.id }, 'MFA is on but the account has no phone');
      }
      // The password was right: not a failure. The code is what must be guessed now.
      await attempt.succeeded();
      throw badRequest(mfaNeedsValidationMessage(input.userName.trim()));
    }
    if (!(await checkCode(ctx, account.id, 'LOGIN', input.tokenMFA))) {
      throw fail(unauthorized(AuthMessage.mfaTokenInvalid), { ...audit, reason: 'WRONG_MFA_TOKEN' });
    }
  }

  return openAccountSession(ctx, account, input, request, method, {
    mfa: !!account.mfaEnabled,
    ...(secondFactor ? { secondFactor } : {}),
    ...(passkeyId ? { passkeyId } : {}),
  });
}

/**
 * What every way into an account checks besides its secret: disabled, waiting for an
 * institution, not activated, the right interface (password and passkey sign-ins alike).
 */
function checkAccountGates(account: AccountRow, appKey: LoginInput['appKey'], method: string): void {
  const audit = { kind: method, userId: account.id };
  if (account.disabled && account.awaitingInstitutionId) {
    throw fail(forbidden(ServerMessage.accountAwaitingInstitution), { ...audit, reason: 'AWAITING_INSTITUTION' });
  }
  if (account.disabled) {
    throw fail(forbidden(ServerMessage.protocolOrEmailDisabled), { ...audit, reason: 'DISABLED' });
  }
  if (!account.active) {
    throw fail(forbidden(ServerMessage.accountNotActivated), { ...audit, reason: 'NOT_ACTIVATED' });
  }
  const gate = appKeyDecision(account.type, appKey);
  if (gate === 'needsAdminInterface') {
    throw fail(forbidden(ServerMessage.needsAdminInterface), { ...audit, reason: 'ADMIN_INTERFACE' });
  }
  if (gate === 'adminOnly') {
    throw fail(forbidden(AuthMessage.adminLoginOnly), { ...audit, reason: 'NOT_ADMIN' });
  }
}

/** The session of an account that passed every check, and its LOGIN trace. */
async function openAccountSession(
  ctx: AppContext,
  account: AccountRow,
  input: { appKey: LoginInput['appKey']; customLogin?: string | undefined },
  request: FastifyRequest,
  method: 'EMAIL' | 'CPF' | 'PASSKEY',
  facts: Record<string, unknown>,
): Promise<LoginResult> {
  const role = roleOfUserType(account.type);
  const institutionCode = isAdministrationType(account.type)
    ? await institutionCodeById(ctx.db, account.institutionId)
    : (input.customLogin ?? null);
  let session: Awaited<ReturnType<typeof issueSession>>;
  try {
    session = await issueSession(ctx, {
      role,
      userId: account.id,
      username: account.email,
      institutionCode,
      appKey: input.appKey,
      // A password sign-in opens a session only under the password it checked.
      ...(method === 'PASSKEY' ? {} : { passwordHash: account.passwordHash }),
    });
  } catch (error) {
    if (!(error instanceof PasswordChangedMeanwhile)) throw error;
    throw fail(unauthorized(ServerMessage.invalidCredentials), {
      kind: method,
      reason: 'PASSWORD_CHANGED',
      userId: account.id,
    });
  }
  await recordAudit(
    ctx,
    {
      event: 'LOGIN',
      tenant: institutionCode,
      systemUser: { id: account.id, name: account.name, role },
      resource: {
        type: 'LOGIN',
        method,
        sessionId: session.sessionId,
        appKey: input.appKey,
        ...facts,
      },
    },
    request,
  );
  return { accessToken: session.accessToken, user: await accountUser(ctx, account, role) };
}

/**
 * Signs in with a passkey alone (the login page's conditional UI). The challenge is taken out
 * first, so of many answers to one challenge only one goes further; the signature is then checked
 * under the account's attempt gate, and the account passes the same checks as with a password.
 * The passkey, user-verified, stands for both factors: no SMS code is asked.
 */
export async function passkeySignIn(
  ctx: AppContext,
  input: z.output<typeof passkeySignInBody>,
  request: FastifyRequest,
): Promise<LoginResult> {
  let claimed: Awaited<ReturnType<typeof claimAssertion>>;
  try {
    claimed = await claimAssertion(ctx, input);
  } catch (error) {
    if (!(error instanceof PasskeyRefused)) throw error;
    await recordAudit(
      ctx,
      {
        event: 'LOGIN_FAILED',
        systemUser: error.passkey ? { id: error.passkey.userId, name: null, role: null } : null,
        resource: { type: 'LOGIN', method: 'PASSKEY' },
        macro: { reason: error.reason, status: error.error.statusCode },
      },
      request,
    );
    throw error.error;
  }
  const account = await findAccountById(ctx.db, claimed.passkey.userId);
  if (!account) throw unauthorized(PasskeyMessage.passkeyNotRecognized);
  const keys = { subject: attemptSubject.account(account.id), address: request.ip };
  return settle(ctx, request, keys, async () => {
    try {
      await verifyAssertion(ctx, input, claimed);
    } catch (error) {
      if (!(error instanceof PasskeyRefused)) throw error;
      throw fail(error.error, { kind: 'PASSKEY', userId: account.id, reason: error.reason });
    }
    checkAccountGates(account, 'login', 'PASSKEY');
    return openAccountSession(ctx, account, { appKey: 'login', customLogin: input.customLogin }, request, 'PASSKEY', {
      passkeyId: claimed.passkey.id,
      mfa: !!account.mfaEnabled,
    });
  });
}

async function accountUser(ctx: AppContext, account: AccountRow, role: AuthContext['role']): Promise<SessionUser> {
  return {
    identifier: account.id,
    username: account.email,
    name: account.name,
    birthdate: account.birth ? account.birth.slice(0, 10) : null,
    personalInfo: account.cpf ? maskCpf(account.cpf) || null : null,
    isUserType: account.type === 'PATIENT',
    isPhysicianType: account.type === 'PHYSICIAN',
    isExternalType: account.type === 'EXTERNAL',
    isAdminType: account.type === 'ADMIN',
    isCompanyType: account.type === 'COMPANY',
    adminInstitutionID: account.type === 'COMPANY' ? account.institutionId : null,
    countProtocols: account.type === 'PATIENT' ? await countPatientProtocols(ctx.db, account.id) : 0,
    role,
  };
}

/** The session user of a valid session (contract 3 and 8). */
export async function sessionUserOf(ctx: AppContext, auth: AuthContext): Promise<SessionUser> {
  // A share session may name the sharing patient; it must never look like his account.
  if (auth.userId && auth.role !== 'GUEST' && auth.role !== 'SHARE') {
    const account = await findAccountById(ctx.db, auth.userId);
    if (!account) throw unauthorized();
    return accountUser(ctx, account, auth.role);
  }
  const summary = await sessionProtocolSummary(ctx.db, auth.sessionId);
  return {
    identifier: auth.username,
    username: guestUsername(auth.username, auth.sessionId),
    name: summary.first?.patientName ?? null,
    birthdate: summary.first?.patientBirthDate.slice(0, 10) ?? null,
    personalInfo: null,
    ...NO_FLAGS,
    adminInstitutionID: null,
    countProtocols: summary.count,
    role: auth.role,
    ...(auth.role === 'SHARE' && auth.shareId ? { shareExpiresAt: await shareEnd(ctx.db, auth.shareId) } : {}),
  };
}

/**
 * `validate` is the first call of the landing page: for a share session it is the moment the
 * recipient opens the link, which the patient's trace must show (SHARE_OPENED, contract 8).
 */
export async function validateSession(
  ctx: AppContext,
  auth: AuthContext,
  request: FastifyRequest,
): Promise<SessionUser> {
  const user = await sessionUserOf(ctx, auth);
  if (auth.role === 'SHARE' && auth.shareId) {
    const facts = await shareOpeningFacts(ctx.db, auth.shareId);
    for (const protocol of facts?.protocols ?? []) {
      await recordAudit(
        ctx,
        {
          event: 'SHARE_OPENED',
          tenant: protocol.institutionCode,
          protocolId: protocol.id,
          resource: { type: 'SHARE', id: auth.shareId, protocolNumber: protocol.number },
          systemUser: { id: null, name: facts?.email ?? null, role: auth.role },
          sharedWith: facts?.email ?? null,
        },
        request,
      );
    }
  }
  return user;
}

export async function logout(ctx: AppContext, auth: AuthContext): Promise<void> {
  await revokeSession(ctx, auth.sessionId);
}
