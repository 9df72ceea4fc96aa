import type { AppKey } from '@portal/shared/schemas/auth';
import { CPF_MASK_PATTERN, digitsOnly, isValidCpf, looksLikeEmail } from '@portal/shared/formats';
import type { SessionRole, UserType } from '../../db/schema.js';

/**
 * What a login's `userName` names (contract 3 and 8):
 * - `email`: an account, else the unique-login guest over the protocols of that patient e-mail;
 * - `cpf`: a CPF in the mask (always a CPF login, `valid` false for wrong check digits);
 * - `digits`: 11 bare digits with valid check digits: a CPF login when an account has that CPF,
 *   else a protocol number;
 * - `protocol`: anything else.
 */
export type UserNameKind =
  | { kind: 'email'; email: string }
  | { kind: 'cpf'; digits: string; valid: boolean }
  | { kind: 'digits'; digits: string }
  | { kind: 'protocol'; number: string };

export function classifyUserName(userName: string): UserNameKind {
  const value = userName.trim();
  if (looksLikeEmail(value)) return { kind: 'email', email: value.toLowerCase() };
  if (CPF_MASK_PATTERN.test(value)) return { kind: 'cpf', digits: digitsOnly(value), valid: isValidCpf(value) };
  if (/^\d{11}$/.test(value) && isValidCpf(value)) return { kind: 'digits', digits: value };
  return { kind: 'protocol', number: value };
}

/** The session role of an account type. */
export function roleOfUserType(type: UserType): SessionRole {
  return type;
}

export const isAdministrationType = (type: UserType) => type === 'ADMIN' || type === 'COMPANY';

/**
 * Which front end an account may enter through: admin and company users only through the
 * administration interface (`appKey: "admin"`), everyone else only through the portal's.
 */
export function appKeyDecision(type: UserType, appKey: AppKey): 'allow' | 'needsAdminInterface' | 'adminOnly' {
  if (isAdministrationType(type)) return appKey === 'admin' ? 'allow' : 'needsAdminInterface';
  return appKey === 'admin' ? 'adminOnly' : 'allow';
}

/** The phone's digits as the SMS gateway wants them: 55 in front of an 11-digit Brazilian number. */
export function internationalPhone(phone: string): string {
  const digits = digitsOnly(phone);
  return digits.length === 11 || digits.length === 10 ? `55${digits}` : digits;
}

/** A phone shown back to its owner: only the area code and the last four digits. */
export function maskPhone(phone: string | null | undefined): string | null {
  if (!phone) return null;
  const digits = digitsOnly(phone);
  if (digits.length < 6) return '*'.repeat(digits.length);
  const national = digits.length > 11 && digits.startsWith('55') ? digits.slice(2) : digits;
  const area = national.slice(0, 2);
  const last = national.slice(-4);
  return `(${area}) ${'*'.repeat(Math.max(national.length - 6, 1))}-${last}`;
}

/** Guests' and share sessions' `username` never carries an '@' (contract 8). */
export function guestUsername(storedUsername: string, sessionId: string): string {
  return storedUsername.includes('@') ? sessionId : storedUsername;
}
