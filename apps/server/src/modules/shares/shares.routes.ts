import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { envelope } from '@portal/shared/schemas/common';
import { zShareCreate, zShareCreated, zShareList, zShareListQuery } from '@portal/shared/schemas/shares';
import type { AppContext } from '../../context.js';
import { authenticate, requireAuth } from '../../plugins/auth.js';
import { createShares, listShares, revokeShare } from './shares.service.js';

const zId = z.string().min(1).max(64);

/** Spec 7.1 share calls: create, list (paged), revoke. */
export default function sharesRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (root) => {
    const app = root.withTypeProvider<ZodTypeProvider>();
    const auth = { preHandler: authenticate(ctx) };

    app.post(
      '/api/auth/protocol/share',
      { ...auth, schema: { body: zShareCreate, response: { 201: envelope(zShareCreated) } } },
      async (request, reply) =>
        reply.status(201).send({ data: await createShares(ctx, request, requireAuth(request), request.body) }),
    );

    app.get(
      '/api/auth/patient/:id/shares',
      {
        ...auth,
        schema: {
          params: z.object({ id: zId }),
          querystring: zShareListQuery,
          response: { 200: envelope(zShareList) },
        },
      },
      async (request) => ({
        data: await listShares(ctx, requireAuth(request), request.params.id, request.query.page, request.query.size),
      }),
    );

    app.post(
      '/api/auth/patient/share/:id/revoke',
      { ...auth, schema: { params: z.object({ id: zId }), response: { 200: envelope(z.boolean()) } } },
      async (request) => {
        await revokeShare(ctx, request, requireAuth(request), request.params.id);
        return { data: true };
      },
    );
  };
}
