import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { envelope } from '@portal/shared/schemas/common';
import { zAccessAlerts, zAccessExportQuery, zAccessPage, zAccessQuery } from '@portal/shared/schemas/access-log';
import type { AppContext } from '../../context.js';
import { authenticate, requireAuth } from '../../plugins/auth.js';
import { accessAlertsSetting, accessCsv, accessList, changeAccessAlerts } from './access-log.service.js';

const zParams = z.object({ id: z.string().min(1).max(64) });

/** "Who saw my results": a patient's own access log, its CSV, and the mail-alert setting. */
export default function accessLogRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (root) => {
    const app = root.withTypeProvider<ZodTypeProvider>();
    const auth = { preHandler: authenticate(ctx) };

    app.get(
      '/api/auth/patient/:id/accesses',
      { ...auth, schema: { params: zParams, querystring: zAccessQuery, response: { 200: envelope(zAccessPage) } } },
      async (request) => ({ data: await accessList(ctx, requireAuth(request), request.params.id, request.query) }),
    );

    app.get(
      '/api/auth/patient/:id/accesses/export.csv',
      { ...auth, schema: { params: zParams, querystring: zAccessExportQuery } },
      async (request, reply) => {
        const stream = accessCsv(ctx, requireAuth(request), request.params.id, request.query);
        const day = ctx.clock.now().toISOString().slice(0, 10);
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="accesses-${day}.csv"`)
          .send(stream);
      },
    );

    app.get(
      '/api/auth/patient/:id/access-alerts',
      { ...auth, schema: { params: zParams, response: { 200: envelope(zAccessAlerts) } } },
      async (request) => ({ data: await accessAlertsSetting(ctx, requireAuth(request), request.params.id) }),
    );

    app.put(
      '/api/auth/patient/:id/access-alerts',
      { ...auth, schema: { params: zParams, body: zAccessAlerts, response: { 200: envelope(zAccessAlerts) } } },
      async (request) => ({
        data: await changeAccessAlerts(ctx, requireAuth(request), request.params.id, request.body.enabled),
      }),
    );
  };
}
