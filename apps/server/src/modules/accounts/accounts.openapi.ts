import { ServerMessage } from '@portal/shared/errors';
import { AccountMessage } from '@portal/shared/messages';
import type { OperationDoc, OperationDocs } from '../../plugins/openapi.js';

const ID = '0b9f3c2e-5d1a-4c7e-9a8b-1f2e3d4c5b6a';
const TOKEN = { token: 'q3Vt0hX9cF2mJ8rLkP4sWz7aYb1NdE6g' };
const INVITATION_TOKEN_ERRORS = { 404: ServerMessage.tokenNotFound };
const SIGNED_IN = { 401: ServerMessage.unauthorized, 403: ServerMessage.forbidden, 404: AccountMessage.userNotFound };
const ADMIN = { 403: ServerMessage.forbidden, 404: ServerMessage.notFound };
const INSTITUTION = { id: ID };
const TAG = { id: ID, tagId: '6d1e8f20-3b4a-4c5d-9e0f-1a2b3c4d5e6f' };
const TAG_USER = { ...TAG, userId: '7a2b9c31-4d5e-4f60-8a1b-2c3d4e5f6a7b' };
const ADMINISTRATION = '/api/administrationbe/institution/{id}';

const invitationInfo = (summary: string): OperationDoc => ({
  summary,
  tag: 'Accounts',
  security: 'public',
  errors: INVITATION_TOKEN_ERRORS,
  query: TOKEN,
});

const administration = (
  summary: string,
  errors: OperationDoc['errors'] = ADMIN,
  params: Record<string, string> = TAG,
): OperationDoc => ({
  summary,
  tag: 'Administration',
  security: 'bearer',
  errors,
  params,
});

const patientCreate: OperationDoc = {
  summary: 'Register a patient account (an activation link is mailed)',
  tag: 'Accounts',
  security: 'public',
  errors: {
    400: [ServerMessage.validation, ServerMessage.cpfInvalid, AccountMessage.termsNotAccepted],
    // Spec 7.4's catalogue: a taken e-mail is 404 (the patient app opens its "already registered" modal on it).
    404: ServerMessage.userAlreadyExists,
    409: ServerMessage.documentAlreadyAssociated,
    429: ServerMessage.tooManyAttempts,
  },
};

