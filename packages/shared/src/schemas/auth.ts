import { z } from 'zod';
import { MFA_PHONE_MIN_DIGITS, MFA_TOKEN_LENGTH, PASSWORD_MAX } from '../limits.js';
import { AuthMessage } from '../messages.js';
import { digitsOnly } from '../formats.js';
import { envelope } from './common.js';
import { passkeyAssertion } from './passkeys.js';

/** Empty strings and null count as "not given" (the login form sends '' for hidden fields). */
const optionalText = (max: number) =>
  z
    .string()
    .max(max)
    .nullish()
    .transform((v) => {
      const t = v?.trim();
      return t ? t : undefined;
    });

export const APP_KEYS = ['login', 'admin'] as const;
export type AppKey = (typeof APP_KEYS)[number];

export const MFA_CHANNELS = ['whatsapp', 'sms'] as const;
export type MfaChannel = (typeof MFA_CHANNELS)[number];

/** Spec 3 login payload; `customLogin` is the institution code of a branded login page (contract 8). */
export const loginBody = z.object({
  userName: z.string().trim().min(1).max(254),
  // Protocol passwords may be shorter than account passwords: no minimum here.
  password: z.string().min(1).max(PASSWORD_MAX),
  dateOfBirth: optionalText(20),
  tokenMFA: optionalText(32),
  /** A passkey as the second factor, in place of `tokenMFA` (accounts with MFA on). */
  passkey: passkeyAssertion.nullish().transform((v) => v ?? undefined),
  // Only "admin" opens the administration sessions; anything else is the portal's own login.
  appKey: z
    .string()
    .max(32)
    .nullish()
    .transform((v): AppKey => (v?.trim().toLowerCase() === 'admin' ? 'admin' : 'login')),
  customLogin: optionalText(64),
});
export type LoginBody = z.input<typeof loginBody>;
export type LoginInput = z.output<typeof loginBody>;

/** Spec 7.1 externalLogin: the login's inputs as query parameters. */
export const externalLoginQuery = z.object({
  username: z.string().trim().min(1).max(254),
  password: z.string().min(1).max(PASSWORD_MAX),
  tokenMFA: optionalText(32),
  birthdate: optionalText(20),
  customLogin: optionalText(64),
  // The remembered-CPF cookie's hint (spec 3): accepted and not used.
  hint: optionalText(256),
});

export const SESSION_ROLES = ['PATIENT', 'PHYSICIAN', 'EXTERNAL', 'GUEST', 'ADMIN', 'COMPANY', 'SHARE'] as const;

/** Spec 3 session user, also the answer of `validate` (contract 3 and 8). */
export const sessionUser = z.object({
  identifier: z.string(),
  username: z.string(),
  name: z.string().nullable(),
  /** `YYYY-MM-DD` */
  birthdate: z.string().nullable(),
  /** CPF masked as ddd.***.**d-dd */
  personalInfo: z.string().nullable(),
  isUserType: z.boolean(),
  isPhysicianType: z.boolean(),
  isExternalType: z.boolean(),
  isAdminType: z.boolean(),
  isCompanyType: z.boolean(),
  adminInstitutionID: z.string().nullable(),
  countProtocols: z.number().int(),
  role: z.enum(SESSION_ROLES),
  /** Share sessions only: when the share ends (ISO 8601), so the recipient is told until when. */
  shareExpiresAt: z.string().nullable().optional(),
});
export type SessionUser = z.infer<typeof sessionUser>;

export const loginResponse = envelope(z.object({ accessToken: z.string(), user: sessionUser }));
export type LoginResponse = z.infer<typeof loginResponse>;

export const validateResponse = envelope(sessionUser);
export const logoutResponse = envelope(z.boolean());

/** MFA phone: its digits when there are at least 11 (spec 5 and 9, E.164 allows 15), else null. */
export function mfaPhoneDigits(value: string | null | undefined): string | null {
  const digits = digitsOnly(value ?? '');
  return digits.length >= MFA_PHONE_MIN_DIGITS && digits.length <= 15 ? digits : null;
}

export const zMfaPhone = z
  .string()
  .max(32)
  .refine((v) => mfaPhoneDigits(v) !== null, AuthMessage.mfaPhoneInvalid)
  .transform((v) => digitsOnly(v));

// The server checks the phone itself, to answer the catalogue-style message rather than a field list.
const rawPhone = z.string().max(32);

export const zMfaToken = z
  .string()
  .trim()
  .regex(new RegExp(`^\\d{${MFA_TOKEN_LENGTH}}$`), `The token must have ${MFA_TOKEN_LENGTH} digits.`);

export const generateMfaTokenBody = z.object({
  /** Not needed when MFA is already on: the code then goes to the registered phone. */
  phoneNumber: rawPhone.nullish(),
  channel: z
    .enum(MFA_CHANNELS)
    .nullish()
    .transform((v) => v ?? 'whatsapp'),
});

export const activateMfaTokenBody = z.object({
  phoneNumber: rawPhone,
  tokenValue: zMfaToken,
});

/** Turning MFA off takes a code sent to the registered phone, or the account's password. */
export const inactivateMfaTokenBody = z.object({
  tokenValue: zMfaToken.nullish(),
  password: z.string().min(1).max(PASSWORD_MAX).nullish(),
  phoneNumber: z.string().max(32).nullish(),
});

export const mfaStatus = z.object({
  validate: z.boolean(),
  /** The registered phone, masked; null when there is none. */
  phoneNumber: z.string().nullable(),
});
export const mfaStatusResponse = envelope(mfaStatus);

export const mfaTokenSentResponse = envelope(
  z.object({
    sent: z.boolean(),
    /** The phone the code went to, masked. */
    phoneNumber: z.string(),
    channel: z.enum(MFA_CHANNELS),
  }),
);
