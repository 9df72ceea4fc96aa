import { ServerMessage } from '@portal/shared/errors';
import { AuthMessage, mfaNeedsValidationMessage, PasskeyMessage } from '@portal/shared/messages';
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
  401: [
    ServerMessage.invalidCredentials,
    ServerMessage.passwordsNotTheSame,
    AuthMessage.mfaTokenInvalid,
    PasskeyMessage.challengeInvalid,
    PasskeyMessage.passkeyRejected,
  ],
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
const PASSKEY_CHALLENGE_ID = '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b';
const PASSKEY = {
  id: '3e2d1c0b-9a8f-4e7d-8c6b-5a4f3e2d1c0b',
  name: 'Celular',
  deviceType: 'multiDevice',
  backedUp: true,
  transports: ['internal', 'hybrid'],
  createdAt: '2026-11-20T14:03:11.000Z',
  lastUsedAt: '2026-11-25T09:41:27.000Z',
};
const SIGN_IN_OPTIONS = {
  rpId: 'resultados.example.com',
  challenge: 'n3Jq8c1mT0f2Vb6yXz4aLw',
  timeout: 300000,
  userVerification: 'required',
};
const REGISTRATION_OPTIONS = {
  rp: { name: 'Portal de Resultados', id: 'resultados.example.com' },
  user: { id: 'MGI5ZjNjMmU', name: 'maria.souza@example.com', displayName: 'Maria Souza' },
  challenge: 'q7Lm2Zp0Yc5Rb8Nx1Kw3Vg',
  pubKeyCredParams: [
    { alg: -7, type: 'public-key' },
    { alg: -257, type: 'public-key' },
  ],
  timeout: 300000,
  attestation: 'none',
  excludeCredentials: [],
  authenticatorSelection: { residentKey: 'required', userVerification: 'required', requireResidentKey: true },
};
const ASSERTION = {
  id: 'Wc1xJ4kL0pQ8rT2vY6zA3b',
  rawId: 'Wc1xJ4kL0pQ8rT2vY6zA3b',
  type: 'public-key',
  response: {
    clientDataJSON: 'eyJ0eXBlIjoid2ViYXV0aG4uZ2V0In0',
    authenticatorData: 'SZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2MFAAAAAQ',
    signature: 'MEUCIQDx3g',
    userHandle: 'MGI5ZjNjMmU',
  },
  clientExtensionResults: {},
};
const ATTESTATION = {
  id: 'Wc1xJ4kL0pQ8rT2vY6zA3b',
  rawId: 'Wc1xJ4kL0pQ8rT2vY6zA3b',
  type: 'public-key',
  response: {
    clientDataJSON: 'eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIn0',
    attestationObject: 'o2NmbXRkbm9uZWdhdHRTdG10oGhhdXRoRGF0YQ',
    transports: ['internal', 'hybrid'],
  },
  clientExtensionResults: {},
};
const MFA_STATUS = { data: { validate: true, phoneNumber: '(11) *****-4321' } };

