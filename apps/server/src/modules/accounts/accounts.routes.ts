import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ServerMessage } from '@portal/shared/errors';
import { claimRate } from '../../plugins/throttle.js';
import {
  zBindProtocol,
  zBoundProtocols,
  zChangeEmail,
  zChangePassword,
  zCompanyCreate,
  zCreatedAccount,
  zCustomLoginPage,
  zEmailFrequencyQuery,
  zExternalUserEdit,
  zForgotPasswordQuery,
  zInvitationInfo,
  zPatientCreate,
  zPatientEdit,
  zPhysicianCreate,
  zPhysicianEdit,
  zPhysicianInvitationInfo,
  zProtocolCheckQuery,
  zPublicInstitution,
  zResetPassword,
  zTokenQuery,
  zUserRecord,
} from '@portal/shared/schemas/accounts';
import { zAdminCreate } from '@portal/shared/schemas/administration';
import { envelope } from '@portal/shared/schemas/common';
import type { AppContext } from '../../context.js';
import { authenticate, requireAuth, verifyAccessToken } from '../../plugins/auth.js';
import adminRoutes from './admin.routes.js';
import { customLoginPage, institutionSetting, publicInstitution } from './institution-page.service.js';
import { changeEmail, changePassword, forgotPassword, resetPassword, resetTokenEmail } from './password.service.js';
import { editPatient, editPhysician, emailFrequencyOf, myRecord, setFavoriteTag } from './profile.service.js';
import { bindProtocol, validateProtocol } from './protocol-link.service.js';
import {
  activateAccount,
  adminInvitationInfo,
  createAdminUser,
  companyInvitationEmail,
  createCompanyUser,
  createPatient,
  createPhysician,
  externalUserInvitationInfo,
  patientInvitationInfo,
  physicianInvitationInfo,
} from './registration.service.js';

const V1 = '/api/auth';
const V2 = '/api/v2/auth';

/** Registrations from one client address: at most 20 an hour. */
const REGISTRATION_RATE = { max: 20, windowMs: 3600_000, minIntervalMs: 0 };

