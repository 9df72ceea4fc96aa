import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  activateMfaTokenBody,
  externalLoginQuery,
  generateMfaTokenBody,
  inactivateMfaTokenBody,
  loginBody,
  loginResponse,
  logoutResponse,
  mfaStatusResponse,
  mfaTokenSentResponse,
  validateResponse,
} from '@portal/shared/schemas/auth';
import type { AppContext } from '../../context.js';
import { badRequest } from '../../lib/errors.js';
import { authenticate, requireAuth } from '../../plugins/auth.js';
import { login, logout, validateSession } from './auth.service.js';
import { activateToken, generateToken, inactivateToken, mfaStatus } from './mfa.service.js';

/** Every way in (contract 3) and the MFA calls of spec 7.1, under /api/v2/auth. */
export default function authRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    const auth = authenticate(ctx);

    app.post(
      '/api/v2/auth/login',
      { schema: { body: loginBody, response: { 200: loginResponse } } },
      async (request) => ({ data: await login(ctx, request.body, request) }),
    );

    // The same sign-in with the inputs in the query (QR codes, partner links); the redaction of
    // the request log keeps password, birthdate and tokenMFA out of the logs.
    app.get(
      '/api/v2/auth/externalLogin',
      { schema: { querystring: externalLoginQuery, response: { 200: loginResponse } } },
      async (request) => {
        const q = request.query;
        const parsed = loginBody.safeParse({
          userName: q.username,
          password: q.password,
          dateOfBirth: q.birthdate,
          tokenMFA: q.tokenMFA,
          appKey: 'login',
          customLogin: q.customLogin,
        });
        if (!parsed.success) throw badRequest();
        return { data: await login(ctx, parsed.data, request) };
      },
    );

    app.post(
      '/api/v2/auth/logout',
      { preHandler: auth, schema: { response: { 200: logoutResponse } } },
      async (request) => {
        await logout(ctx, requireAuth(request));
        return { data: true };
      },
    );

    app.get(
      '/api/v2/auth/validate',
      { preHandler: auth, schema: { response: { 200: validateResponse } } },
      async (request) => ({ data: await validateSession(ctx, requireAuth(request), request) }),
    );

    app.post(
      '/api/v2/auth/generateMFAToken',
      { preHandler: auth, schema: { body: generateMfaTokenBody, response: { 200: mfaTokenSentResponse } } },
      async (request) => ({ data: await generateToken(ctx, requireAuth(request), request.body) }),
    );

    app.post(
      '/api/v2/auth/activateMFAToken',
      { preHandler: auth, schema: { body: activateMfaTokenBody, response: { 200: mfaStatusResponse } } },
      async (request) => ({ data: await activateToken(ctx, requireAuth(request), request.body, request) }),
    );

    app.post(
      '/api/v2/auth/inactivateMFAToken',
      { preHandler: auth, schema: { body: inactivateMfaTokenBody, response: { 200: mfaStatusResponse } } },
      async (request) => ({ data: await inactivateToken(ctx, requireAuth(request), request.body, request) }),
    );

    app.get(
      '/api/v2/auth/isMFAActivated',
      { preHandler: auth, schema: { response: { 200: mfaStatusResponse } } },
      async (request) => ({ data: await mfaStatus(ctx, requireAuth(request)) }),
    );
  };
}
