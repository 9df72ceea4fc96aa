import type { OperationDocs } from '../../plugins/openapi.js';

const MESSAGE =
  'MSH|^~\\&|LIS|LAB01|PORTAL|PORTAL|20261118090000||ORU^R01|MSG0001|P|2.5|||||BRA|UNICODE UTF-8\r' +
  'PID|1||P-000123||SOUZA^MARIA||19850315|F\r' +
  'ORC|RE|2026110001\r' +
  'OBR|1|2026110001|HEM-1|HEM^Hemograma completo|||20261118090000\r' +
  'OBX|1|NM|HB^Hemoglobina||13.5|g/dL|12-16|N|||F\r';
const ACK = 'MSH|^~\\&|PORTAL|PORTAL|LIS|LAB01|20261118090001||ACK^R01|ACK0001|P|2.5\rMSA|AA|MSG0001\r';
const HL7 = 'x-application/hl7-v2+er7';

/** Contract 9: HL7 v2 over HTTPS. */
export const hl7Operations: OperationDocs = {
  'POST /api/v2/delivery/ingest/hl7': {
    tag: 'HL7',
    security: 'apiKey',
    errors: { 413: 'Payload too large.', 415: 'Unsupported media type.' },
    requestContent: { [HL7]: { schema: { type: 'string' }, example: MESSAGE } },
    answers: {
      200: {
        description: 'The ACK: `MSA-1` AA once stored, AE or AR with the reason in `MSA-3` and `ERR`.',
        content: { [HL7]: { schema: { type: 'string' }, example: ACK } },
      },
    },
  },
};
