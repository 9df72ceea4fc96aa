import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { envelope } from '@portal/shared/schemas/common';
import { zSmartAuthQuery, zSmartUpdateStatus } from '@portal/shared/schemas/delivery';
import type { AppContext } from '../../context.js';
import { authenticate, requireAuth } from '../../plugins/auth.js';
import { smartAuth, smartUpdateStatus } from './smart.service.js';

/** Spec 7.4: interlocution with an institution's SMART system (exam keys starting with SMART). */
export default function smartRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    app.get(
      '/api/v2/delivery/interlocution/smart/auth',
      {
        preHandler: authenticate(ctx),
        schema: {
          querystring: zSmartAuthQuery,
          response: { 200: envelope(z.object({ token: z.string(), url: z.string(), expiresIn: z.number() })) },
        },
      },
      async (request) => ({ data: await smartAuth(ctx, requireAuth(request), request.query, request) }),
    );
    // The SMART token in the body authenticates the institution's system; no session is needed.
    app.post(
      '/api/v2/delivery/interlocution/smart/updatestatus',
      {
        schema: {
          body: zSmartUpdateStatus,
          response: { 200: envelope(z.object({ exam: z.string(), status: z.string() })) },
        },
      },
      async (request) => ({ data: await smartUpdateStatus(ctx, request.body) }),
    );
  };
}
