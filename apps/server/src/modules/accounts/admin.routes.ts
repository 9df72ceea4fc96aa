import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  zCompanyInvite,
  zInvitationSent,
  zPhysicianInvite,
  zTag,
  zTagBody,
  zTagUser,
  zTagUserBody,
  zTagUserUpdate,
} from '@portal/shared/schemas/accounts';
import { envelope } from '@portal/shared/schemas/common';
import type { AppContext } from '../../context.js';
import { authenticate, requireAuth } from '../../plugins/auth.js';
import {
  addTagUser,
  containsTags,
  createTag,
  invitePhysician,
  inviteCompanyUser,
  removeTag,
  removeTagUser,
  tagById,
  tagsOf,
  tagUser,
  tagUsers,
  updateTag,
  updateTagUser,
} from './invitations.service.js';

const BASE = '/api/administrationbe';
const zId = z.string().min(1).max(64);
const zInstitutionParams = z.object({ id: zId });
const zTagParams = z.object({ id: zId, tagId: zId });
const zTagUserParams = zTagParams.extend({ userId: zId });

/** Contract 6: invitations and tags, for admins (any institution) and company users (their own). */
export default function adminRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (root) => {
    const app = root.withTypeProvider<ZodTypeProvider>();
    const auth = { preHandler: authenticate(ctx) };

    app.post(
      `${BASE}/physician/invite`,
      { ...auth, schema: { body: zPhysicianInvite, response: { 201: envelope(zInvitationSent) } } },
      async (request, reply) =>
        reply.status(201).send({ data: await invitePhysician(ctx, request, requireAuth(request), request.body) }),
    );

    app.post(
      `${BASE}/company/invite`,
      { ...auth, schema: { body: zCompanyInvite, response: { 201: envelope(zInvitationSent) } } },
      async (request, reply) =>
        reply.status(201).send({ data: await inviteCompanyUser(ctx, request, requireAuth(request), request.body) }),
    );

    app.get(
      `${BASE}/institution/:id/tags`,
      { ...auth, schema: { params: zInstitutionParams, response: { 200: envelope(z.array(zTag)) } } },
      async (request) => ({ data: await tagsOf(ctx, requireAuth(request), request.params.id) }),
    );

    app.get(
      `${BASE}/institution/:id/containsTags`,
      { ...auth, schema: { params: zInstitutionParams, response: { 200: envelope(z.boolean()) } } },
      async (request) => ({ data: await containsTags(ctx, requireAuth(request), request.params.id) }),
    );

    app.post(
      `${BASE}/institution/:id/tags`,
      { ...auth, schema: { params: zInstitutionParams, body: zTagBody, response: { 201: envelope(zTag) } } },
      async (request, reply) =>
        reply
          .status(201)
          .send({ data: await createTag(ctx, requireAuth(request), request.params.id, request.body.tag) }),
    );

    app.get(
      `${BASE}/institution/:id/tags/:tagId`,
      { ...auth, schema: { params: zTagParams, response: { 200: envelope(zTag) } } },
      async (request) => ({
        data: await tagById(ctx, requireAuth(request), request.params.id, request.params.tagId),
      }),
    );

    app.put(
      `${BASE}/institution/:id/tags/:tagId`,
      { ...auth, schema: { params: zTagParams, body: zTagBody, response: { 200: envelope(zTag) } } },
      async (request) => ({
        data: await updateTag(ctx, requireAuth(request), request.params.id, request.params.tagId, request.body.tag),
      }),
    );

    app.delete(
      `${BASE}/institution/:id/tags/:tagId`,
      { ...auth, schema: { params: zTagParams, response: { 200: envelope(z.boolean()) } } },
      async (request) => {
        await removeTag(ctx, requireAuth(request), request.params.id, request.params.tagId);
        return { data: true };
      },
    );

    app.get(
      `${BASE}/institution/:id/tags/:tagId/users`,
      { ...auth, schema: { params: zTagParams, response: { 200: envelope(z.array(zTagUser)) } } },
      async (request) => ({
        data: await tagUsers(ctx, requireAuth(request), request.params.id, request.params.tagId),
      }),
    );

    app.post(
      `${BASE}/institution/:id/tags/:tagId/users`,
      {
        ...auth,
        schema: {
          params: zTagParams,
          body: zTagUserBody,
          response: { 200: envelope(zTagUser), 201: envelope(zTagUser) },
        },
      },
      async (request, reply) => {
        const { created, user } = await addTagUser(
          ctx,
          request,
          requireAuth(request),
          request.params.id,
          request.params.tagId,
          request.body,
        );
        return reply.status(created ? 201 : 200).send({ data: user });
      },
    );

    app.get(
      `${BASE}/institution/:id/tags/:tagId/users/:userId`,
      { ...auth, schema: { params: zTagUserParams, response: { 200: envelope(zTagUser) } } },
      async (request) => ({
        data: await tagUser(ctx, requireAuth(request), request.params.id, request.params.tagId, request.params.userId),
      }),
    );

    app.put(
      `${BASE}/institution/:id/tags/:tagId/users/:userId`,
      {
        ...auth,
        schema: { params: zTagUserParams, body: zTagUserUpdate, response: { 200: envelope(zTagUser) } },
      },
      async (request) => ({
        data: await updateTagUser(
          ctx,
          request,
          requireAuth(request),
          request.params.id,
          request.params.tagId,
          request.params.userId,
          request.body,
        ),
      }),
    );

    app.delete(
      `${BASE}/institution/:id/tags/:tagId/users/:userId`,
      {
        ...auth,
        schema: { params: zTagUserParams, response: { 200: envelope(z.boolean()) } },
      },
      async (request) => {
        await removeTagUser(
          ctx,
          request,
          requireAuth(request),
          request.params.id,
          request.params.tagId,
          request.params.userId,
        );
        return { data: true };
      },
    );
  };
}
