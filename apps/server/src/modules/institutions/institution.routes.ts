import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { envelope } from '@portal/shared/schemas/common';
import {
  zHoldRules,
  zInstitutionCreate,
  zInstitutionCreated,
  zInstitutionIdParams,
  zInstitutionUpdate,
  zInstitutionView,
} from '@portal/shared/schemas/institution';
import type { AppContext } from '../../context.js';
import { authenticate, requireRole } from '../../plugins/auth.js';
import { institutionActor } from '../accounts/accounts.policy.js';
import { createInstitutionAs, getInstitutionAs, updateInstitutionAs } from './institution.service.js';
import { holdRulesAs, replaceHoldRulesAs } from './hold-rules.service.js';

/** Contract 6: institutions in the administration API (admins: all; company users: their own). */
export default function institutionRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    // Who may call comes before validation: a caller without the right learns nothing about the payload rules.
    const signIn = authenticate(ctx);
    app.addHook('onRequest', async (request) => {
      await signIn(request);
      requireRole(request, 'ADMIN', 'COMPANY');
    });

    app.post(
      '/api/administrationbe/institution',
      { schema: { body: zInstitutionCreate, response: { 201: envelope(zInstitutionCreated) } } },
      async (request, reply) => {
        const actor = institutionActor(requireRole(request, 'ADMIN', 'COMPANY'));
        const created = await createInstitutionAs(ctx, actor, request.body);
        return reply.status(201).send({ data: created });
      },
    );

    app.get(
      '/api/administrationbe/institution/:id',
      { schema: { params: zInstitutionIdParams, response: { 200: envelope(zInstitutionView) } } },
      async (request) => {
        const actor = institutionActor(requireRole(request, 'ADMIN', 'COMPANY'));
        return { data: await getInstitutionAs(ctx, actor, request.params.id) };
      },
    );

    app.put(
      '/api/administrationbe/institution/:id',
      {
        schema: {
          params: zInstitutionIdParams,
          body: zInstitutionUpdate,
          response: { 200: envelope(zInstitutionView) },
        },
      },
      async (request) => {
        const actor = institutionActor(requireRole(request, 'ADMIN', 'COMPANY'));
        return { data: await updateInstitutionAs(ctx, actor, request.params.id, request.body) };
      },
    );

    // Release holds for sensitive results (issue 22): the institution's rules per exam type.
    app.get(
      '/api/administrationbe/institution/:id/hold-rules',
      { schema: { params: zInstitutionIdParams, response: { 200: envelope(zHoldRules) } } },
      async (request) => {
        const actor = institutionActor(requireRole(request, 'ADMIN', 'COMPANY'));
        return { data: await holdRulesAs(ctx, actor, request.params.id) };
      },
    );

    app.put(
      '/api/administrationbe/institution/:id/hold-rules',
      { schema: { params: zInstitutionIdParams, body: zHoldRules, response: { 200: envelope(zHoldRules) } } },
      async (request) => {
        const actor = institutionActor(requireRole(request, 'ADMIN', 'COMPANY'));
        return { data: await replaceHoldRulesAs(ctx, request, actor, request.params.id, request.body) };
      },
    );
  };
}