/** Contract 3: sign-in, the session, MFA. */
export const authOperations: OperationDocs = {
  'POST /api/v2/auth/login': {
    summary: 'Sign in (account e-mail, CPF or protocol number)',
    description:
      '`userName` with an `@` signs in an account (or the protocols of that e-mail); 11 digits or a formatted ' +
      'CPF a patient by CPF; anything else a protocol (guest) with its password. `appKey: "admin"` lets admin ' +
      'and company users in. With MFA on and no `tokenMFA`, a code is sent and the answer is 400; a `passkey` ' +
      '(a challenge of `passkeys/signInOptions` and the answer of `navigator.credentials.get`) may stand for the code.',
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
    description:
      "For a share session (the link a patient mailed) the user is the shared protocols' patient, never his " +
      'account, and `shareExpiresAt` says when the share ends.',
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
  'POST /api/v2/auth/passkeys/signInOptions': {
    summary: 'A passkey sign-in challenge (for a passkey alone or as the second factor)',
    description:
      'Answers the WebAuthn request options to hand to `navigator.credentials.get` and the id of the challenge, ' +
      'which is valid for 5 minutes and for one answer. Any discoverable passkey of the portal may answer it.',
    tag: 'Sign-in',
    security: 'public',
    errors: { 429: ServerMessage.tooManyAttempts },
    response: { data: { challengeId: PASSKEY_CHALLENGE_ID, options: SIGN_IN_OPTIONS } },
  },
  'POST /api/v2/auth/passkeys/signIn': {
    summary: 'Sign in with a passkey alone',
    description:
      'Takes the answer of `navigator.credentials.get` to a challenge of `signInOptions` and opens the same session as ' +
      'a password sign-in. The account must be enabled and activated; the passkey, user-verified, stands for both ' +
      'factors, so no MFA code is asked. Each challenge signs in at most once.',
    tag: 'Sign-in',
    security: 'public',
    body: { challengeId: PASSKEY_CHALLENGE_ID, credential: ASSERTION },
    errors: {
      401: [PasskeyMessage.challengeInvalid, PasskeyMessage.passkeyNotRecognized, PasskeyMessage.passkeyRejected],
      403: [
        ServerMessage.protocolOrEmailDisabled,
        ServerMessage.accountNotActivated,
        ServerMessage.needsAdminInterface,
      ],
      429: ServerMessage.tooManyAttempts,
    },
    response: SIGNED_IN,
  },
  'GET /api/v2/auth/passkeys': {
    summary: "The session account's passkeys",
    tag: 'Sign-in',
    security: 'bearer',
    errors: { 403: PasskeyMessage.passkeysNotAllowed },
    response: { data: [PASSKEY] },
  },
  'POST /api/v2/auth/passkeys/registrationOptions': {
    summary: 'A challenge to register a new passkey on the session account',
    description: 'Answers the WebAuthn creation options to hand to `navigator.credentials.create`.',
    tag: 'Sign-in',
    security: 'bearer',
    errors: { 403: PasskeyMessage.passkeysNotAllowed, 409: PasskeyMessage.tooManyPasskeys },
    response: { data: { challengeId: PASSKEY_CHALLENGE_ID, options: REGISTRATION_OPTIONS } },
  },
  'POST /api/v2/auth/passkeys': {
    summary: 'Register a passkey (the answer of navigator.credentials.create)',
    tag: 'Sign-in',
    security: 'bearer',
    body: { challengeId: PASSKEY_CHALLENGE_ID, credential: ATTESTATION, name: 'Celular' },
    errors: {
      400: [ServerMessage.validation, PasskeyMessage.challengeInvalid, PasskeyMessage.passkeyRejected],
      403: PasskeyMessage.passkeysNotAllowed,
      409: [PasskeyMessage.passkeyAlreadyRegistered, PasskeyMessage.tooManyPasskeys],
    },
    response: { data: PASSKEY },
  },
  'PUT /api/v2/auth/passkeys/{id}': {
    summary: 'Rename one of your passkeys',
    tag: 'Sign-in',
    security: 'bearer',
    params: { id: PASSKEY.id },
    body: { name: 'Notebook' },
    errors: { 403: PasskeyMessage.passkeysNotAllowed, 404: ServerMessage.notFound },
    response: { data: { ...PASSKEY, name: 'Notebook' } },
  },
  'DELETE /api/v2/auth/passkeys/{id}': {
    summary: 'Remove one of your passkeys',
    description: 'The password stays a way in; an account without a password keeps its last passkey.',
    tag: 'Sign-in',
    security: 'bearer',
    params: { id: PASSKEY.id },
    errors: {
      403: PasskeyMessage.passkeysNotAllowed,
      404: ServerMessage.notFound,
      409: PasskeyMessage.lastSignInMethod,
    },
    response: { data: true },
  },
};
