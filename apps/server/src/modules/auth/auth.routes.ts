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
import {
  passkeyIdParams,
  passkeyListResponse,
  passkeyOptionsResponse,
  passkeyRemovedResponse,
  passkeyResponse,
  passkeySignInBody,
  registerPasskeyBody,
  renamePasskeyBody,
} from '@portal/shared/schemas/passkeys';
import type { AppContext } from '../../context.js';
import { badRequest } from '../../lib/errors.js';
import { authenticate, requireAuth } from '../../plugins/auth.js';
import { login, logout, passkeySignIn, validateSession } from './auth.service.js';
import { activateToken, generateToken, inactivateToken, mfaStatus } from './mfa.service.js';
import {
  listOwnPasskeys,
  registerPasskey,
  registrationOptions,
  removeOwnPasskey,
  renameOwnPasskey,
  signInOptions,
} from './passkeys.service.js';

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

    // Passkeys: sign-in (public) and the account's own passkeys (its session).
    app.post(
      '/api/v2/auth/passkeys/signInOptions',
      { schema: { response: { 200: passkeyOptionsResponse } } },
      async (request) => ({ data: await signInOptions(ctx, request) }),
    );

    app.post(
      '/api/v2/auth/passkeys/signIn',
      { schema: { body: passkeySignInBody, response: { 200: loginResponse } } },
      async (request) => ({ data: await passkeySignIn(ctx, request.body, request) }),
    );

    app.get(
      '/api/v2/auth/passkeys',
      { preHandler: auth, schema: { response: { 200: passkeyListResponse } } },
      async (request) => ({ data: await listOwnPasskeys(ctx, requireAuth(request)) }),
    );

    app.post(
      '/api/v2/auth/passkeys/registrationOptions',
      { preHandler: auth, schema: { response: { 200: passkeyOptionsResponse } } },
      async (request) => ({ data: await registrationOptions(ctx, requireAuth(request)) }),
    );

    app.post(
      '/api/v2/auth/passkeys',
      { preHandler: auth, schema: { body: registerPasskeyBody, response: { 200: passkeyResponse } } },
      async (request) => ({ data: await registerPasskey(ctx, requireAuth(request), request.body, request) }),
    );

    app.put(
      '/api/v2/auth/passkeys/:id',
      {
        preHandler: auth,
        schema: { params: passkeyIdParams, body: renamePasskeyBody, response: { 200: passkeyResponse } },
      },
      async (request) => ({
        data: await renameOwnPasskey(ctx, requireAuth(request), request.params.id, request.body.name, request),
      }),
    );

    app.delete(
      '/api/v2/auth/passkeys/:id',
      { preHandler: auth, schema: { params: passkeyIdParams, response: { 200: passkeyRemovedResponse } } },
      async (request) => ({ data: await removeOwnPasskey(ctx, requireAuth(request), request.params.id, request) }),
    );
  };
}
