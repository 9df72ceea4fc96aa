import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  zHistoryAnswer,
  zHistoryAttributesQuery,
  zHistoryQuery,
  zHistoryRangeQuery,
  zIdNameList,
} from '@portal/shared/schemas/delivery';
import type { AppContext } from '../../context.js';
import { authenticate, requireAuth } from '../../plugins/auth.js';
import { attributesOf, examTypesInRange, historyOf } from './history.service.js';

/** Spec 4.9 and 7.5, contract 8 'History': the patient's numeric results over time. */
export default function historyRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    const preHandler = authenticate(ctx);
    app.get(
      '/api/delivery/examtypes/range',
      { preHandler, schema: { querystring: zHistoryRangeQuery, response: { 200: zIdNameList } } },
      async (request) => ({ data: await examTypesInRange(ctx, requireAuth(request), request.query) }),
    );
    app.get(
      '/api/delivery/history/attributes',
      { preHandler, schema: { querystring: zHistoryAttributesQuery, response: { 200: zIdNameList } } },
      async (request) => ({ data: await attributesOf(ctx, requireAuth(request), request.query) }),
    );
    app.get(
      '/api/delivery/history',
      { preHandler, schema: { querystring: zHistoryQuery, response: { 200: zHistoryAnswer } } },
      async (request) => ({ data: await historyOf(ctx, requireAuth(request), request.query, request) }),
    );
  };
}
