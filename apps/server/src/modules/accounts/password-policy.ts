import { PASSWORD_MAX, PASSWORD_MIN } from '@portal/shared/limits';
import { ServerMessage } from '@portal/shared/errors';
import { AccountMessage } from '@portal/shared/messages';
import { badRequest } from '../../lib/errors.js';
import { COMMON_PASSWORDS } from './common-passwords.js';

// A password on the list of the most used ones falls to the first guesses of any attacker.
const COMMON = new Set<string>(COMMON_PASSWORDS.map((p) => p.toLowerCase()));

export function isCommonPassword(password: string): boolean {
  return COMMON.has(password.trim().toLowerCase());
}

/**
 * Checks a new password: present, 6 to 128 characters, not a common one, equal to its
 * confirmation when the form sends one.
 */
export function assertAcceptablePassword(password: string | null | undefined, confirmation?: string | null): string {
  if (!password) throw badRequest(ServerMessage.newPasswordNotInformed);
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) {
    throw badRequest(ServerMessage.validation, [
      { field: 'password', message: `must have ${PASSWORD_MIN} to ${PASSWORD_MAX} characters` },
    ]);
  }
  if (confirmation !== undefined && confirmation !== null && confirmation !== password) {
    throw badRequest(AccountMessage.passwordConfirmationMismatch);
  }
  if (isCommonPassword(password)) throw badRequest(AccountMessage.passwordTooCommon);
  return password;
}
