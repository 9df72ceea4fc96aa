import type { AnswerDoc, OperationDocs } from '../../plugins/openapi.js';
import { FHIR_JSON } from './outcome.js';

const RESOURCE = {
  type: 'object',
  description: 'A FHIR R4 resource (https://hl7.org/fhir/R4/).',
  required: ['resourceType'],
  properties: { resourceType: { type: 'string' } },
  additionalProperties: true,
};

function outcome(description: string, code: string, text: string): AnswerDoc {
  return {
    description,
    content: {
      [FHIR_JSON]: {
        schema: RESOURCE,
        example: { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code, details: { text } }] },
      },
    },
  };
}

const UNAUTHORIZED = outcome('No valid session (or API key).', 'login', 'Unauthorized.');
const NOT_FOUND = outcome('Not found, or not yours (both answer alike).', 'not-found', 'Resource not found');

const PATIENT = {
  resourceType: 'Patient',
  id: '0b9f3c2e-5d1a-4c7e-9a8b-1f2e3d4c5b6a',
  identifier: [{ system: 'urn:portal:patient:LAB01', value: 'P-000123' }],
  name: [{ text: 'Maria Souza' }],
  gender: 'female',
  birthDate: '1985-03-15',
};

/** Contract 9: FHIR R4. */
export const fhirOperations: OperationDocs = {
  'GET /api/fhir/R4/metadata': {
    tag: 'FHIR R4',
    security: 'public',
    answers: {
      500: outcome('The statement could not be made.', 'exception', 'Internal server error.'),
      200: {
        description: 'The CapabilityStatement: what this server reads and takes.',
        content: {
          [FHIR_JSON]: {
            schema: RESOURCE,
            example: { resourceType: 'CapabilityStatement', status: 'active', kind: 'instance', fhirVersion: '4.0.1' },
          },
        },
      },
    },
  },
  'POST /api/fhir/R4': {
    tag: 'FHIR R4',
    security: 'apiKey',
    requestContent: {
      [FHIR_JSON]: {
        schema: RESOURCE,
        example: {
          resourceType: 'Bundle',
          type: 'transaction',
          entry: [
            {
              fullUrl: 'urn:uuid:4f7c2a10-1d2e-4b3c-8a9d-0e1f2a3b4c5d',
              resource: { ...PATIENT, id: undefined },
              request: { method: 'PUT', url: 'Patient?identifier=urn:portal:patient:LAB01|P-000123' },
            },
          ],
        },
      },
    },
    answers: {
      200: {
        description: 'A transaction-response (or batch-response) Bundle.',
        content: {
          [FHIR_JSON]: {
            schema: RESOURCE,
            example: {
              resourceType: 'Bundle',
              type: 'transaction-response',
              entry: [{ response: { status: '201 Created', location: `Patient/${PATIENT.id}/_history/1` } }],
            },
          },
        },
      },
      400: outcome(
        'The Bundle is not valid; the issue names the element at fault.',
        'invalid',
        'Bundle.type must be transaction or batch',
      ),
      401: outcome('No valid API key.', 'login', 'Invalid API key.'),
    },
  },
  'GET /api/fhir/R4/{type}': {
    tag: 'FHIR R4',
    security: 'bearer',
    params: { type: 'Patient' },
    answers: {
      200: {
        description: 'A searchset Bundle of what the session may see (spec section 6).',
        content: {
          [FHIR_JSON]: {
            schema: RESOURCE,
            example: { resourceType: 'Bundle', type: 'searchset', total: 1, entry: [{ resource: PATIENT }] },
          },
        },
      },
      401: UNAUTHORIZED,
      404: outcome('A resource type this server does not serve.', 'not-supported', 'Claim is not served here'),
      405: outcome('Binary is read by id only.', 'not-supported', 'Binary is read by id'),
    },
  },
  'GET /api/fhir/R4/{type}/{id}': {
    tag: 'FHIR R4',
    security: 'bearer',
    params: { type: 'Patient', id: PATIENT.id },
    answers: {
      200: {
        description:
          'The resource. A `Binary` is sent as its bytes, or as a Binary resource in base64 when asked as JSON.',
        content: {
          [FHIR_JSON]: { schema: RESOURCE, example: PATIENT },
          'application/pdf': { schema: { type: 'string', format: 'binary' } },
        },
      },
      401: UNAUTHORIZED,
      404: NOT_FOUND,
    },
  },
};
