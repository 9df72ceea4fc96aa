import type { FastifyError, FastifyPluginAsync, FastifyReply } from 'fastify';
import { ServerMessage } from '@portal/shared/errors';
import type { AppContext } from '../../context.js';
import { AppError, unauthorized } from '../../lib/errors.js';
import { authenticate, requireAuth } from '../../plugins/auth.js';
import { findInstitutionByApiKey } from '../institutions/institution.service.js';
import { capabilityStatement } from './capability.js';
import { ingestBundle } from './fhir-ingest.service.js';
import { READ_TYPES, type ReadType } from './fhir-mapping.js';
import { readBinary, readOne, search, type SearchQuery } from './fhir-read.service.js';
import { FHIR_JSON, FhirError, type Issue, type IssueCode, operationOutcome } from './outcome.js';

export const FHIR_BASE = '/api/fhir/R4';

const CODE_OF_STATUS: Record<number, IssueCode> = {
  400: 'invalid',
  401: 'login',
  403: 'forbidden',
  404: 'not-found',
  409: 'conflict',
  413: 'too-costly',
  415: 'not-supported',
  422: 'processing',
  429: 'throttled',
};

function sendFhir(reply: FastifyReply, status: number, body: unknown) {
  return reply.status(status).type(`${FHIR_JSON}; charset=utf-8`).send(JSON.stringify(body));
}

/** Contract 9: FHIR R4 in (transaction and batch Bundles) and out (reads limited by spec 6). */
export default function fhirRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (app) => {
    const base = `${ctx.config.publicUrl}${FHIR_BASE}`;
    // A Bundle carries its PDFs in base64: room for the ingest limit of files, plus the JSON.
    const bundleLimit = Math.ceil(ctx.config.ingestMaxBytes * 1.4) + 1024 * 1024;
    app.decorateRequest('ingestInstitution', null);
    app.addContentTypeParser(FHIR_JSON, { parseAs: 'string' }, app.getDefaultJsonParser('error', 'error'));

    // Every refusal is an OperationOutcome, with the element at fault where there is one.
    app.setErrorHandler((error: FastifyError | AppError | FhirError, request, reply) => {
      if (error instanceof FhirError) return sendFhir(reply, error.statusCode, operationOutcome(error.issues));
      const status = error.statusCode ?? 500;
      if (status >= 500) {
        request.log.error({ err: error }, 'FHIR request failed');
        return sendFhir(reply, 500, operationOutcome([{ code: 'exception', text: ServerMessage.internal }]));
      }
      if (error instanceof AppError && error.headers) reply.headers(error.headers);
      if (status === 401) reply.header('www-authenticate', 'Bearer');
      const issue: Issue = { code: CODE_OF_STATUS[status] ?? 'processing', text: error.message };
      if (error instanceof AppError && Array.isArray(error.data)) {
        return sendFhir(
          reply,
          status,
          operationOutcome(
            (error.data as Array<{ field?: string; message?: string }>).map((d) => ({
              ...issue,
              text: `${d.field ?? ''}: ${d.message ?? ''}`,
            })),
          ),
        );
      }
      return sendFhir(reply, status, operationOutcome([issue]));
    });

    app.get(
      `${FHIR_BASE}/metadata`,
      { schema: { summary: 'FHIR R4 CapabilityStatement (no sign-in)', tags: ['FHIR R4'], security: [] } },
      async (_request, reply) => sendFhir(reply, 200, capabilityStatement(base, ctx.clock.now().toISOString())),
    );

    app.post(
      FHIR_BASE,
      {
        bodyLimit: bundleLimit,
        schema: {
          summary: 'Deliver results as a FHIR R4 transaction or batch Bundle',
          description:
            'Patient, ServiceRequest (the protocol), DiagnosticReport (an exam), Observation (analytes), DocumentReference/Binary or presentedForm (report files), ImagingStudy. Conditional create (ifNoneExist) and update (PUT Type?identifier=) by identifier make a resend idempotent. Answers a transaction-response (or batch-response) Bundle, or an OperationOutcome naming the element at fault. See docs/integration/fhir.md.',
          tags: ['FHIR R4'],
          security: [{ apiKey: [] }],
        },
        // The key is checked before the body is read: a stranger learns nothing.
        onRequest: async (request) => {
          const header = request.headers['x-api-key'];
          const institution = await findInstitutionByApiKey(ctx, typeof header === 'string' ? header : undefined);
          if (!institution) throw unauthorized(ServerMessage.invalidApiKey);
          request.ingestInstitution = institution;
        },
      },
      async (request, reply) => {
        const institution = request.ingestInstitution;
        if (!institution) throw unauthorized(ServerMessage.invalidApiKey);
        return sendFhir(reply, 200, await ingestBundle(ctx, institution, request.body));
      },
    );

    const preHandler = authenticate(ctx);
    const typeOf = (name: string): ReadType => {
      if (!(READ_TYPES as readonly string[]).includes(name)) {
        throw new FhirError(404, [{ code: 'not-supported', text: `${name} is not served here`, location: name }]);
      }
      return name as ReadType;
    };

    app.get<{ Params: { type: string }; Querystring: SearchQuery }>(
      `${FHIR_BASE}/:type`,
      {
        preHandler,
        schema: {
          summary: 'Search results the signed-in user may see (searchset Bundle)',
          tags: ['FHIR R4'],
          security: [{ bearer: [] }],
        },
      },
      async (request, reply) => {
        const type = typeOf(request.params.type);
        if (type === 'Binary') throw new FhirError(405, [{ code: 'not-supported', text: 'Binary is read by id' }]);
        return sendFhir(reply, 200, await search(ctx, requireAuth(request), type, request.query, request, base));
      },
    );

    app.get<{ Params: { type: string; id: string } }>(
      `${FHIR_BASE}/:type/:id`,
      {
        preHandler,
        schema: {
          summary: 'Read one resource the signed-in user may see (404 otherwise)',
          tags: ['FHIR R4'],
          security: [{ bearer: [] }],
        },
      },
      async (request, reply) => {
        const type = typeOf(request.params.type);
        const auth = requireAuth(request);
        if (type !== 'Binary') return sendFhir(reply, 200, await readOne(ctx, auth, type, request.params.id, request));
        const file = await readBinary(ctx, auth, request.params.id, request);
        const accept = request.headers.accept ?? '';
        if (!accept.includes(FHIR_JSON) && !accept.includes('application/json')) {
          return reply.status(file.status).headers(file.headers).send(file.body);
        }
        // Asked as a resource: the Binary with its bytes in base64.
        const chunks: Buffer[] = [];
        if (Buffer.isBuffer(file.body)) chunks.push(file.body);
        else for await (const chunk of file.body) chunks.push(Buffer.from(chunk as Buffer));
        return sendFhir(reply, 200, {
          resourceType: 'Binary',
          id: request.params.id,
          contentType: file.headers['content-type'],
          data: Buffer.concat(chunks).toString('base64'),
        });
      },
    );
  };
}
