import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { envelope } from '@portal/shared/schemas/common';
import {
  zCity,
  zDirectoryInstitution,
  zDirectoryUser,
  zUserLookupQuery,
  zUserTag,
} from '@portal/shared/schemas/delivery';
import type { AppContext } from '../../context.js';
import { authenticate, requireAuth } from '../../plugins/auth.js';
import {
  findUser,
  institutionUserTags,
  loggedUserInstitution,
  municipalitiesOf,
  partnerClinics,
} from './admin-directory.service.js';

const BASE = '/api/administrationbe';

/** Spec 7.2 administration reads not owned by the institution and accounts modules. */
export default function adminDirectoryRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    const preHandler = authenticate(ctx);
    app.get(
      `${BASE}/userlogged/institutionAdmin`,
      { preHandler, schema: { response: { 200: envelope(zDirectoryInstitution.nullable()) } } },
      async (request) => ({ data: await loggedUserInstitution(ctx, requireAuth(request)) }),
    );
    app.get(
      `${BASE}/listOfPartnerClinics`,
      { preHandler, schema: { response: { 200: envelope(z.array(zDirectoryInstitution)) } } },
      async (request) => ({ data: await partnerClinics(ctx, requireAuth(request)) }),
    );
    // Public data for address forms, also before sign-in.
    app.get(
      `${BASE}/city/state/:uf`,
      { schema: { params: z.object({ uf: z.string().length(2) }), response: { 200: envelope(z.array(zCity)) } } },
      async (request) => ({ data: municipalitiesOf(request.params.uf) }),
    );
    app.get(
      `${BASE}/user`,
      { preHandler, schema: { querystring: zUserLookupQuery, response: { 200: envelope(zDirectoryUser) } } },
      async (request) => ({
        data: await findUser(ctx, requireAuth(request), request.query.userName, request.query.language),
      }),
    );
    app.get(
      '/api/v2/delivery/institutionUserTags',
      { preHandler, schema: { response: { 200: envelope(z.array(zUserTag)) } } },
      async (request) => ({ data: await institutionUserTags(ctx, requireAuth(request)) }),
    );
  };
}
