import { createHmac, randomInt } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { ServerMessage } from '@portal/shared/errors';
import { MFA_CODE_MAX_TRIES, MFA_CODE_TTL_MS, MFA_TOKEN_LENGTH } from '@portal/shared/limits';
import { AuthMessage } from '@portal/shared/messages';
import { type MfaChannel, mfaPhoneDigits } from '@portal/shared/schemas/auth';
import { normalizeLanguage } from '@portal/shared/formats';
import type { AppContext } from '../../context.js';
import { addMs } from '../../lib/clock.js';
import { AppError, badRequest, conflict, forbidden, notFound, unauthorized } from '../../lib/errors.js';
import { newId, safeEqual } from '../../lib/ids.js';
import { verifyPassword } from '../../lib/passwords.js';
import { recordAudit } from '../../plugins/audit.js';
import type { AuthContext } from '../../plugins/auth.js';
import { attemptSubject, claimRate, guarded } from '../../plugins/throttle.js';
import { queueSms } from '../outbox/outbox.service.js';
import { findAccountById } from './auth.repository.js';
import { internationalPhone, maskPhone } from './auth.policy.js';
import {
  findLiveCode,
  insertCode,
  type MfaCodeRow,
  type MfaPurpose,
  retireCodes,
  setMfa,
  spendTry,
  useCode,
} from './mfa.repository.js';

/** Codes sent to one phone: one per 30 seconds, five per hour, whoever asks. */
const SEND_LIMITS = { max: 5, windowMs: 3600_000, minIntervalMs: 30_000 } as const;

const SMS_TEXT: Record<string, (code: string) => string> = {
  'pt-br': (code) => `Seu codigo de acesso ao portal de resultados: ${code}. Vale por 10 minutos. Nao o compartilhe.`,
  es: (code) => `Su codigo de acceso al portal de resultados: ${code}. Vale por 10 minutos. No lo comparta.`,
  en: (code) => `Your results portal access code: ${code}. It is valid for 10 minutes. Do not share it.`,
};

/** Codes are kept only as an HMAC bound to their row, user and purpose: a leaked table gives nothing. */
function codeHash(ctx: AppContext, id: string, userId: string, purpose: MfaPurpose, code: string): string {
  return createHmac('sha256', ctx.jwtSecret).update(`mfa\0${id}\0${userId}\0${purpose}\0${code}`).digest('hex');
}

export const asChannel = (value: string | null | undefined): MfaChannel => (value === 'sms' ? 'sms' : 'whatsapp');

/**
 * Sends a fresh 6-digit code to the phone (retiring the user's earlier codes for this purpose).
 * Throws 429 when the phone has had its share of codes.
 */
export async function sendCode(
  ctx: AppContext,
  user: { id: string; language: string },
  purpose: MfaPurpose,
  phone: string,
  channel: MfaChannel,
): Promise<void> {
  const to = internationalPhone(phone);
  // Paced per purpose: the sign-in right after turning MFA on must get its own code at once.
  await claimRate(ctx, `mfa-send:${purpose}:${to}`, SEND_LIMITS);
  const code = String(randomInt(0, 10 ** MFA_TOKEN_LENGTH)).padStart(MFA_TOKEN_LENGTH, '0');
  const now = ctx.clock.now();
  const id = newId();
  const text = SMS_TEXT[normalizeLanguage(user.language) ?? 'pt-br'] ?? SMS_TEXT['pt-br']!;
  await ctx.db.transaction().execute(async (trx) => {
    await retireCodes(trx, user.id, purpose, now.toISOString());
    await insertCode(trx, {
      id,
      userId: user.id,
      purpose,
      phone: to,
      channel,
      codeHash: codeHash(ctx, id, user.id, purpose, code),
      createdAt: now.toISOString(),
      expiresAt: addMs(now, MFA_CODE_TTL_MS).toISOString(),
    });
    await queueSms(ctx, { to, channel, text: text(code) }, trx);
  });
}

/**
 * Checks a code against the user's newest live code for the purpose (and phone, when given).
 * Every check spends a try; a right code is used up and returned.
 */
export async function checkCode(
  ctx: AppContext,
  userId: string,
  purpose: MfaPurpose,
  code: string,
  phone?: string,
): Promise<MfaCodeRow | null> {
  const now = ctx.clock.now().toISOString();
  const live = await findLiveCode(ctx.db, userId, purpose, now, MFA_CODE_MAX_TRIES);
  if (!live) return null;
  if (!(await spendTry(ctx.db, live.id, MFA_CODE_MAX_TRIES))) return null;
  const matches = safeEqual(live.codeHash, codeHash(ctx, live.id, userId, purpose, code.trim()));
  const phoneMatches = phone === undefined || live.phone === internationalPhone(phone);
  if (!matches || !phoneMatches) return null;
  return (await useCode(ctx.db, live.id, now)) ? live : null;
}

