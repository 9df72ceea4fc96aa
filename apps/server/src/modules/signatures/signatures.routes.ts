import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { zValidateBody, zValidateResponse } from '@portal/shared/schemas/signatures';
import type { AppContext } from '../../context.js';
import { claimRate } from '../../plugins/throttle.js';
import { validateDelivered } from './validation.service.js';

/**
 * Checks per client address: enough for a person checking a pile of reports, far too few to
 * guess codes (10 characters of 30: 5.9 x 10^14 of them).
 */
export const VALIDATION_RATE = { max: 30, windowMs: 10 * 60_000, minIntervalMs: 0 };

/** Issue 22.3: the public check behind the patient app's `/validar` page (no session). */
export default function signatureRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    app.post(
      '/api/v2/public/validate',
      { schema: { body: zValidateBody, response: { 200: zValidateResponse } } },
      async (request) => {
        await claimRate(ctx, `validate:${request.ip}`, VALIDATION_RATE);
        return { data: await validateDelivered(ctx, request.body.code, request.body.sha256) };
      },
    );
  };
}
