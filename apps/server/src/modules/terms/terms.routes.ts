import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { envelope } from '@portal/shared/schemas/common';
import {
  zAcceptedTerms,
  zAcceptTerms,
  zPendingTerm,
  zTerm,
  zTermQuery,
  zTermUserQuery,
} from '@portal/shared/schemas/terms';
import type { AppContext } from '../../context.js';
import { authenticate, requireAuth } from '../../plugins/auth.js';
import { acceptTerms, listCurrentTerms, pendingTerms } from './terms.service.js';

/** Spec 4.4 and 7.4: versioned service terms and privacy policy, and their acceptance. */
export default function termsRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (root) => {
    const app = root.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/api/v2/delivery/term',
      { schema: { querystring: zTermQuery, response: { 200: envelope(z.array(zTerm)) } } },
      async (request) => ({ data: await listCurrentTerms(ctx, request.query.userType, request.query.language) }),
    );

    app.get(
      '/api/v2/delivery/term/user',
      {
        preHandler: authenticate(ctx),
        schema: { querystring: zTermUserQuery, response: { 200: envelope(z.array(zPendingTerm)) } },
      },
      async (request) => ({ data: await pendingTerms(ctx, requireAuth(request), request.query.language) }),
    );

    app.post(
      '/api/v2/delivery/term/user',
      { preHandler: authenticate(ctx), schema: { body: zAcceptTerms, response: { 200: envelope(zAcceptedTerms) } } },
      async (request) => ({ data: await acceptTerms(ctx, requireAuth(request), request.body.termIds) }),
    );
  };
}