/** Account flows of spec 7.1 and contract 7: registration, invitations, passwords, profiles, protocol link. */
export default function accountsRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (root) => {
    const app = root.withTypeProvider<ZodTypeProvider>();
    const auth = { preHandler: authenticate(ctx) };

    for (const path of [`${V2}/user/create`, `${V2}/user/createuser`]) {
      app.post(
        path,
        { schema: { body: zPatientCreate, response: { 201: envelope(zCreatedAccount) } } },
        async (request, reply) => {
          // Each registration mails an activation link: one address must not turn the portal
          // into a mail cannon aimed at strangers' inboxes.
          await claimRate(ctx, `register:${request.ip}`, REGISTRATION_RATE);
          return reply.status(201).send({ data: await createPatient(ctx, request, request.body) });
        },
      );
    }

    app.get(
      `${V2}/user/registerValidate`,
      { schema: { querystring: z.object({ token: z.string().max(200).optional() }) } },
      async (request, reply) => {
        const ok = request.query.token ? await activateAccount(ctx, request.query.token) : false;
        return reply.redirect(`/login?activeSuccess=${ok}`, 302);
      },
    );

    for (const path of [`${V1}/user/validate`, `${V1}/user/get`]) {
      app.get(
        path,
        { schema: { querystring: zTokenQuery, response: { 200: envelope(zInvitationInfo) } } },
        async (request) => ({
          data: await patientInvitationInfo(ctx, request.query.token),
        }),
      );
    }

    app.post(
      `${V1}/password/forgotPassword`,
      { schema: { querystring: zForgotPasswordQuery, response: { 200: envelope(z.boolean()) } } },
      async (request) => {
        await forgotPassword(ctx, request, request.query.username, request.query.language);
        return { data: true };
      },
    );

    app.get(
      `${V1}/password/isValidToken`,
      { schema: { querystring: zTokenQuery, response: { 200: envelope(z.string()) } } },
      async (request) => ({ data: await resetTokenEmail(ctx, request.query.token) }),
    );

    app.post(
      `${V1}/password/resetPassword`,
      { schema: { body: zResetPassword, response: { 200: envelope(z.boolean()) } } },
      async (request) => {
        await resetPassword(ctx, request.body);
        return { data: true };
      },
    );

    app.post(
      `${V2}/user/changePassword`,
      { ...auth, schema: { body: zChangePassword, response: { 200: envelope(z.boolean()) } } },
      async (request) => {
        await changePassword(ctx, request, requireAuth(request), request.body);
        return { data: true };
      },
    );

    app.post(
      `${V2}/user/changeEmail`,
      { ...auth, schema: { body: zChangeEmail, response: { 200: envelope(z.object({ email: z.string() })) } } },
      async (request) => ({ data: await changeEmail(ctx, request, requireAuth(request), request.body) }),
    );

    app.get(`${V2}/user/me`, { ...auth, schema: { response: { 200: envelope(zUserRecord) } } }, async (request) => ({
      data: await myRecord(ctx, requireAuth(request)),
    }));

    app.post(
      `${V2}/user/edit`,
      { ...auth, schema: { body: zPatientEdit, response: { 200: envelope(zUserRecord) } } },
      async (request) => ({ data: await editPatient(ctx, requireAuth(request), request.body) }),
    );

    app.post(
      `${V2}/user/getEmailFrequencyOfUser`,
      { ...auth, schema: { body: zEmailFrequencyQuery, response: { 200: envelope(z.string()) } } },
      async (request) => ({ data: await emailFrequencyOf(ctx, requireAuth(request), request.body) }),
    );

    for (const path of [`${V1}/physician/get`, `${V2}/physician/validate`]) {
      app.get(
        path,
        { schema: { querystring: zTokenQuery, response: { 200: envelope(zPhysicianInvitationInfo) } } },
        async (request) => ({ data: await physicianInvitationInfo(ctx, request.query.token) }),
      );
    }

    app.post(
      `${V2}/physician/create`,
      { schema: { body: zPhysicianCreate, response: { 201: envelope(zCreatedAccount) } } },
      async (request, reply) => reply.status(201).send({ data: await createPhysician(ctx, request.body) }),
    );

    app.post(
      `${V2}/physician/edit`,
      { ...auth, schema: { body: zPhysicianEdit, response: { 200: envelope(zUserRecord) } } },
      async (request) => ({
        data: await editPhysician(ctx, requireAuth(request), { ...request.body, name: undefined }),
      }),
    );

    for (const path of [`${V1}/externaluser/validate`, `${V1}/externaluser/get`]) {
      app.get(
        path,
        { schema: { querystring: zTokenQuery, response: { 200: envelope(zInvitationInfo) } } },
        async (request) => ({
          data: await externalUserInvitationInfo(ctx, request.query.token),
        }),
      );
    }

    app.post(
      `${V2}/externaluser/edit`,
      { ...auth, schema: { body: zExternalUserEdit, response: { 200: envelope(zUserRecord) } } },
      async (request) => ({ data: await setFavoriteTag(ctx, requireAuth(request), request.body.tagId) }),
    );

    app.get(
      `${V1}/company/invite/validate`,
      { schema: { querystring: zTokenQuery, response: { 200: envelope(z.string()) } } },
      async (request) => ({ data: await companyInvitationEmail(ctx, request.query.token) }),
    );

    app.post(
      `${V1}/company/create`,
      { schema: { body: zCompanyCreate, response: { 201: envelope(zCreatedAccount) } } },
      async (request, reply) => reply.status(201).send({ data: await createCompanyUser(ctx, request.body) }),
    );

    // The administration console's first-password page of an admin invitation (contract 9).
    app.get(
      `${V1}/admin/invite/validate`,
      {
        schema: {
          summary: 'Check an admin invitation',
          description: 'The e-mail and name the invitation fixes; 404 "Token not found" when used or revoked.',
          tags: ['administration console'],
          querystring: zTokenQuery,
          response: { 200: envelope(zInvitationInfo) },
        },
      },
      async (request) => ({ data: await adminInvitationInfo(ctx, request.query.token) }),
    );

    app.post(
      `${V1}/admin/create`,
      {
        schema: {
          summary: 'Create an invited administrator',
          description:
            'Chooses the password of an admin invitation; the account signs in to the console at once (ADMIN_CREATED).',
          tags: ['administration console'],
          body: zAdminCreate,
          response: { 201: envelope(zCreatedAccount) },
        },
      },
      async (request, reply) => reply.status(201).send({ data: await createAdminUser(ctx, request, request.body) }),
    );

    app.get(
      `${V2}/institution/customLoginPage`,
      {
        schema: {
          querystring: z.object({ code: z.string().min(1).max(64) }),
          response: { 200: envelope(zCustomLoginPage) },
        },
      },
      async (request) => ({ data: await customLoginPage(ctx, request.query.code) }),
    );

    app.get(
      `${V2}/institution/getById`,
      {
        schema: {
          querystring: z.object({ id: z.string().min(1).max(64) }),
          response: { 200: envelope(zPublicInstitution) },
        },
      },
      async (request) => ({ data: await publicInstitution(ctx, request.query.id) }),
    );

    app.get(
      `${V2}/institution/:id/setting/:name`,
      { schema: { params: z.object({ id: z.string().min(1).max(64), name: z.string().min(1).max(100) }) } },
      async (request) => ({ data: await institutionSetting(ctx, request.params.id, request.params.name) }),
    );

    app.get(
      `${V2}/isValidProtocol`,
      { schema: { querystring: zProtocolCheckQuery, response: { 200: envelope(z.literal(true)) } } },
      async (request) => {
        await validateProtocol(ctx, request, request.query, await optionalPatientId(ctx, request));
        return { data: true as const, message: ServerMessage.protocolValid };
      },
    );

    app.post(
      `${V2}/user/bindProtocol`,
      { ...auth, schema: { body: zBindProtocol, response: { 200: envelope(zBoundProtocols) } } },
      async (request) => ({
        data: { requestIds: await bindProtocol(ctx, request, requireAuth(request), request.body) },
        message: ServerMessage.protocolValid,
      }),
    );

    await app.register(adminRoutes(ctx));
  };
}

/** isValidProtocol is public (the sign-up form uses it); a signed-in patient is told his own links apart. */
async function optionalPatientId(ctx: AppContext, request: FastifyRequest): Promise<string | null> {
  const m = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  if (!m?.[1]) return null;
  try {
    const session = await verifyAccessToken(ctx, m[1]);
    return session.role === 'PATIENT' ? session.userId : null;
  } catch {
    return null;
  }
}
