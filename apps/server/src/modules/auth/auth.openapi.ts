import { ServerMessage } from '@portal/shared/errors';
import { AuthMessage, mfaNeedsValidationMessage } from '@portal/shared/schemas/auth';
import type { OperationDocs } from '../../plugins/openapi.js';

const SESSION_USER = {
  identifier: '0b9f3c2e-5d1a-4c7e-9a8b-1f2e3d4c5b6a',
  username: 'maria.souza@example.com',
  name: 'Maria Souza',
  birthdate: '1985-03-15',
  personalInfo: null,
  isUserType: true,
  isPhysicianType: false,
  isExternalType: false,
  isAdminType: false,
  isCompanyType: false,
  adminInstitutionID: null,
  countProtocols: 3,
  role: 'PATIENT',
};
const SIGNED_IN = {
  data: {
    accessToken: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIwYjlmM2MyZSIsInJvbGUiOiJQQVRJRU5UIn0.c2lnbmF0dXJl',
    user: SESSION_USER,
  },
};
/** Every refusal a sign-in can answer (contract 3 and 8). */
const SIGN_IN_ERRORS = {
  400: [ServerMessage.validation, mfaNeedsValidationMessage('maria.souza@example.com'), ServerMessage.cpfInvalid],
  401: [ServerMessage.invalidCredentials, ServerMessage.passwordsNotTheSame],
  403: [
    ServerMessage.needsAdminInterface,
    AuthMessage.adminLoginOnly,
    ServerMessage.protocolOrEmailDisabled,
    ServerMessage.accountNotActivated,
  ],
  404: [
    ServerMessage.protocolOrEmailDoesNotExist,
    ServerMessage.protocolNotFoundWithDate,
    ServerMessage.documentNotFound,
  ],
  429: ServerMessage.tooManyAttempts,
  503: ServerMessage.serverBusy,
} as const;
const MFA_STATUS = { data: { validate: true, phoneNumber: '(11) *****-4321' } };

/** Contract 3: sign-in, the session, MFA. */
export const authOperations: OperationDocs = {
  'POST /api/v2/auth/login': {
    summary: 'Sign in (account e-mail, CPF or protocol number)',
    description:
      '`userName` with an `@` signs in an account (or the protocols of that e-mail); 11 digits or a formatted ' +
      'CPF a patient by CPF; anything else a protocol (guest) with its password. `appKey: "admin"` lets admin ' +
      'and company users in. With MFA on and no `tokenMFA`, a code is sent and the answer is 400.',
    tag: 'Sign-in',
    security: 'public',
    errors: SIGN_IN_ERRORS,
    body: { userName: 'maria.souza@example.com', password: 'Resultado-2026', appKey: 'login' },
    response: SIGNED_IN,
  },
  'GET /api/v2/auth/externalLogin': {
    summary: 'Sign in with the inputs in the query string (QR codes, partner links)',
    tag: 'Sign-in',
    security: 'public',
    errors: SIGN_IN_ERRORS,
    query: { username: '2026110001', password: 'Xk29-pq7', birthdate: '15/03/1985' },
    response: {
      data: { ...SIGNED_IN.data, user: { ...SESSION_USER, username: '2026110001', isUserType: false, role: 'GUEST' } },
    },
  },
  'POST /api/v2/auth/logout': {
    summary: 'Sign out (the session is revoked)',
    tag: 'Sign-in',
    security: 'bearer',
  },
  'GET /api/v2/auth/validate': {
    summary: 'The session user, with its type flags and number of protocols',
    tag: 'Sign-in',
    security: 'bearer',
    response: { data: SESSION_USER },
  },
  'POST /api/v2/auth/generateMFAToken': {
    summary: 'Send a 6-digit MFA code to a phone (SMS or WhatsApp)',
    tag: 'Sign-in',
    security: 'bearer',
    body: { phoneNumber: '(11) 98765-4321', channel: 'whatsapp' },
    errors: {
      400: [ServerMessage.validation, AuthMessage.mfaPhoneInvalid],
      403: ServerMessage.forbidden,
      409: ServerMessage.mfaAlreadyEnabled,
      429: ServerMessage.tooManyAttempts,
    },
  },
  'POST /api/v2/auth/activateMFAToken': {
    summary: 'Turn MFA on with the code received',
    tag: 'Sign-in',
    security: 'bearer',
    body: { phoneNumber: '(11) 98765-4321', tokenValue: '482913' },
    errors: {
      401: [ServerMessage.unauthorized, AuthMessage.mfaTokenInvalid],
      403: ServerMessage.forbidden,
      429: ServerMessage.tooManyAttempts,
    },
    response: MFA_STATUS,
  },
  'POST /api/v2/auth/inactivateMFAToken': {
    summary: 'Turn MFA off (current password or a code)',
    tag: 'Sign-in',
    security: 'bearer',
    body: { password: 'Resultado-2026' },
    errors: {
      400: [ServerMessage.validation, ServerMessage.mfaNotEnabled, AuthMessage.mfaProofMissing],
      401: [ServerMessage.unauthorized, ServerMessage.actualPasswordIncorrect],
      403: ServerMessage.forbidden,
      429: ServerMessage.tooManyAttempts,
    },
    response: { data: { validate: false, phoneNumber: null } },
  },
  'GET /api/v2/auth/isMFAActivated': {
    summary: 'Whether MFA is on, with the masked phone number',
    tag: 'Sign-in',
    security: 'bearer',
    errors: { 403: ServerMessage.forbidden },
    response: MFA_STATUS,
  },
};
