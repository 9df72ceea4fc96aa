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
  zVouchBody,
  zVouchedPhysician,
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
import { vouchedPhysicians, vouchForPhysician, withdrawVouch } from './vouches.service.js';

const BASE = '/api/administrationbe';
const zId = z.string().min(1).max(64);
const zInstitutionParams = z.object({ id: zId });
const zTagParams = z.object({ id: zId, tagId: zId });
const zTagUserParams = zTagParams.extend({ userId: zId });
const zPhysicianParams = z.object({ id: zId, userId: zId });
/** OpenAPI facts of the vouching operations. */
const vouching = { tags: ['Administration: vouched physicians'], security: [{ bearer: [] }] };

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
          .send({ data: await createTag(ctx, request, requireAuth(request), request.params.id, request.body.tag) }),
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
        data: await updateTag(
          ctx,
          request,
          requireAuth(request),
          request.params.id,
          request.params.tagId,
          request.body.tag,
        ),
      }),
    );

    app.delete(
      `${BASE}/institution/:id/tags/:tagId`,
      { ...auth, schema: { params: zTagParams, response: { 200: envelope(z.boolean()) } } },
      async (request) => {
        await removeTag(ctx, request, requireAuth(request), request.params.id, request.params.tagId);
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

    // The physicians an institution vouches for: a physician's license opens the protocols of
    // these institutions only (docs/security.md).
    app.get(
      `${BASE}/institution/:id/physicians`,
      {
        ...auth,
        schema: {
          ...vouching,
          summary: 'List the physicians an institution vouches for',
          description:
            'A physician sees the protocols requested under his license (CRM + UF) only in the institutions that ' +
            'vouch for him. Admins: any institution; company users: their own (another: 404); others: 403.',
          params: zInstitutionParams,
          response: { 200: envelope(z.array(zVouchedPhysician)) },
        },
      },
      async (request) => ({ data: await vouchedPhysicians(ctx, requireAuth(request), request.params.id) }),
    );

    app.post(
      `${BASE}/institution/:id/physicians`,
      {
        ...auth,
        schema: {
          ...vouching,
          summary: 'Vouch for a physician account',
          description:
            'The institution vouches for an existing physician account, named by `userId` or `email`: his license ' +
            'then opens its protocols. 201 when new, 200 when it already vouched; 404 when no physician account ' +
            'matches. Audited as `PHYSICIAN_VOUCHED`.',
          params: zInstitutionParams,
          body: zVouchBody,
          response: { 200: envelope(zVouchedPhysician), 201: envelope(zVouchedPhysician) },
        },
      },
      async (request, reply) => {
        const { created, physician } = await vouchForPhysician(
          ctx,
          request,
          requireAuth(request),
          request.params.id,
          request.body,
        );
        return reply.status(created ? 201 : 200).send({ data: physician });
      },
    );

    app.delete(
      `${BASE}/institution/:id/physicians/:userId`,
      {
        ...auth,
        schema: {
          ...vouching,
          summary: "Withdraw an institution's vouch for a physician",
          description:
            "The physician's license no longer opens this institution's protocols (his tags still do). 404 when the " +
            'institution does not vouch for that account. Audited as `PHYSICIAN_UNVOUCHED`.',
          params: zPhysicianParams,
          response: { 200: envelope(z.boolean()) },
        },
      },
      async (request) => {
        await withdrawVouch(ctx, request, requireAuth(request), request.params.id, request.params.userId);
        return { data: true };
      },
    );
  };
}
