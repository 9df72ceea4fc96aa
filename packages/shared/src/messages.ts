import { MFA_PHONE_MIN_DIGITS } from './limits.js';

/*
 * The server's messages that the spec's catalogue (section 8, `errors.ts`) does not name, by
 * feature. They live apart from the schemas so that the web apps, which match them to translated
 * texts on every screen, do not build every schema of those features as they start.
 */

/**
 * Messages of the sign-in and MFA calls. The catalogue's own texts live in `errors.ts`.
 */
export const AuthMessage = {
  mfaTokenInvalid: 'The MFA token is invalid or expired.',
  mfaPhoneInvalid: `The phone number must have at least ${MFA_PHONE_MIN_DIGITS} digits.`,
  mfaProofMissing: 'Inform the MFA token or the current password.',
  adminLoginOnly: 'This login is only for the administration interface.',
} as const;

/** `<username> has enabled the MFA validation and needs validation.` (contract 3). */
export const mfaNeedsValidationMessage = (username: string) =>
  `${username} has enabled the MFA validation and needs validation.`;

/** Messages of the account flows; the catalogue's own texts are used wherever it has one. */
export const AccountMessage = {
  userNotFound: 'User not found.',
  passwordTooCommon: 'The password is too common. Choose another one.',
  passwordConfirmationMismatch: 'The password confirmation does not match.',
  emailConfirmationMismatch: 'The e-mail confirmation does not match.',
  nameRequired: 'The name is required.',
  emailRequired: 'The e-mail is required.',
  phoneInvalid: 'Phone number invalid.',
  protocolLinkedToAnotherAccount: 'The protocol is already linked to another account!',
  protocolPasswordRequired: 'The protocol password is required.',
  termsNotAccepted: 'The terms of use must be accepted.',
  tagAlreadyExists: 'The tag already exists!',
  tagInUse: 'The tag is in use by protocols.',
  favoriteTagNotYours: 'The group informed is not one of yours.',
  physicianKeepsOwnData: "A physician's name and license are kept by the physician.",
  userSharedWithOtherInstitutions:
    "The user also belongs to other institutions' groups: an administrator changes his name.",
} as const;

/** Messages of the passkey calls (the web app matches them to show translated texts). */
export const PasskeyMessage = {
  challengeInvalid: 'The passkey request expired or was already used. Try again.',
  passkeyNotRecognized: 'This passkey is not registered on the portal.',
  passkeyRejected: 'The passkey could not be verified.',
  passkeyAlreadyRegistered: 'This passkey is already registered.',
  lastSignInMethod: 'This passkey is the only way into the account; set a password before removing it.',
  passkeysNotAllowed: 'Passkeys are for patients, physicians and external users.',
  tooManyPasskeys: 'An account may have at most 20 passkeys.',
} as const;

/** Messages of the terms of use calls. */
export const TermMessage = {
  termNotCurrent: 'The term informed is not a current term of this user.',
} as const;
