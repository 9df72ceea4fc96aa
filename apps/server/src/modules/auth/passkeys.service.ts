import type {
  AuthenticationResponseJSON,
  AuthenticatorTransportFuture,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { PasskeyMessage } from '@portal/shared/messages';
import {
  PASSKEY_CHALLENGE_TTL_MS,
  type PasskeyAssertion,
  type PasskeyItem,
  PASSKEYS_PER_ACCOUNT_MAX,
  type registerPasskeyBody,
} from '@portal/shared/schemas/passkeys';
import type { AppContext } from '../../context.js';
import { addMs } from '../../lib/clock.js';
import type { AppError } from '../../lib/errors.js';
import { badRequest, conflict, forbidden, notFound, unauthorized } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { onFirstUse } from '../../lib/on-first-use.js';
import { recordAudit } from '../../plugins/audit.js';
import type { AuthContext } from '../../plugins/auth.js';
import { claimRate } from '../../plugins/throttle.js';
import { findAccountById } from './auth.repository.js';
import {
  type ChallengePurpose,
  consumeChallenge,
  countPasskeys,
  deletePasskeyKeepingAWayIn,
  findOwnPasskey,
  findPasskeyByCredentialId,
  insertChallenge,
  insertPasskeyWithinLimit,
  listPasskeys,
  markPasskeyUsed,
  type PasskeyRow,
  renamePasskey,
} from './passkeys.repository.js';

/*
 * Passkeys (WebAuthn) with @simplewebauthn/server: registration from the account screen, sign-in
 * with a passkey alone, and a passkey as the second factor in place of an SMS code. Challenges are
 * kept in the database and taken out as they are answered, so each one serves once, whichever
 * server process answers.
 */

/** The WebAuthn library, loaded with the first passkey call. */
const webAuthn = onFirstUse(async () => ({
  ...(await import('@simplewebauthn/server')),
  isoBase64URL: (await import('@simplewebauthn/server/helpers')).isoBase64URL,
}));

/** Who may hold passkeys: the people of the patient app. */
const PASSKEY_ROLES = new Set(['PATIENT', 'PHYSICIAN', 'EXTERNAL']);

/** Sign-in challenges handed to one client address (the login page asks one per visit). */
const OPTIONS_LIMITS = { max: 300, windowMs: 15 * 60_000, minIntervalMs: 0 } as const;

const parseTransports = (value: string): AuthenticatorTransportFuture[] => {
  try {
    const list: unknown = JSON.parse(value);
    return Array.isArray(list) ? (list.filter((t) => typeof t === 'string') as AuthenticatorTransportFuture[]) : [];
  } catch {
    return [];
  }
};

export function passkeyItem(row: PasskeyRow): PasskeyItem {
  return {
    id: row.id,
    name: row.name,
    deviceType: row.deviceType,
    backedUp: row.backedUp === 1,
    transports: parseTransports(row.transports),
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
  };
}

async function newChallenge(ctx: AppContext, purpose: ChallengePurpose, userId: string | null, challenge: string) {
  const now = ctx.clock.now();
  const id = newId();
  await insertChallenge(ctx.db, {
    id,
    purpose,
    userId,
    challenge,
    createdAt: now.toISOString(),
    expiresAt: addMs(now, PASSKEY_CHALLENGE_TTL_MS).toISOString(),
  });
  return id;
}

/** The signed-in account that manages its passkeys; other sessions are refused. */
async function passkeyOwner(ctx: AppContext, auth: AuthContext) {
  if (!auth.userId || !PASSKEY_ROLES.has(auth.role)) throw forbidden(PasskeyMessage.passkeysNotAllowed);
  const user = await findAccountById(ctx.db, auth.userId);
  if (!user) throw notFound();
  return user;
}

/** The WebAuthn user handle of an account: its id's bytes (no personal data). */
const userHandleOf = (userId: string) => new TextEncoder().encode(userId);

export async function registrationOptions(ctx: AppContext, auth: AuthContext) {
  const user = await passkeyOwner(ctx, auth);
  const existing = await listPasskeys(ctx.db, user.id);
  if (existing.length >= PASSKEYS_PER_ACCOUNT_MAX) throw conflict(PasskeyMessage.tooManyPasskeys);
  const { rpId, rpName } = ctx.config.webauthn;
  const { generateRegistrationOptions } = await webAuthn();
  const options = await generateRegistrationOptions({
    rpName,
    rpID: rpId,
    userName: user.email,
    userDisplayName: user.name,
    userID: userHandleOf(user.id),
    attestationType: 'none',
    timeout: PASSKEY_CHALLENGE_TTL_MS,
    excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: parseTransports(p.transports) })),
    // Discoverable and verified: the passkey alone signs in, and stands for two factors.
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  const challengeId = await newChallenge(ctx, 'REGISTER', user.id, options.challenge);
  return { challengeId, options: options as unknown as Record<string, unknown> };
}

