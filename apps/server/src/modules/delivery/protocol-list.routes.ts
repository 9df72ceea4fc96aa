import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { zByTotalQuery, zProtocolListQuery, zProtocolPage } from '@portal/shared/schemas/delivery';
import type { AppContext } from '../../context.js';
import { answerEncoding, COMPRESSION_THRESHOLD, type JsonAnswer } from '../../lib/json-answer.js';
import { authenticate, requireAuth } from '../../plugins/auth.js';
import { type ListKind, listAnswer, topForPatient } from './protocol-list.service.js';

/**
 * Lists answer on every page view: their answers, built field by field from the shared types,
 * are written with JSON.stringify instead of being parsed again by zod (the contract tests
 * check them against the same schema).
 */
const stringify = () => (data: unknown) => JSON.stringify(data);

/**
 * Sends an answer already written as JSON (kept list answers are sent again as they are): as its
 * text, which Fastify sends untouched, or compressed in the encoding the client prefers, once per
 * answer and encoding (@fastify/compress leaves an answer that says its encoding alone).
 */
function sendJson(request: FastifyRequest, reply: FastifyReply, answer: JsonAnswer): FastifyReply {
  reply.type('application/json; charset=utf-8');
  if (answer.bytes < COMPRESSION_THRESHOLD) return reply.send(answer.body);
  reply.header('vary', 'Accept-Encoding');
  const encoding = answerEncoding(request.headers);
  if (!encoding) return reply.send(answer.body);
  return reply.header('content-encoding', encoding).send(answer.encodedAs(encoding));
}

/** Spec 7.3-7.4: the protocol lists of every role. */
export default function protocolListRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    const preHandler = authenticate(ctx);
    const list = (url: string, kind: ListKind) =>
      app.get(
        url,
        {
          preHandler,
          serializerCompiler: stringify,
          schema: { querystring: zProtocolListQuery, response: { 200: zProtocolPage } },
        },
        async (request, reply) =>
          sendJson(request, reply, await listAnswer(ctx, requireAuth(request), kind, request.query)),
      );
    list('/api/v2/delivery/dashboard/protocols', 'dashboard');
    list('/api/v2/delivery/protocols/exams', 'guestForm');
    list('/api/delivery/persistence/protocols/physician', 'physician');
    list('/api/delivery/persistence/protocols/all', 'physician');
    list('/api/v2/delivery/protocols/listedByTags', 'external');

    app.get(
      '/api/delivery/persistence/dashboard/protocols/patient/byTotal',
      {
        preHandler,
        serializerCompiler: stringify,
        schema: { querystring: zByTotalQuery, response: { 200: zProtocolPage } },
      },
      async (request) => ({
        data: await topForPatient(ctx, requireAuth(request), request.query.total, request.query.institutionCode),
      }),
    );
  };
}
