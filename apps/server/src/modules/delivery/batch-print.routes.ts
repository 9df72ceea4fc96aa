import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { zBatchPrintRequest } from '@portal/shared/schemas/delivery';
import type { AppContext } from '../../context.js';
import { authenticate, requireAuth } from '../../plugins/auth.js';
import { batchPrint } from './batch-print.service.js';

export default function batchPrintRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    app.post(
      '/api/v2/delivery/resource/batchPrinting',
      { preHandler: authenticate(ctx), schema: { body: zBatchPrintRequest } },
      async (request, reply) => {
        const file = await batchPrint(ctx, requireAuth(request), request.body, request);
        return reply.status(file.status).headers(file.headers).send(file.body);
      },
    );
  };
}
