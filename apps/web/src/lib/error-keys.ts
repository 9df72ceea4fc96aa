import { ServerMessage, translationKeyForServerMessage } from '@portal/shared/errors';
import { AccountMessage, AuthMessage, PasskeyMessage } from '@portal/shared/messages';

// Server texts of the account flows that the spec's catalogue does not list (matched the same way).
const EXTRA_KEYS: ReadonlyArray<{ match: string; key: string }> = [
  { match: AccountMessage.passwordTooCommon, key: 'errors.passwordTooCommon' },
  { match: AccountMessage.passwordConfirmationMismatch, key: 'errors.passwordConfirmationMismatch' },
  { match: AccountMessage.emailConfirmationMismatch, key: 'errors.emailConfirmationMismatch' },
  { match: AccountMessage.phoneInvalid, key: 'errors.phoneInvalid' },
  { match: AccountMessage.protocolLinkedToAnotherAccount, key: 'errors.protocolLinkedToAnotherAccount' },
  { match: AccountMessage.protocolPasswordRequired, key: 'errors.protocolPasswordRequired' },
  { match: AccountMessage.termsNotAccepted, key: 'errors.termsNotAccepted' },
  { match: AccountMessage.userNotFound, key: 'errors.userNotFound' },
  { match: ServerMessage.institutionNotFound, key: 'errors.institutionNotFound' },
  { match: AuthMessage.mfaTokenInvalid, key: 'errors.mfaTokenInvalid' },
  { match: AuthMessage.mfaPhoneInvalid, key: 'errors.phoneInvalid' },
  { match: AccountMessage.favoriteTagNotYours, key: 'errors.favoriteGroup' },
  { match: PasskeyMessage.challengeInvalid, key: 'errors.passkeyChallenge' },
  { match: PasskeyMessage.passkeyNotRecognized, key: 'errors.passkeyNotRecognized' },
  { match: PasskeyMessage.passkeyRejected, key: 'errors.passkeyRejected' },
  { match: PasskeyMessage.passkeyAlreadyRegistered, key: 'errors.passkeyAlreadyRegistered' },
  { match: PasskeyMessage.lastSignInMethod, key: 'errors.passkeyLastMethod' },
  { match: PasskeyMessage.passkeysNotAllowed, key: 'errors.passkeysNotAllowed' },
  { match: PasskeyMessage.tooManyPasskeys, key: 'errors.tooManyPasskeys' },
];

/** The i18n key (namespace `errors`) for a server message. */
export function errorKey(serverMessage: string, fallbackKey = 'errors.default'): string {
  // The extra texts are whole sentences, some of which contain the catalogue's short 'expired.'.
  const extra = serverMessage ? EXTRA_KEYS.find((entry) => serverMessage.includes(entry.match)) : undefined;
  return extra?.key ?? (translationKeyForServerMessage(serverMessage, '') || fallbackKey);
}
