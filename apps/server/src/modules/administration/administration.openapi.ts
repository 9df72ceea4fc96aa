import { ServerMessage } from '@portal/shared/errors';
import type { OperationDoc, OperationDocs } from '../../plugins/openapi.js';

const BASE = '/api/administrationbe';
const ID = { id: '0b9f3c2e-5d1a-4c7e-9a8b-1f2e3d4c5b6a' };
const REFUSED = { 403: ServerMessage.forbidden, 404: ServerMessage.notFound };

/** Admins and company users only (the role is checked before the input). */
const consoleCall = (extra: Partial<OperationDoc> = {}): OperationDoc => ({
  tag: 'Administration',
  security: 'bearer',
  errors: REFUSED,
  ...extra,
});

/** The administration console's calls (summaries and descriptions live on the routes). */
export const administrationOperations: OperationDocs = {
  [`GET ${BASE}/institution`]: consoleCall({ errors: { 403: ServerMessage.forbidden } }),
  [`GET ${BASE}/dashboard`]: consoleCall({ errors: { 403: ServerMessage.forbidden } }),
  [`GET ${BASE}/protocols`]: consoleCall({ errors: { 403: ServerMessage.forbidden } }),
  [`GET ${BASE}/protocols/{id}`]: consoleCall({ params: ID }),
  [`PUT ${BASE}/protocols/{id}/status`]: consoleCall({
    params: ID,
    body: { disabled: true, reason: 'Exame cancelado pelo laboratório' },
  }),
  [`GET ${BASE}/audit`]: consoleCall({
    errors: { 403: ServerMessage.forbidden },
    query: { protocol: '2026110001', page: 1, size: 20 },
  }),
  [`GET ${BASE}/audit/export.csv`]: consoleCall({
    errors: { 403: ServerMessage.forbidden },
    query: { protocol: '2026110001' },
    answers: {
      200: {
        description: 'Every matching row as UTF-8 CSV, as a download (`Content-Disposition: attachment`).',
        content: {
          'text/csv': {
            schema: { type: 'string' },
            example:
              'occurredAt,event,tenant,protocolNumber,userId,userName,role,sharedWith,ip,detail\r\n' +
              '"2026-11-20T12:31:04.120Z","VIEW_REPORT","LAB01","2026110001","0b9f3c2e-5d1a-4c7e-9a8b-1f2e3d4c5b6a",' +
              '"Maria Souza","PATIENT","","203.0.113.7",""\r\n',
          },
        },
      },
    },
  }),
  [`GET ${BASE}/outbox`]: consoleCall({ query: { status: 'DEAD', page: 1, size: 20 } }),
  [`POST ${BASE}/outbox/{id}/resend`]: consoleCall({ params: ID }),
  [`GET ${BASE}/accounts`]: consoleCall({ errors: { 403: ServerMessage.forbidden } }),
  [`PUT ${BASE}/accounts/{id}/disabled`]: consoleCall({ params: ID, body: { disabled: true } }),
  [`POST ${BASE}/accounts/{id}/unlock`]: consoleCall({ params: ID }),
  [`POST ${BASE}/accounts/{id}/sessions/end`]: consoleCall({ params: ID }),
  [`POST ${BASE}/admin/invite`]: consoleCall({
    errors: { 403: ServerMessage.forbidden, 409: ServerMessage.userAlreadyExists },
    body: { email: 'renata.operacoes@portal.example.com', name: 'Renata Operações', language: 'pt-br' },
  }),
  [`GET ${BASE}/invitations`]: consoleCall({
    errors: { 403: ServerMessage.forbidden },
    query: { state: 'PENDING', page: 1, size: 20 },
  }),
  [`POST ${BASE}/invitations/{id}/resend`]: consoleCall({
    params: ID,
    errors: { ...REFUSED, 409: ServerMessage.userAlreadyExists },
  }),
  [`DELETE ${BASE}/invitations/{id}`]: consoleCall({ params: ID }),
  [`GET ${BASE}/ingest-calls`]: consoleCall({
    errors: { 403: ServerMessage.forbidden },
    query: { errors: 'true', page: 1, size: 25 },
  }),
};