/** Spec 7.1 and contract 7: accounts, invitations, passwords, profiles; the tag and vouch administration. */
export const accountsOperations: OperationDocs = {
  'POST /api/v2/auth/user/create': patientCreate,
  'POST /api/v2/auth/user/createuser': {
    ...patientCreate,
    summary: 'Register a patient account (alias of user/create)',
  },
  'GET /api/v2/auth/user/registerValidate': {
    summary: "Activate an account from the mail's link",
    tag: 'Accounts',
    security: 'public',
    query: TOKEN,
    answers: {
      302: {
        description: 'To `/login?activeSuccess=true`, or `false` when the token is expired or unknown.',
        headers: { Location: { description: 'Where the browser goes next.', schema: { type: 'string' } } },
      },
    },
  },
  'GET /api/auth/user/validate': invitationInfo('Read a patient invitation by its token'),
  'GET /api/auth/user/get': invitationInfo('Read a patient invitation by its token (alias)'),
  'POST /api/auth/password/forgotPassword': {
    summary: 'Mail a password reset link (answers alike whether the account exists or not)',
    tag: 'Accounts',
    security: 'public',
    errors: { 429: ServerMessage.tooManyAttempts },
    query: { username: 'maria.souza@example.com', language: 'pt-br' },
  },
  'GET /api/auth/password/isValidToken': {
    ...invitationInfo('Check a password reset token; answers its e-mail'),
    errors: { 404: ServerMessage.tokenNotFound },
    response: { data: 'maria.souza@example.com' },
  },
  'POST /api/auth/password/resetPassword': {
    summary: 'Set a new password with a reset token',
    tag: 'Accounts',
    security: 'public',
    errors: { 400: [ServerMessage.validation, AccountMessage.passwordTooCommon], 404: ServerMessage.tokenNotFound },
    body: { ...TOKEN, password: 'Outra-Senha-2026', confirmPassword: 'Outra-Senha-2026', language: 'pt-br' },
  },
  'POST /api/v2/auth/user/changePassword': {
    summary: 'Change the password (current password required)',
    tag: 'Accounts',
    security: 'bearer',
    errors: {
      400: [
        ServerMessage.actualPasswordIncorrect,
        ServerMessage.actualPasswordNotInformed,
        ServerMessage.newPasswordNotInformed,
      ],
      403: ServerMessage.forbidden,
      404: AccountMessage.userNotFound,
      429: ServerMessage.tooManyAttempts,
    },
    body: {
      currentPassword: 'Resultado-2026',
      newPassword: 'Outra-Senha-2026',
      confirmNewPassword: 'Outra-Senha-2026',
    },
  },
  'POST /api/v2/auth/user/changeEmail': {
    summary: 'Change the e-mail (current password required)',
    tag: 'Accounts',
    security: 'bearer',
    errors: {
      400: [ServerMessage.actualPasswordIncorrect, AccountMessage.emailConfirmationMismatch],
      403: ServerMessage.forbidden,
      409: ServerMessage.newEmailInUse,
      429: ServerMessage.tooManyAttempts,
    },
    body: { currentPassword: 'Resultado-2026', newEmail: 'maria@example.org', confirmNewEmail: 'maria@example.org' },
    response: { data: { email: 'maria@example.org' } },
  },
  'GET /api/v2/auth/user/me': {
    summary: "The signed-in account's record",
    tag: 'Accounts',
    security: 'bearer',
    errors: SIGNED_IN,
  },
  'POST /api/v2/auth/user/edit': {
    summary: "Edit a patient's profile",
    tag: 'Accounts',
    security: 'bearer',
    errors: SIGNED_IN,
  },
  'POST /api/v2/auth/user/getEmailFrequencyOfUser': {
    summary: 'How often the account is mailed about new results',
    tag: 'Accounts',
    security: 'bearer',
    errors: SIGNED_IN,
  },
  'GET /api/auth/physician/get': invitationInfo('Read a physician invitation by its token'),
  'GET /api/v2/auth/physician/validate': invitationInfo('Read a physician invitation by its token (alias)'),
  'POST /api/v2/auth/physician/create': {
    summary: 'Create a physician account from an invitation',
    tag: 'Accounts',
    security: 'public',
    errors: { 404: [ServerMessage.tokenNotFound, ServerMessage.userAlreadyExists] },
  },
  'POST /api/v2/auth/physician/edit': {
    summary: "Edit a physician's profile",
    tag: 'Accounts',
    security: 'bearer',
    errors: SIGNED_IN,
  },
  'GET /api/auth/externaluser/validate': invitationInfo("Read an external user's first-password invitation"),
  'GET /api/auth/externaluser/get': invitationInfo("Read an external user's first-password invitation (alias)"),
  'POST /api/v2/auth/externaluser/edit': {
    summary: "Choose an external user's favourite group (tag)",
    tag: 'Accounts',
    security: 'bearer',
    errors: { 403: ServerMessage.forbidden, 404: [AccountMessage.favoriteTagNotYours, AccountMessage.userNotFound] },
  },
  'GET /api/auth/company/invite/validate': {
    ...invitationInfo("Read a company user's invitation; answers its e-mail"),
    response: { data: 'gestor@laboratorio.example.com' },
  },
  'POST /api/auth/company/create': {
    summary: 'Create a company user account from an invitation',
    tag: 'Accounts',
    security: 'public',
    errors: {
      400: [ServerMessage.validation, AccountMessage.termsNotAccepted],
      404: [ServerMessage.tokenNotFound, ServerMessage.userAlreadyExists],
    },
    body: {
      ...TOKEN,
      fullName: 'Carla Mendes',
      password: 'Gestora-2026!',
      confirmPassword: 'Gestora-2026!',
      acceptTerms: true,
    },
  },
  'GET /api/auth/admin/invite/validate': {
    ...invitationInfo("Read an administrator's invitation; answers its e-mail and name"),
    response: { data: { email: 'renata.operacoes@portal.example.com', name: 'Renata Operações' } },
  },
  'POST /api/auth/admin/create': {
    summary: 'Create an administrator account from an invitation (the console signs it in)',
    tag: 'Accounts',
    security: 'public',
    errors: {
      400: [ServerMessage.validation, AccountMessage.passwordTooCommon],
      404: [ServerMessage.tokenNotFound, ServerMessage.userAlreadyExists],
    },
    body: {
      ...TOKEN,
      fullName: 'Renata Operações',
      password: 'Console-2026-forte',
      confirmPassword: 'Console-2026-forte',
    },
  },
  'GET /api/v2/auth/institution/customLoginPage': {
    summary: "An institution's branded login page",
    tag: 'Institutions',
    security: 'public',
    errors: { 404: ServerMessage.institutionNotFound },
    query: { code: 'LAB01' },
  },
  'GET /api/v2/auth/institution/getById': {
    summary: "An institution's public data",
    tag: 'Institutions',
    security: 'public',
    errors: { 404: ServerMessage.institutionNotFound },
    query: { id: ID },
  },
  'GET /api/v2/auth/institution/{id}/setting/{name}': {
    summary: "One of an institution's public visualizer settings",
    tag: 'Institutions',
    security: 'public',
    errors: { 404: ServerMessage.institutionNotFound },
    params: { id: ID, name: 'showImages' },
    answers: {
      200: {
        description: "The setting's value (null when the institution does not set it).",
        content: {
          'application/json': {
            schema: { type: 'object', required: ['data'], properties: { data: { description: 'Any JSON value.' } } },
            example: { data: true },
          },
        },
      },
    },
  },
  'GET /api/v2/auth/isValidProtocol': {
    summary: 'Check a protocol number and password before linking or signing up',
    tag: 'Accounts',
    security: 'bearerOptional',
    errors: {
      400: [ServerMessage.validation, ServerMessage.passwordsNotTheSame],
      404: ServerMessage.protocolDoesNotExist,
      409: [ServerMessage.protocolAlreadyInUse, AccountMessage.protocolLinkedToAnotherAccount],
      429: ServerMessage.tooManyAttempts,
    },
    query: { protocol: '2026110001', password: 'Xk29-pq7' },
    response: { data: true, message: ServerMessage.protocolValid },
  },
  'POST /api/v2/auth/user/bindProtocol': {
    summary: "Link a protocol to the patient's account",
    tag: 'Accounts',
    security: 'bearer',
    errors: {
      400: [ServerMessage.validation, ServerMessage.passwordsNotTheSame],
      403: ServerMessage.forbidden,
      404: [ServerMessage.protocolDoesNotExist, ServerMessage.noProtocolRetrieved],
      409: [ServerMessage.protocolAlreadyInUse, AccountMessage.protocolLinkedToAnotherAccount],
      429: ServerMessage.tooManyAttempts,
    },
    body: { protocol: '2026110001', password: 'Xk29-pq7', patientUserId: ID },
  },

  'POST /api/administrationbe/physician/invite': {
    summary: 'Invite a physician (mails the sign-up link)',
    tag: 'Administration',
    security: 'bearer',
    errors: { ...ADMIN, 404: ServerMessage.institutionNotFound, 409: ServerMessage.userAlreadyExists },
    body: {
      email: 'paulo.lima@example.com',
      name: 'Paulo Lima',
      crm: '123456',
      uf: 'SP',
      institutionId: ID,
      language: 'pt-br',
    },
  },
  'POST /api/administrationbe/company/invite': {
    summary: 'Invite a company user of an institution',
    tag: 'Administration',
    security: 'bearer',
    errors: { ...ADMIN, 404: ServerMessage.institutionNotFound, 409: ServerMessage.userAlreadyExists },
    body: { email: 'gestor@laboratorio.example.com', institutionId: ID, language: 'pt-br' },
  },
  [`GET ${ADMINISTRATION}/tags`]: administration("An institution's tags", ADMIN, INSTITUTION),
  [`POST ${ADMINISTRATION}/tags`]: {
    ...administration('Create a tag', { ...ADMIN, 409: AccountMessage.tagAlreadyExists }, INSTITUTION),
    body: { tag: 'Oncologia' },
  },
  [`GET ${ADMINISTRATION}/containsTags`]: administration('Whether an institution has tags', ADMIN, INSTITUTION),
  [`GET ${ADMINISTRATION}/tags/{tagId}`]: administration('One tag'),
  [`PUT ${ADMINISTRATION}/tags/{tagId}`]: {
    ...administration('Rename a tag', { ...ADMIN, 409: AccountMessage.tagAlreadyExists }),
    body: { tag: 'Oncologia pediátrica' },
  },
  [`DELETE ${ADMINISTRATION}/tags/{tagId}`]: administration('Delete a tag no protocol uses', {
    ...ADMIN,
    409: AccountMessage.tagInUse,
  }),
  [`GET ${ADMINISTRATION}/tags/{tagId}/users`]: administration("A tag's external users"),
  [`POST ${ADMINISTRATION}/tags/{tagId}/users`]: {
    ...administration('Create or attach an external user of a tag (mails the first-password link)', {
      ...ADMIN,
      409: [ServerMessage.userAlreadyExists, AccountMessage.physicianKeepsOwnData],
    }),
    body: { email: 'parceiro@clinica.example.com', name: 'Rita Alves', language: 'pt-br' },
  },
  [`GET ${ADMINISTRATION}/tags/{tagId}/users/{userId}`]: administration(
    "One of a tag's external users",
    ADMIN,
    TAG_USER,
  ),
  [`PUT ${ADMINISTRATION}/tags/{tagId}/users/{userId}`]: administration(
    'Edit an external user of a tag',
    ADMIN,
    TAG_USER,
  ),
  [`DELETE ${ADMINISTRATION}/tags/{tagId}/users/{userId}`]: administration(
    'Detach an external user from a tag',
    { ...ADMIN, 409: AccountMessage.userSharedWithOtherInstitutions },
    TAG_USER,
  ),
  [`GET ${ADMINISTRATION}/physicians`]: {
    tag: 'Administration',
    security: 'bearer',
    errors: ADMIN,
    params: INSTITUTION,
  },
  [`POST ${ADMINISTRATION}/physicians`]: {
    tag: 'Administration',
    security: 'bearer',
    errors: { ...ADMIN, 404: AccountMessage.userNotFound },
    params: INSTITUTION,
    body: { email: 'paulo.lima@example.com' },
  },
  [`DELETE ${ADMINISTRATION}/physicians/{userId}`]: {
    tag: 'Administration',
    security: 'bearer',
    errors: { ...ADMIN, 404: AccountMessage.userNotFound },
    params: { id: ID, userId: TAG_USER.userId },
  },
};
