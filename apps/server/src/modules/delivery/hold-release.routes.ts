import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { envelope } from '@portal/shared/schemas/common';
import type { AppContext } from '../../context.js';
import { authenticate, requireAuth } from '../../plugins/auth.js';
import { releaseHold } from './hold-release.service.js';

const zParams = z.object({ id: z.string().min(1).max(64) });
const zReleased = z.object({ examId: z.string(), releasedAt: z.string() });

/** Release holds (issue 22): the requesting physician releases a held result to the patient. */
export default function holdReleaseRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    const preHandler = authenticate(ctx);
    app.post(
      '/api/v2/delivery/exams/:id/release',
      { preHandler, schema: { params: zParams, response: { 200: envelope(zReleased) } } },
      async (request) => ({ data: await releaseHold(ctx, requireAuth(request), request.params.id, request) }),
    );
  };
}
