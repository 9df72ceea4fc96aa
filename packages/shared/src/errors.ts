/**
 * The error catalogue of spec section 8 and contract sections 3 to 8: the exact English server
 * messages, which the web app matches by substring to show translated texts.
 */
export const ServerMessage = {
  userNotInformedOnJwt: 'User not informed on JWT.',
  protocolDoesNotExist: 'Protocol does not exists!',
  noProtocolRetrieved: "There's no protocol(s) retrieved or the protocol is disabled!",
  protocolOrEmailDoesNotExist: 'Protocol or e-mail does not exists!',
  protocolOrEmailDisabled: 'Protocol or e-mail disabled!',
  passwordsNotTheSame: 'Passwords are not the same!',
  protocolAlreadyInUse: 'The protocol is already in use by the patient!',
  protocolValid: 'The protocol is valid!',
  protocolNotFoundWithDate: 'The protocol was not found with date informed!',
  accountNotAProtocol: 'The account informed is not a protocol!',
  needsAdminInterface: 'This login needs to use admin interface!',
  mfaNeedsValidation: 'has enabled the MFA validation and needs validation.',
  documentNotFound: 'Not found the number of document informed.',
  cpfInvalid: 'CPF invalid. Must be have 11 numbers.',
  documentAlreadyAssociated: 'This Document is already associated with another user.',
  userAlreadyExists: 'The user already exists!',
  tokenNotFound: 'Token not found',
  tokenExpired: 'Token expired.',
  mfaNotEnabled: "This user doesn't have MFA authentication enabled.",
  mfaAlreadyEnabled: 'This user has already enabled MFA authentication',
  actualPasswordIncorrect: 'Actual password is incorrect',
  actualPasswordNotInformed: 'Actual password not informed',
  newEmailInUse: 'New email provided is already in use',
  newPasswordNotInformed: 'New password not informed',
  shareExpired: 'The shared access is expired!',
  listAtLeastOne: 'The list must have at least 1 protocol selected!',
  listAtMostFifty: 'The list must have at most 50 protocols selected!',
  invalidCredentials: 'Invalid username or password!',
  accountNotActivated: 'The account is not activated!',
  accountAwaitingInstitution: "The account is awaiting the institution's approval!",
  reportAwaitingRectification: 'The report is awaiting rectification!',
  resultHeld: 'The result is held by the institution!',
  holdNotReleasable: 'This result is not held or cannot be released online!',
  tooManyAttempts: 'Too many attempts. Try again later.',
  serverBusy: 'The server is busy. Try again in a moment.',
  notFound: 'Not found.',
  forbidden: 'Forbidden.',
  unauthorized: 'Unauthorized.',
  validation: 'Invalid request.',
  payloadTooLarge: 'Payload too large.',
  unsupportedMediaType: 'Unsupported media type.',
  notAcceptable: 'Not acceptable.',
  internal: 'Internal server error.',
  invalidApiKey: 'Invalid API key.',
  institutionCodeInUse: 'The institution code is already in use!',
  institutionNotFound: 'Institution not found!',
  hl7SendingFacilityInUse: 'The HL7 sending facility is already in use by another institution!',
  shareNotAllowed: 'Sharing is not allowed for this protocol.',
  resourceUnavailable: 'The result is unavailable!',
} as const;
export type ServerMessageKey = keyof typeof ServerMessage;

/**
 * Client-side mapping: the first catalogue entry whose `match` is a substring of the server
 * message gives the i18n key to show. Order matters (longer, more specific texts first).
 */
export const ERROR_TRANSLATION_KEYS: ReadonlyArray<{ match: string; key: string }> = [
  { match: ServerMessage.userNotInformedOnJwt, key: 'errors.generic' },
  { match: ServerMessage.protocolOrEmailDoesNotExist, key: 'errors.accessUnavailable' },
  { match: ServerMessage.protocolOrEmailDisabled, key: 'errors.protocolDisabled' },
  { match: ServerMessage.protocolDoesNotExist, key: 'errors.invalidProtocol' },
  { match: ServerMessage.noProtocolRetrieved, key: 'errors.invalidProtocol' },
  { match: ServerMessage.passwordsNotTheSame, key: 'errors.wrongProtocolPassword' },
  { match: ServerMessage.protocolAlreadyInUse, key: 'errors.protocolAlreadyInUse' },
  { match: ServerMessage.protocolValid, key: 'messages.protocolValid' },
  { match: ServerMessage.protocolNotFoundWithDate, key: 'errors.protocolNotFoundWithDate' },
  { match: ServerMessage.accountNotAProtocol, key: 'errors.notAProtocol' },
  { match: ServerMessage.needsAdminInterface, key: 'errors.adminMoved' },
  { match: ServerMessage.mfaNeedsValidation, key: 'errors.mfaNeedsValidation' },
  { match: ServerMessage.documentNotFound, key: 'errors.cpfInvalidOrNotFound' },
  { match: ServerMessage.cpfInvalid, key: 'errors.cpfInvalidOrNotFound' },
  { match: ServerMessage.documentAlreadyAssociated, key: 'errors.cpfAlreadyAssociated' },
  { match: ServerMessage.userAlreadyExists, key: 'errors.userAlreadyExists' },
  { match: ServerMessage.tokenNotFound, key: 'errors.tokenInvalid' },
  { match: ServerMessage.mfaNotEnabled, key: 'errors.mfaNotEnabled' },
  { match: ServerMessage.mfaAlreadyEnabled, key: 'errors.mfaAlreadyEnabled' },
  { match: ServerMessage.actualPasswordIncorrect, key: 'errors.currentPasswordIncorrect' },
  { match: ServerMessage.actualPasswordNotInformed, key: 'errors.currentPasswordMissing' },
  { match: ServerMessage.newEmailInUse, key: 'errors.newEmailInUse' },
  { match: ServerMessage.newPasswordNotInformed, key: 'errors.newPasswordMissing' },
  { match: 'is expired!', key: 'errors.shareExpired' },
  { match: 'expired.', key: 'errors.tokenExpired' },
  { match: ServerMessage.listAtLeastOne, key: 'errors.listAtLeastOne' },
  { match: ServerMessage.listAtMostFifty, key: 'errors.selectionLimit' },
  { match: ServerMessage.invalidCredentials, key: 'errors.invalidCredentials' },
  { match: ServerMessage.accountNotActivated, key: 'errors.accountNotActivated' },
  { match: ServerMessage.accountAwaitingInstitution, key: 'errors.accountAwaitingInstitution' },
  { match: ServerMessage.reportAwaitingRectification, key: 'errors.awaitingRectification' },
  { match: ServerMessage.resultHeld, key: 'errors.resultHeld' },
  { match: ServerMessage.holdNotReleasable, key: 'errors.holdNotReleasable' },
  { match: ServerMessage.tooManyAttempts, key: 'errors.tooManyAttempts' },
  { match: ServerMessage.serverBusy, key: 'errors.serverBusy' },
  { match: ServerMessage.resourceUnavailable, key: 'errors.resultUnavailable' },
];

/** The i18n key for a server message, or `fallbackKey` when nothing in the catalogue matches. */
export function translationKeyForServerMessage(
  message: string | null | undefined,
  fallbackKey = 'errors.default',
): string {
  if (!message) return fallbackKey;
  for (const entry of ERROR_TRANSLATION_KEYS) {
    if (message.includes(entry.match)) return entry.key;
  }
  return fallbackKey;
}