export async function registerPasskey(
  ctx: AppContext,
  auth: AuthContext,
  input: z.output<typeof registerPasskeyBody>,
  request: FastifyRequest,
): Promise<PasskeyItem> {
  const user = await passkeyOwner(ctx, auth);
  const now = ctx.clock.now().toISOString();
  const challenge = await consumeChallenge(ctx.db, input.challengeId, 'REGISTER', now);
  if (!challenge || challenge.userId !== user.id) throw badRequest(PasskeyMessage.challengeInvalid);
  const { rpId, origins } = ctx.config.webauthn;
  const { verifyRegistrationResponse, isoBase64URL } = await webAuthn();
  const verification = await verifyRegistrationResponse({
    response: input.credential as RegistrationResponseJSON,
    expectedChallenge: challenge.challenge,
    expectedOrigin: origins,
    expectedRPID: rpId,
    requireUserVerification: true,
  }).catch((error: unknown) => {
    ctx.log.info({ userId: user.id, reason: error instanceof Error ? error.message : 'unknown' }, 'passkey refused');
    return { verified: false as const };
  });
  if (!verification.verified) throw badRequest(PasskeyMessage.passkeyRejected);
  const info = verification.registrationInfo;
  if (await findPasskeyByCredentialId(ctx.db, info.credential.id)) {
    throw conflict(PasskeyMessage.passkeyAlreadyRegistered);
  }
  const candidate = {
    id: newId(),
    userId: user.id,
    credentialId: info.credential.id,
    publicKey: isoBase64URL.fromBuffer(info.credential.publicKey),
    counter: info.credential.counter,
    transports: JSON.stringify(info.credential.transports ?? input.credential.response.transports ?? []),
    name: input.name,
    deviceType: info.credentialDeviceType,
    backedUp: info.credentialBackedUp ? 1 : 0,
    createdAt: now,
    lastUsedAt: null,
  };
  let row: PasskeyRow | null;
  try {
    row = await insertPasskeyWithinLimit(ctx.db, ctx.dialect, candidate, PASSKEYS_PER_ACCOUNT_MAX);
  } catch (error) {
    // Two registrations of the same authenticator in flight: the unique credential id decides.
    if (await findPasskeyByCredentialId(ctx.db, candidate.credentialId)) {
      throw conflict(PasskeyMessage.passkeyAlreadyRegistered);
    }
    throw error;
  }
  if (!row) throw conflict(PasskeyMessage.tooManyPasskeys);
  await recordAudit(
    ctx,
    {
      event: 'PASSKEY_REGISTERED',
      systemUser: { id: user.id, name: user.name, role: auth.role },
      resource: { type: 'PASSKEY', id: row.id, deviceType: row.deviceType },
    },
    request,
  );
  return passkeyItem(row);
}

export async function listOwnPasskeys(ctx: AppContext, auth: AuthContext): Promise<PasskeyItem[]> {
  const user = await passkeyOwner(ctx, auth);
  return (await listPasskeys(ctx.db, user.id)).map(passkeyItem);
}

export async function renameOwnPasskey(
  ctx: AppContext,
  auth: AuthContext,
  id: string,
  name: string,
  request: FastifyRequest,
): Promise<PasskeyItem> {
  const user = await passkeyOwner(ctx, auth);
  if (!(await renamePasskey(ctx.db, user.id, id, name))) throw notFound();
  const row = await findOwnPasskey(ctx.db, user.id, id);
  if (!row) throw notFound();
  await recordAudit(
    ctx,
    {
      event: 'PASSKEY_RENAMED',
      systemUser: { id: user.id, name: user.name, role: auth.role },
      resource: { type: 'PASSKEY', id },
    },
    request,
  );
  return passkeyItem(row);
}

