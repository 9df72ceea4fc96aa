import { ServerMessage } from '@portal/shared/errors';
import { TermMessage } from '@portal/shared/messages';
import type { OperationDocs } from '../../plugins/openapi.js';

/** Spec 7.5 and contract 7: terms of use. */
export const termsOperations: OperationDocs = {
  'GET /api/v2/delivery/term': {
    summary: 'The current terms of use of a kind of user',
    tag: 'Terms',
    security: 'public',
  },
  'GET /api/v2/delivery/term/user': {
    summary: 'The terms the signed-in user has not accepted yet',
    tag: 'Terms',
    security: 'bearer',
  },
  'POST /api/v2/delivery/term/user': {
    summary: 'Accept terms of use',
    tag: 'Terms',
    security: 'bearer',
    errors: { 400: [ServerMessage.validation, TermMessage.termNotCurrent] },
  },
};
