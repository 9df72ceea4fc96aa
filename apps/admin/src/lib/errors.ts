import { ServerMessage } from '@portal/shared/errors';
import { AccountMessage, AuthMessage } from '@portal/shared/messages';
import { ApiError } from './api';

// Server texts the console's calls can answer, matched by substring like the patient app does.
const KEYS: ReadonlyArray<{ match: string; key: string }> = [
  { match: AuthMessage.adminLoginOnly, key: 'errors.notAnAdministrator' },
  // Sign-in tells an unknown e-mail apart; the console says the same as for a wrong password.
  { match: ServerMessage.protocolOrEmailDoesNotExist, key: 'errors.credentials' },
  { match: ServerMessage.institutionCodeInUse, key: 'errors.codeInUse' },
  { match: ServerMessage.hl7SendingFacilityInUse, key: 'errors.facilityInUse' },
  { match: AccountMessage.tagInUse, key: 'errors.tagInUse' },
  { match: ServerMessage.institutionNotFound, key: 'errors.notFound' },
  { match: ServerMessage.userAlreadyExists, key: 'errors.userExists' },
];

/** The i18n key of what went wrong, for a toast or a form. */
export function errorKey(error: unknown): string {
  if (!(error instanceof ApiError)) return 'errors.default';
  const known = error.serverMessage ? KEYS.find((k) => error.serverMessage.includes(k.match)) : undefined;
  if (known) return known.key;
  if (error.status === 0) return 'errors.offline';
  if (error.status === 401) return 'errors.credentials';
  if (error.status === 403) return 'errors.forbidden';
  if (error.status === 404) return 'errors.notFound';
  if (error.status === 409) return 'errors.conflict';
  if (error.status === 429) return 'errors.tooManyAttempts';
  if (error.status === 400) return 'errors.validation';
  return 'errors.default';
}
