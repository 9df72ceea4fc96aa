import { ServerMessage } from '@portal/shared/errors';
import type { AnswerDoc, OperationDoc, OperationDocs } from '../../plugins/openapi.js';

const ID = '0b9f3c2e-5d1a-4c7e-9a8b-1f2e3d4c5b6a';
const RANGE = { initialDate: '01/11/2026', finalDate: '30/11/2026' };
const REFUSED = { 403: ServerMessage.forbidden, 404: ServerMessage.notFound };
const BINARY = { schema: { type: 'string', format: 'binary' } };
const LEFT_OUT = {
  description: 'How many reports were replaced by a page saying why they are missing (0 when none).',
  schema: { type: 'integer', minimum: 0 },
};

const list = (summary: string, forbidden = true): OperationDoc => ({
  summary,
  tag: 'Results',
  security: 'bearer',
  errors: forbidden ? { 403: ServerMessage.forbidden } : {},
  query: { ...RANGE, page: 1, size: 20 },
});

const file = (what: string, types: Record<string, typeof BINARY>): AnswerDoc => ({
  description:
    `The ${what}, with \`Accept-Ranges\` and \`Content-Disposition\` (\`<protocol> - <exam> - <date>\`: an ASCII ` +
    "`filename` and, when the name is not ASCII, the exact one as `filename*=UTF-8''…`); 206 for a `Range`.",
  headers: { 'X-Reports-Left-Out': LEFT_OUT },
  content: types,
});

const resource = (kind: 'report' | 'image' | 'signature', types: Record<string, typeof BINARY>): OperationDoc => ({
  tag: 'Results',
  security: 'bearer',
  errors: {
    404: [ServerMessage.notFound, ServerMessage.resourceUnavailable],
    409: [ServerMessage.reportAwaitingRectification, ServerMessage.resultHeld],
    416: ServerMessage.validation,
  },
  query: { resourceId: ID, request: ID },
  answers: {
    200: file(
      kind === 'report' ? 'report (or, with `showAll`, every report merged into one PDF)' : `${kind} file`,
      types,
    ),
    206: { description: 'The byte range asked for.', content: types },
  },
});

