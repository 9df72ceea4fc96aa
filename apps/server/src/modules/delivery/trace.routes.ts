import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { envelope } from '@portal/shared/schemas/common';
import { zTracePage, zTraceQuery, zTraceRecord, zTraceRecords } from '@portal/shared/schemas/delivery';
import type { AppContext } from '../../context.js';
import { authenticate, requireAuth } from '../../plugins/auth.js';
import { logClientEvents, protocolTrace } from './trace.service.js';

const zLogged = envelope(z.object({ count: z.number().int() }));

/** Spec 7.4 trace/log calls and contract 6's trace read. */
export default function traceRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    const preHandler = authenticate(ctx);
    app.post(
      '/api/v2/delivery/trace/log',
      { preHandler, schema: { body: zTraceRecord, response: { 201: zLogged } } },
      async (request, reply) =>
        reply
          .status(201)
          .send({ data: { count: await logClientEvents(ctx, requireAuth(request), [request.body], request) } }),
    );
    app.post(
      '/api/v2/delivery/trace/log/all',
      { preHandler, schema: { body: zTraceRecords, response: { 201: zLogged } } },
      async (request, reply) =>
        reply
          .status(201)
          .send({ data: { count: await logClientEvents(ctx, requireAuth(request), request.body, request) } }),
    );
    app.get(
      '/api/administrationbe/trace',
      { preHandler, schema: { querystring: zTraceQuery, response: { 200: zTracePage } } },
      async (request) => ({ data: await protocolTrace(ctx, requireAuth(request), request.query) }),
    );
  };
}
