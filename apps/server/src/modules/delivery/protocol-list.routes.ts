import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { zByTotalQuery, zProtocolListQuery, zProtocolPage } from '@portal/shared/schemas/delivery';
import type { AppContext } from '../../context.js';
import { authenticate, requireAuth } from '../../plugins/auth.js';
import { type ListKind, listForViewer, topForPatient } from './protocol-list.service.js';

/** Spec 7.3-7.4: the protocol lists of every role. */
export default function protocolListRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    const preHandler = authenticate(ctx);
    const list = (url: string, kind: ListKind) =>
      app.get(
        url,
        { preHandler, schema: { querystring: zProtocolListQuery, response: { 200: zProtocolPage } } },
        async (request) => ({ data: await listForViewer(ctx, requireAuth(request), kind, request.query) }),
      );
    list('/api/v2/delivery/dashboard/protocols', 'dashboard');
    list('/api/v2/delivery/protocols/exams', 'guestForm');
    list('/api/delivery/persistence/protocols/physician', 'physician');
    list('/api/delivery/persistence/protocols/all', 'physician');
    list('/api/v2/delivery/protocols/listedByTags', 'external');

    app.get(
      '/api/delivery/persistence/dashboard/protocols/patient/byTotal',
      { preHandler, schema: { querystring: zByTotalQuery, response: { 200: zProtocolPage } } },
      async (request) => ({
        data: await topForPatient(ctx, requireAuth(request), request.query.total, request.query.institutionCode),
      }),
    );
  };
}