const invalidPhone = () =>
  badRequest(AuthMessage.mfaPhoneInvalid, [{ field: 'phoneNumber', message: AuthMessage.mfaPhoneInvalid }]);

/** MFA is managed by patients and physicians on their own account (spec 4.6). */
async function mfaAccount(ctx: AppContext, auth: AuthContext) {
  if ((auth.role !== 'PATIENT' && auth.role !== 'PHYSICIAN') || !auth.userId) throw forbidden();
  const user = await findAccountById(ctx.db, auth.userId);
  if (!user) throw notFound();
  return user;
}

export async function mfaStatus(ctx: AppContext, auth: AuthContext) {
  // A share session may carry the sharing patient's id: his MFA phone is none of its business.
  if (!auth.userId || auth.role === 'GUEST' || auth.role === 'SHARE') throw forbidden();
  const user = await findAccountById(ctx.db, auth.userId);
  if (!user) throw notFound();
  const enabled = user.mfaEnabled === 1;
  return { validate: enabled, phoneNumber: enabled ? maskPhone(user.mfaPhone) : null };
}

/**
 * Sends a code: to the given phone to turn MFA on, or, when it is already on, to the registered
 * phone to turn it off.
 */
export async function generateToken(
  ctx: AppContext,
  auth: AuthContext,
  input: { phoneNumber?: string | null; channel: MfaChannel },
) {
  const user = await mfaAccount(ctx, auth);
  if (user.mfaEnabled === 1 && user.mfaPhone) {
    const channel = asChannel(user.mfaChannel);
    await sendCode(ctx, user, 'INACTIVATE', user.mfaPhone, channel);
    return { sent: true, phoneNumber: maskPhone(user.mfaPhone) ?? '', channel };
  }
  const phone = mfaPhoneDigits(input.phoneNumber);
  if (!phone) throw invalidPhone();
  await sendCode(ctx, user, 'ACTIVATE', phone, input.channel);
  return { sent: true, phoneNumber: maskPhone(phone) ?? '', channel: input.channel };
}

export async function activateToken(
  ctx: AppContext,
  auth: AuthContext,
  input: { phoneNumber: string; tokenValue: string },
  request: FastifyRequest,
) {
  const user = await mfaAccount(ctx, auth);
  if (user.mfaEnabled === 1) throw conflict(ServerMessage.mfaAlreadyEnabled);
  const phone = mfaPhoneDigits(input.phoneNumber);
  if (!phone) throw invalidPhone();
  const used = await guarded(ctx, { subject: attemptSubject.mfa(user.id), address: request.ip }, async () => {
    const code = await checkCode(ctx, user.id, 'ACTIVATE', input.tokenValue, phone);
    if (!code) throw unauthorized(AuthMessage.mfaTokenInvalid);
    return code;
  });
  await setMfa(
    ctx.db,
    user.id,
    { enabled: true, phone: used.phone, channel: asChannel(used.channel) },
    ctx.clock.now().toISOString(),
  );
  await recordAudit(
    ctx,
    {
      event: 'MFA_ENABLED',
      systemUser: { id: user.id, name: user.name },
      resource: { type: 'MFA', channel: used.channel },
    },
    request,
  );
  return { validate: true, phoneNumber: maskPhone(used.phone) };
}

export async function inactivateToken(
  ctx: AppContext,
  auth: AuthContext,
  input: { tokenValue?: string | null; password?: string | null },
  request: FastifyRequest,
) {
  const user = await mfaAccount(ctx, auth);
  if (user.mfaEnabled !== 1) throw badRequest(ServerMessage.mfaNotEnabled);
  if (!input.tokenValue && !input.password) throw badRequest(AuthMessage.mfaProofMissing);
  // A code is guessed under the MFA counter; the password under the account's one counter.
  const tokenValue = input.tokenValue;
  if (tokenValue) {
    await guarded(ctx, { subject: attemptSubject.mfa(user.id), address: request.ip }, async () => {
      if (!(await checkCode(ctx, user.id, 'INACTIVATE', tokenValue))) throw unauthorized(AuthMessage.mfaTokenInvalid);
    });
  } else {
    await guarded(ctx, { subject: attemptSubject.account(user.id), address: request.ip }, async () => {
      if (!(await verifyPassword(user.passwordHash, input.password ?? ''))) {
        throw new AppError(401, ServerMessage.actualPasswordIncorrect);
      }
    });
  }
  await setMfa(ctx.db, user.id, { enabled: false, phone: null, channel: null }, ctx.clock.now().toISOString());
  await recordAudit(
    ctx,
    {
      event: 'MFA_DISABLED',
      systemUser: { id: user.id, name: user.name },
      resource: { type: 'MFA', proof: input.tokenValue ? 'TOKEN' : 'PASSWORD' },
    },
    request,
  );
  return { validate: false, phoneNumber: null };
}
