import { ServerMessage } from '@portal/shared/errors';
import type { OperationDocs } from '../../plugins/openapi.js';

/** Issue 22.3: the public check of a delivered report. */
export const signatureOperations: OperationDocs = {
  'POST /api/v2/public/validate': {
    summary: 'Check a delivered report by its verification code',
    description:
      "The code printed in a report's margin (spaces, dashes and case aside) and the SHA-256 of a file (the page " +
      'hashes it in the browser: the file never leaves the device). `match` when the file is the report, its signed ' +
      'file or its stamped copy; the institution, the delivery date and the patient initials, never more; the stored ' +
      'check of the signature. At most 30 checks per client address in 10 minutes.',
    tag: 'Results',
    security: 'public',
    errors: { 429: ServerMessage.tooManyAttempts },
    body: { code: 'K7QXM-4R9TB', sha256: 'a3f1c0e5d2b4a6978869d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2' },
  },
};
