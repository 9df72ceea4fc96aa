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
        {
          preHandler,
          schema: {
            summary: `Open a ${kind} file`,
            description:
              'The stored file, with `Range` support. ' +
              (kind === 'report'
                ? 'With `showAll=true`, every available report of the protocol merged into one PDF, each page as its ' +
                  'source shows it; a report that cannot be read is replaced by a page saying so (in the language ' +
                  'of `Accept-Language`) and counted in the `X-Reports-Left-Out` header.'
                : ''),
            querystring: zResourceQuery,
          },
        },
        async (request, reply) => {
          const file = await openResource(ctx, requireAuth(request), kind, request.query, request);
          return reply.status(file.status).headers(file.headers).send(file.body);
        },
      );
    }
  };
}
