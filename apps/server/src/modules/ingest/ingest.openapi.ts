import { ServerMessage } from '@portal/shared/errors';
import type { OperationDocs } from '../../plugins/openapi.js';

const PROTOCOL = '/api/v2/delivery/ingest/protocols/{number}';
const RESOURCE = `${PROTOCOL}/exams/{examKey}/resources/{identifier}`;
const KEYS = { number: '2026110001', examKey: 'HEM-1', identifier: 'laudo-hem-1' };
const BINARY = { schema: { type: 'string', format: 'binary' } };
const RESULT = { requestId: '0b9f3c2e-5d1a-4c7e-9a8b-1f2e3d4c5b6a', number: '2026110001' };
const UPLOADED = {
  ...RESULT,
  examKey: 'HEM-1',
  identifier: 'laudo-hem-1',
  type: 'REPORT',
  contentType: 'application/pdf',
  size: 48213,
  sha256: '9f2c4e1a7b3d5f60812a4c6e8b0d2f4a6c8e0b2d4f6a8c0e2b4d6f8a0c2e4b6d',
  pageCount: 2,
  signed: false,
};

/** Contract 5: what the reference says of the ingest calls. */
export const ingestOperations: OperationDocs = {
  [`PUT ${PROTOCOL}`]: {
    summary: 'Create or update a protocol with its patient and exams',
    description:
      '201 when the protocol is new, 200 when it replaced an earlier version. Idempotent: the same body sent ' +
      'twice changes nothing. Exams a later version no longer lists are disabled, never deleted. `status` takes ' +
      'either form of spec 4.1; `analytes` feed the results history. With the institution setting ' +
      '`autoInvitePatients`, a patient with an e-mail and no account is mailed an invitation to create one, once ' +
      'per `patient.patientId` (invitation status AUTO_INVITE).',
    tag: 'Ingest',
    security: 'apiKey',
    errors: { 413: ServerMessage.payloadTooLarge },
    params: { number: KEYS.number },
    body: {
      password: 'Xk29-pq7',
      requestedAt: '2026-11-18T08:10:00-03:00',
      tag: 'Oncologia',
      patient: {
        patientId: 'P-000123',
        name: 'Maria Souza',
        birthDate: '1985-03-15',
        gender: 'F',
        email: 'maria.souza@example.com',
        phone: '11987654321',
        cpf: '529.982.247-25',
        motherName: 'Ana Souza',
      },
      exams: [
        {
          examKey: KEYS.examKey,
          description: 'Hemograma completo',
          type: 'Hemograma',
          modalityCode: 'LAB',
          modalityName: 'Laboratório',
          requester: { identifier: 'MED-77', name: 'Dr. Paulo Lima', crm: '123456', uf: 'SP' },
          status: 'FINISHED',
          performedAt: '2026-11-18T09:00:00-03:00',
          deliveredAt: '2026-11-19T14:00:00-03:00',
          analytes: [
            { code: 'HB', name: 'Hemoglobina', unit: 'g/dL', value: 13.5, referenceMin: 12, referenceMax: 16 },
          ],
        },
      ],
    },
    response: { data: RESULT },
  },
  [`DELETE ${PROTOCOL}`]: {
    summary: 'Disable a protocol (nothing is erased)',
    tag: 'Ingest',
    security: 'apiKey',
    errors: { 404: ServerMessage.protocolDoesNotExist },
    params: { number: KEYS.number },
    response: { data: RESULT },
  },
  [`POST ${PROTOCOL}/invite`]: {
    summary: "Mail the protocol's patient an invitation to open an account",
    tag: 'Ingest',
    security: 'apiKey',
    errors: { 404: ServerMessage.protocolDoesNotExist },
    params: { number: KEYS.number },
    query: { language: 'pt-br' },
    body: { language: 'pt-br' },
    response: { data: RESULT },
  },
  [`PUT ${RESOURCE}`]: {
    summary: "Store a file of an exam (report, physician's report, image or analysis)",
    description:
      'The body is the file itself. 201 when new, 200 when it replaced the earlier file of that identifier. ' +
      'Limited to INGEST_MAX_BYTES.',
    tag: 'Ingest',
    security: 'apiKey',
    errors: {
      404: ServerMessage.notFound,
      413: ServerMessage.payloadTooLarge,
      415: ServerMessage.unsupportedMediaType,
    },
    params: KEYS,
    query: { type: 'REPORT' },
    requestContent: {
      'application/pdf': BINARY,
      'image/jpeg': BINARY,
      'image/png': BINARY,
      'application/dicom': BINARY,
    },
    response: { data: UPLOADED },
  },
  [`PUT ${RESOURCE}/signed`]: {
    summary: 'Store the digitally signed version of a file',
    description: 'A detached PKCS#7 signature or a PAdES-signed PDF of a file stored before.',
    tag: 'Ingest',
    security: 'apiKey',
    errors: {
      404: ServerMessage.notFound,
      413: ServerMessage.payloadTooLarge,
      415: ServerMessage.unsupportedMediaType,
    },
    params: KEYS,
    requestContent: { 'application/pkcs7-signature': BINARY, 'application/pdf': BINARY },
    response: { data: { ...UPLOADED, contentType: 'application/pkcs7-signature', pageCount: null, signed: true } },
  },
};
