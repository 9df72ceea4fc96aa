import { ServerMessage } from '@portal/shared/errors';
import type { OperationDocs } from '../../plugins/openapi.js';

const ID = { id: '0b9f3c2e-5d1a-4c7e-9a8b-1f2e3d4c5b6a' };

/** Spec 7.1 and contract 8: shares. */
export const sharesOperations: OperationDocs = {
  'POST /api/auth/protocol/share': {
    summary: 'Share protocols with people by e-mail for a number of days',
    description: 'One share and one link (`/landing/<accessToken>`) per recipient e-mail; the mail carries the link.',
    tag: 'Shares',
    security: 'bearer',
    errors: {
      403: [ServerMessage.forbidden, ServerMessage.shareNotAllowed],
      404: [ServerMessage.notFound, ServerMessage.protocolDoesNotExist],
      429: ServerMessage.tooManyAttempts,
    },
    body: {
      protocols: ['0b9f3c2e-5d1a-4c7e-9a8b-1f2e3d4c5b6a'],
      emails: ['dr.paulo@example.com'],
      message: 'Resultados do meu exame de sangue.',
      period: 7,
      language: 'pt-br',
    },
  },
  'GET /api/auth/patient/{id}/shares': {
    summary: "A patient's shares, newest first",
    tag: 'Shares',
    security: 'bearer',
    errors: { 403: ServerMessage.forbidden, 404: ServerMessage.notFound },
    params: ID,
  },
  'POST /api/auth/patient/share/{id}/revoke': {
    summary: 'Revoke a share (its link stops working)',
    tag: 'Shares',
    security: 'bearer',
    errors: { 403: ServerMessage.forbidden, 404: ServerMessage.notFound },
    params: ID,
  },
};
