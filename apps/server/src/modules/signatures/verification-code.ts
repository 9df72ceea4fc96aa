import { randomInt } from 'node:crypto';
import { VERIFICATION_CODE_ALPHABET, VERIFICATION_CODE_LENGTH } from '@portal/shared/schemas/signatures';

/**
 * A report's verification code: 10 characters of a 30-letter alphabet without look-alikes
 * (about 5.9 x 10^14 codes), drawn at random; a unique index refuses the rare repeat.
 */
export function newVerificationCode(): string {
  let code = '';
  for (let i = 0; i < VERIFICATION_CODE_LENGTH; i++) {
    code += VERIFICATION_CODE_ALPHABET[randomInt(VERIFICATION_CODE_ALPHABET.length)];
  }
  return code;
}
