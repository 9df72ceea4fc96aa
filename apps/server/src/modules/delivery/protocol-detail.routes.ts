import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  zExamListAnswer,
  zExamsByIdQuery,
  zProtocolAnswer,
  zProtocolByIdQuery,
  zProtocolExamsQuery,
} from '@portal/shared/schemas/delivery';
import type { AppContext } from '../../context.js';
import { authenticate, requireAuth } from '../../plugins/auth.js';
import { protocolDetail, protocolExams } from './protocol-detail.service.js';

/** Spec 7.3-7.4: a protocol's exams, loaded lazily when a row expands or a detail opens. */
export default function protocolDetailRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    const preHandler = authenticate(ctx);
    for (const url of [
      '/api/v2/delivery/dashboard/protocols/exams',
      '/api/delivery/persistence/dashboard/protocols/exams',
    ]) {
      app.get(
        url,
        { preHandler, schema: { querystring: zProtocolExamsQuery, response: { 200: zExamListAnswer } } },
        async (request) => ({
          data: await protocolExams(
            ctx,
            requireAuth(request),
            request.query.request ?? request.query.requestId,
            request,
          ),
        }),
      );
    }
    app.get(
      '/api/delivery/persistence/dashboard/protocol/byId',
      { preHandler, schema: { querystring: zProtocolByIdQuery, response: { 200: zProtocolAnswer } } },
      async (request) => ({ data: await protocolDetail(ctx, requireAuth(request), request.query.id, request) }),
    );
    app.get(
      '/api/delivery/persistence/exams',
      { preHandler, schema: { querystring: zExamsByIdQuery, response: { 200: zExamListAnswer } } },
      async (request) => ({ data: await protocolExams(ctx, requireAuth(request), request.query.byId, request) }),
    );
  };
}
