import { ServerMessage } from '@portal/shared/errors';
import type { OperationDocs } from '../../plugins/openapi.js';

const ID = { id: '0b9f3c2e-5d1a-4c7e-9a8b-1f2e3d4c5b6a' };
const REFUSED = { 403: ServerMessage.forbidden, 404: ServerMessage.notFound };
const FILTERS = { protocol: '2026110001', initialDate: '01/11/2026', finalDate: '30/11/2026' };

/** "Who saw my results" (LGPD transparency): the patient's own calls. */
export const accessLogOperations: OperationDocs = {
  'GET /api/auth/patient/{id}/accesses': {
    summary: "Who opened the patient's results, newest first",
    description:
      "The accesses to the signed-in patient's own protocols from the audit trail: when, what (viewed the protocol, " +
      'opened a report or image, printed, downloaded the signed file, opened through a share, signed in with the ' +
      "protocol's password, staff actions) and who, named only as far as the rules allow: `YOU`; `PHYSICIAN` with " +
      'name and license (CRM/UF); `PARTNER` with the tag that reached the protocol; `SHARE_RECIPIENT` with the e-mail the patient shared with; ' +
      "`GUEST` (someone with the protocol's password); `STAFF` (a name only when the institution's setting " +
      "`accessLogStaffNames` is on); `PORTAL_SUPPORT`; `SYSTEM`. `{id}` is the session user's `identifier`; patients only.",
    tag: 'Accounts',
    security: 'bearer',
    errors: REFUSED,
    params: ID,
    query: { ...FILTERS, page: 1, size: 20 },
  },
  'GET /api/auth/patient/{id}/accesses/export.csv': {
    summary: "Who opened the patient's results, as CSV",
    description: 'The same filters (page and size aside), every matching access, in the words of `language`, streamed.',
    tag: 'Accounts',
    security: 'bearer',
    errors: REFUSED,
    params: ID,
    query: { ...FILTERS, language: 'pt-br' },
    answers: {
      200: {
        description: 'UTF-8 CSV with a byte-order mark, as a download (`Content-Disposition: attachment`).',
        content: {
          'text/csv': {
            schema: { type: 'string' },
            example:
              '\uFEFF"Data e hora (horário de Brasília)","Protocolo","Instituição","O que foi feito","Quem","Exames"\r\n' +
              '"20/11/2026 09:31","2026110001","Laboratório Central","Abriu um laudo","Dr(a). Paulo Lima, CRM 123456/SP","Hemograma completo"\r\n',
          },
        },
      },
    },
  },
  'GET /api/auth/patient/{id}/access-alerts': {
    summary: 'Whether the patient gets a mail when someone else opens a result',
    tag: 'Accounts',
    security: 'bearer',
    errors: REFUSED,
    params: ID,
  },
  'PUT /api/auth/patient/{id}/access-alerts': {
    summary: 'Turn the mail on or off when someone else opens a result',
    description:
      'Off by default. At most one mail per protocol every few hours; the mail names no one, it links to the access log.',
    tag: 'Accounts',
    security: 'bearer',
    errors: REFUSED,
    params: ID,
    body: { enabled: true },
  },
};