/** Spec 7.3 to 7.5: results, files, printing, history, trace and the administration directory. */
export const deliveryOperations: OperationDocs = {
  'GET /api/v2/delivery/dashboard/protocols': list(
    "The session's protocols (patient, guest or share), newest first",
    false,
  ),
  'GET /api/v2/delivery/protocols/exams': list("A guest's protocols as the protocol form lists them", false),
  'GET /api/delivery/persistence/protocols/physician': list("A physician's protocols (his license and tags)"),
  'GET /api/delivery/persistence/protocols/all': list("A physician's protocols (alias of protocols/physician)"),
  'GET /api/v2/delivery/protocols/listedByTags': list("An external user's protocols, those of his tags"),
  'GET /api/delivery/persistence/dashboard/protocols/patient/byTotal': {
    summary: "A patient's latest protocols",
    tag: 'Results',
    security: 'bearer',
    errors: { 403: ServerMessage.forbidden },
    query: { total: 10 },
  },
  'GET /api/v2/delivery/dashboard/protocols/exams': {
    summary: "A protocol's exams (each view is audited)",
    tag: 'Results',
    security: 'bearer',
    errors: REFUSED,
    query: { request: ID },
  },
  'GET /api/delivery/persistence/dashboard/protocols/exams': {
    summary: "A protocol's exams (alias)",
    tag: 'Results',
    security: 'bearer',
    errors: REFUSED,
    query: { requestId: ID },
  },
  'GET /api/delivery/persistence/dashboard/protocol/byId': {
    summary: 'One protocol with its patient and institution',
    tag: 'Results',
    security: 'bearer',
    errors: REFUSED,
    query: { id: ID },
  },
  'GET /api/delivery/persistence/exams': {
    summary: "A protocol's exams, by protocol id",
    tag: 'Results',
    security: 'bearer',
    errors: REFUSED,
    query: { byId: ID },
  },
  'GET /api/v2/delivery/resource/report': resource('report', { 'application/pdf': BINARY }),
  'GET /api/v2/delivery/resource/image': resource('image', {
    'image/jpeg': BINARY,
    'image/png': BINARY,
    'application/dicom': BINARY,
  }),
  'GET /api/v2/delivery/resource/signature': resource('signature', {
    'application/pkcs7-signature': BINARY,
    'application/pdf': BINARY,
  }),
  'GET /api/v2/delivery/resource/signature/verification': {
    tag: 'Results',
    security: 'bearer',
    errors: { ...REFUSED, 404: [ServerMessage.notFound, ServerMessage.resourceUnavailable] },
    query: { resourceId: ID },
  },
  'POST /api/v2/delivery/resource/batchPrinting': {
    tag: 'Results',
    security: 'bearer',
    errors: {
      400: [ServerMessage.listAtLeastOne, ServerMessage.listAtMostFifty],
      ...REFUSED,
      503: ServerMessage.serverBusy,
    },
    body: { requestIds: [ID, '6d1e8f20-3b4a-4c5d-9e0f-1a2b3c4d5e6f'], isCompressed: false },
    answers: {
      200: {
        description: 'One PDF (a bookmark per protocol) or, with `isCompressed`, a zip with a folder per protocol.',
        headers: { 'X-Reports-Left-Out': LEFT_OUT },
        content: { 'application/pdf': BINARY, 'application/zip': BINARY },
      },
    },
  },
  'GET /api/delivery/examtypes/range': {
    summary: 'Exam types with analytes in a date range (results history)',
    tag: 'Results',
    security: 'bearer',
    errors: { 403: ServerMessage.forbidden },
    query: RANGE,
    response: { data: [{ id: 'Hemograma|Hemograma completo', name: 'Hemograma completo' }] },
  },
  'GET /api/delivery/history/attributes': {
    summary: 'The analytes of an exam type in a date range',
    tag: 'Results',
    security: 'bearer',
    errors: { 403: ServerMessage.forbidden },
    query: { ...RANGE, examTypeInstitutionId: 'Hemograma|Hemograma completo' },
    response: { data: [{ id: 'HB', name: 'Hemoglobina' }] },
  },
  'GET /api/delivery/history': {
    summary: "An analyte's values over time, a column per date",
    tag: 'Results',
    security: 'bearer',
    errors: { 403: ServerMessage.forbidden },
    query: { ...RANGE, examTypeInstitutionId: 'Hemograma|Hemograma completo', attributeId: 'HB' },
    response: {
      data: {
        columns: ['Exame', '03/11/2026', '18/11/2026'],
        rows: [
          ['Hemoglobina (g/dL)', '12.9', '13.5'],
          ['Valor de referência', '12 a 16', '12 a 16'],
        ],
        series: [
          { date: '2026-11-03', value: 12.9, unit: 'g/dL', referenceMin: 12, referenceMax: 16, abnormalFlag: null },
          { date: '2026-11-18', value: 13.5, unit: 'g/dL', referenceMin: 12, referenceMax: 16, abnormalFlag: 'N' },
        ],
      },
    },
  },
  'POST /api/v2/delivery/trace/log': {
    summary: "Add one of the client's own events to the audit trail",
    tag: 'Trace',
    security: 'bearer',
    errors: { 403: ServerMessage.forbidden },
    body: { application: 'web', event: 'PRINT_REPORT', occurredAt: '2026-11-20T09:30:00.000-03:00' },
  },
  'POST /api/v2/delivery/trace/log/all': {
    summary: "Add several of the client's own events to the audit trail",
    tag: 'Trace',
    security: 'bearer',
    errors: { 403: ServerMessage.forbidden, 413: ServerMessage.payloadTooLarge },
    body: [{ application: 'web', event: 'PRINT_REPORT', occurredAt: '2026-11-20T09:30:00.000-03:00' }],
  },
  'GET /api/administrationbe/trace': {
    summary: "A protocol's audit trail",
    tag: 'Trace',
    security: 'bearer',
    errors: { 403: ServerMessage.forbidden },
    query: { protocol: '2026110001', page: 1, size: 20 },
  },
  'GET /api/administrationbe/userlogged/institutionAdmin': {
    summary: "The signed-in company user's institution",
    tag: 'Administration',
    security: 'bearer',
    errors: { 403: ServerMessage.forbidden },
  },
  'GET /api/administrationbe/listOfPartnerClinics': {
    summary: 'The institutions the session may filter by',
    tag: 'Administration',
    security: 'bearer',
  },
  'GET /api/administrationbe/city/state/{uf}': {
    summary: 'The municipalities of a state (IBGE), for address forms',
    tag: 'Institutions',
    security: 'public',
    params: { uf: 'SP' },
  },
  'GET /api/administrationbe/user': {
    summary: 'Find an account by e-mail or CPF',
    tag: 'Administration',
    security: 'bearer',
    errors: REFUSED,
    query: { userName: 'maria.souza@example.com' },
  },
  'GET /api/v2/delivery/institutionUserTags': {
    summary: "The signed-in external user's tags",
    tag: 'Results',
    security: 'bearer',
  },
  'GET /api/v2/delivery/interlocution/smart/auth': {
    summary: "A SMART token to open an exam in the institution's viewer",
    tag: 'Results',
    security: 'bearer',
    errors: REFUSED,
    query: { institution: 'LAB01', exam: 'HEM-1' },
  },
  'POST /api/v2/delivery/exams/{id}/release': {
    summary: "Release a held result to the patient (the exam's requesting physician)",
    description:
      'Ends the hold an institution rule puts on a sensitive result (held for N hours or until the physician ' +
      'releases it; results delivered in person cannot be released online). Traced as RESULT_RELEASED; the ' +
      "patient's result-ready notice follows.",
    tag: 'Results',
    security: 'bearer',
    errors: {
      403: ServerMessage.forbidden,
      404: ServerMessage.notFound,
      409: ServerMessage.holdNotReleasable,
    },
    params: { id: ID },
  },
  'POST /api/v2/delivery/interlocution/smart/updatestatus': {
    summary: "The institution's viewer reports an exam's status (the SMART token authenticates)",
    tag: 'Results',
    security: 'public',
    errors: { 401: ServerMessage.unauthorized, 404: ServerMessage.notFound },
    body: { authentication: 'q3Vt0hX9cF2mJ8rLkP4sWz7aYb1NdE6g', request: ID, exam: 'HEM-1', status: 'VIEWED' },
  },
};