export async function removeOwnPasskey(
  ctx: AppContext,
  auth: AuthContext,
  id: string,
  request: FastifyRequest,
): Promise<boolean> {
  const user = await passkeyOwner(ctx, auth);
  // The password stays a way in; an account without one keeps its last passkey.
  const outcome = await deletePasskeyKeepingAWayIn(ctx.db, ctx.dialect, user.id, id);
  if (outcome === 'missing') throw notFound();
  if (outcome === 'last') throw conflict(PasskeyMessage.lastSignInMethod);
  await recordAudit(
    ctx,
    {
      event: 'PASSKEY_REMOVED',
      systemUser: { id: user.id, name: user.name, role: auth.role },
      resource: { type: 'PASSKEY', id, remaining: await countPasskeys(ctx.db, user.id) },
    },
    request,
  );
  return true;
}

/** A sign-in challenge (for a passkey alone or as the second factor); any discoverable passkey answers. */
export async function signInOptions(ctx: AppContext, request: FastifyRequest) {
  await claimRate(ctx, `passkey-options:${request.ip}`, OPTIONS_LIMITS);
  const { generateAuthenticationOptions } = await webAuthn();
  const options = await generateAuthenticationOptions({
    rpID: ctx.config.webauthn.rpId,
    userVerification: 'required',
    timeout: PASSKEY_CHALLENGE_TTL_MS,
  });
  const challengeId = await newChallenge(ctx, 'SIGN_IN', null, options.challenge);
  return { challengeId, options: options as unknown as Record<string, unknown> };
}

/** Why a passkey answer was refused (for the trace) and what the client is told. */
export class PasskeyRefused extends Error {
  constructor(
    readonly error: AppError,
    readonly reason: 'CHALLENGE_INVALID' | 'UNKNOWN_PASSKEY' | 'PASSKEY_REJECTED',
    readonly passkey: PasskeyRow | null,
  ) {
    super(error.message);
  }
}

/** Takes the challenge out (single use) and finds the passkey that claims to answer it. */
export async function claimAssertion(
  ctx: AppContext,
  assertion: PasskeyAssertion,
): Promise<{ challenge: string; passkey: PasskeyRow }> {
  const passkey = (await findPasskeyByCredentialId(ctx.db, assertion.credential.id)) ?? null;
  const challenge = await consumeChallenge(ctx.db, assertion.challengeId, 'SIGN_IN', ctx.clock.now().toISOString());
  if (!challenge) throw new PasskeyRefused(unauthorized(PasskeyMessage.challengeInvalid), 'CHALLENGE_INVALID', passkey);
  if (!passkey) throw new PasskeyRefused(unauthorized(PasskeyMessage.passkeyNotRecognized), 'UNKNOWN_PASSKEY', null);
  return { challenge: challenge.challenge, passkey };
}

/**
 * Checks the signature over the claimed challenge with the passkey's public key (user verified,
 * this portal's origin and RP ID, the counter never moving back) and records the use.
 */
export async function verifyAssertion(
  ctx: AppContext,
  assertion: PasskeyAssertion,
  claimed: { challenge: string; passkey: PasskeyRow },
): Promise<void> {
  const { passkey } = claimed;
  const { rpId, origins } = ctx.config.webauthn;
  const handle = assertion.credential.response.userHandle;
  const rejected = () => new PasskeyRefused(unauthorized(PasskeyMessage.passkeyRejected), 'PASSKEY_REJECTED', passkey);
  const { verifyAuthenticationResponse, isoBase64URL } = await webAuthn();
  if (handle && handle !== isoBase64URL.fromBuffer(userHandleOf(passkey.userId))) throw rejected();
  const result = await verifyAuthenticationResponse({
    response: assertion.credential as AuthenticationResponseJSON,
    expectedChallenge: claimed.challenge,
    expectedOrigin: origins,
    expectedRPID: rpId,
    credential: {
      id: passkey.credentialId,
      publicKey: isoBase64URL.toBuffer(passkey.publicKey),
      counter: Number(passkey.counter),
      transports: parseTransports(passkey.transports),
    },
    requireUserVerification: true,
  }).catch((error: unknown) => {
    ctx.log.info(
      { passkeyId: passkey.id, reason: error instanceof Error ? error.message : 'unknown' },
      'passkey assertion refused',
    );
    return null;
  });
  if (!result?.verified) throw rejected();
  await markPasskeyUsed(ctx.db, passkey.id, result.authenticationInfo.newCounter, ctx.clock.now().toISOString());
}
