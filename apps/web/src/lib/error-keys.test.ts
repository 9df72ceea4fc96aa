import { ServerMessage } from '@portal/shared/errors';
import { AccountMessage, AuthMessage, mfaNeedsValidationMessage } from '@portal/shared/messages';
import { describe, expect, it } from 'vitest';
import { errorKey } from './error-keys';

describe('server message to translation key', () => {
  it('maps the catalogue by substring, as spec 8 says', () => {
    expect(errorKey(mfaNeedsValidationMessage('ana@example.com'))).toBe('errors.mfaNeedsValidation');
    expect(errorKey(ServerMessage.protocolOrEmailDoesNotExist)).toBe('errors.accessUnavailable');
    expect(errorKey(ServerMessage.shareExpired)).toBe('errors.shareExpired');
  });

  it('keeps account texts apart from the short catalogue entries they contain', () => {
    // 'expired.' is a catalogue entry; the MFA text contains it but means a wrong code.
    expect(errorKey(AuthMessage.mfaTokenInvalid)).toBe('errors.mfaTokenInvalid');
    expect(errorKey(AccountMessage.passwordTooCommon)).toBe('errors.passwordTooCommon');
  });

  it('falls back for unknown or missing texts', () => {
    expect(errorKey('Something new', 'errors.loginDefault')).toBe('errors.loginDefault');
    expect(errorKey('')).toBe('errors.default');
  });
});
