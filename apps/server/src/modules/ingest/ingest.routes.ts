import type { Readable } from 'node:stream';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ServerMessage } from '@portal/shared/errors';
import { envelope } from '@portal/shared/schemas/common';
import {
  RESOURCE_CONTENT_TYPES,
  SIGNED_CONTENT_TYPES,
  zIngestInviteBody,
  zIngestInviteQuery,
  zIngestProtocol,
  zIngestProtocolParams,
  zIngestProtocolResult,
  zIngestResourceParams,
  zIngestResourceQuery,
  zIngestResourceResult,
} from '@portal/shared/schemas/ingest';
import type { AppContext } from '../../context.js';
import { unauthorized } from '../../lib/errors.js';
import { findInstitutionByApiKey, type Institution } from '../institutions/institution.service.js';
import { ingestResource } from './ingest-resource.service.js';
import { disableProtocol, ingestProtocol, invitePatient } from './ingest.service.js';
import { mediaType } from './resource-content.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the ingest routes once `X-Api-Key` names an institution. */
    ingestInstitution: Institution | null;
  }
}

const BASE = '/api/v2/delivery/ingest/protocols/:number';

function institutionOf(request: FastifyRequest): Institution {
  if (!request.ingestInstitution) throw unauthorized(ServerMessage.invalidApiKey);
  return request.ingestInstitution;
}

function declaredLength(request: FastifyRequest): number | undefined {
  const header = request.headers['content-length'];
  const value = header === undefined ? NaN : Number(header);
  return Number.isFinite(value) ? value : undefined;
}

/** An onRequest hook: the institution of `X-Api-Key` on the request, or 401 before the body is read. */
export function requireApiKey(ctx: AppContext) {
  return async (request: FastifyRequest): Promise<void> => {
    const header = request.headers['x-api-key'];
    const institution = await findInstitutionByApiKey(ctx, typeof header === 'string' ? header : undefined);
    if (!institution) throw unauthorized(ServerMessage.invalidApiKey);
    request.ingestInstitution = institution;
  };
}

/** Contract 5: institutions push protocols, exams and files with their API key. */
export default function ingestRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    app.decorateRequest('ingestInstitution', null);

    // Files arrive as the raw body and stay a stream: the handler pipes them to storage.
    app.addContentTypeParser(
      [...new Set<string>([...RESOURCE_CONTENT_TYPES, ...SIGNED_CONTENT_TYPES])],
      (_request, payload, done) => done(null, payload),
    );

    // The key is checked before the body is read or validated: a stranger learns nothing.
    app.addHook('onRequest', requireApiKey(ctx));

    // An upload refused half-way leaves unread bytes on the connection: close it after the answer.
    app.addHook('onSend', async (request, reply) => {
      if (reply.statusCode >= 400 && request.raw.complete === false) reply.header('connection', 'close');
    });

    app.put(
      BASE,
      {
        schema: {
          params: zIngestProtocolParams,
          body: zIngestProtocol,
          response: { 200: envelope(zIngestProtocolResult), 201: envelope(zIngestProtocolResult) },
        },
      },
      async (request, reply) => {
        const { created, result } = await ingestProtocol(
          ctx,
          institutionOf(request),
          request.params.number,
          request.body,
        );
        return reply.status(created ? 201 : 200).send({ data: result });
      },
    );

    app.delete(
      BASE,
      { schema: { params: zIngestProtocolParams, response: { 200: envelope(zIngestProtocolResult) } } },
      async (request) => ({ data: await disableProtocol(ctx, institutionOf(request), request.params.number) }),
    );

    app.post(
      `${BASE}/invite`,
      {
        schema: {
          params: zIngestProtocolParams,
          querystring: zIngestInviteQuery,
          body: zIngestInviteBody,
          response: { 200: envelope(zIngestProtocolResult) },
        },
      },
      async (request) => {
        const language = request.body?.language ?? request.query.language;
        return { data: await invitePatient(ctx, institutionOf(request), request.params.number, language) };
      },
    );

    app.put(
      `${BASE}/exams/:examKey/resources/:identifier`,
      {
        schema: {
          params: zIngestResourceParams,
          querystring: zIngestResourceQuery,
          response: { 200: envelope(zIngestResourceResult), 201: envelope(zIngestResourceResult) },
        },
      },
      async (request, reply) => {
        const { created, result } = await ingestResource(ctx, institutionOf(request), {
          ...request.params,
          type: request.query.type,
          signed: false,
          contentType: mediaType(request.headers['content-type']),
          declaredLength: declaredLength(request),
          body: request.body as Readable,
        });
        return reply.status(created ? 201 : 200).send({ data: result });
      },
    );

    app.put(
      `${BASE}/exams/:examKey/resources/:identifier/signed`,
      {
        schema: {
          params: zIngestResourceParams,
          response: { 200: envelope(zIngestResourceResult), 201: envelope(zIngestResourceResult) },
        },
      },
      async (request, reply) => {
        const { created, result } = await ingestResource(ctx, institutionOf(request), {
          ...request.params,
          signed: true,
          contentType: mediaType(request.headers['content-type']),
          declaredLength: declaredLength(request),
          body: request.body as Readable,
        });
        return reply.status(created ? 201 : 200).send({ data: result });
      },
    );
  };
}
