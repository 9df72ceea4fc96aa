import type { AnswerDoc, OperationDocs } from '../../plugins/openapi.js';

const status = (description: string, value: string): AnswerDoc => ({
  description,
  content: {
    'application/json': {
      schema: { type: 'object', required: ['status'], properties: { status: { type: 'string' } } },
      example: { status: value },
    },
  },
});

/** Contract 1: health checks, outside the envelope. */
export const healthOperations: OperationDocs = {
  'GET /healthz': {
    summary: 'Liveness: the process and its database answer',
    tag: 'Health',
    security: 'public',
    answers: { 200: status('Alive.', 'ok'), 503: status('The database does not answer.', 'unavailable') },
  },
  'GET /readyz': {
    summary: 'Readiness: migrations are done and the database answers',
    tag: 'Health',
    security: 'public',
    answers: { 200: status('Ready for traffic.', 'ok'), 503: status('Still starting (migrating).', 'starting') },
  },
};
