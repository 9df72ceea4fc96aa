import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { zResourceQuery } from '@portal/shared/schemas/delivery';
import type { AppContext } from '../../context.js';
import { authenticate, requireAuth } from '../../plugins/auth.js';
import { openResource } from './resources.service.js';

/** Spec 7.4: a report, image or signed file, streamed from storage with Range support. */
export default function resourceRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    const preHandler = authenticate(ctx);
    for (const kind of ['report', 'image', 'signature'] as const) {
      app.get(
        `/api/v2/delivery/resource/${kind}`,
        { preHandler, schema: { querystring: zResourceQuery } },
        async (request, reply) => {
          const file = await openResource(ctx, requireAuth(request), kind, request.query, request);
          return reply.status(file.status).headers(file.headers).send(file.body);
        },
      );
    }
  };
}
