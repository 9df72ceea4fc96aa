import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { zResourceQuery } from '@portal/shared/schemas/delivery';
import type { AppContext } from '../../context.js';
import { authenticate, requireAuth } from '../../plugins/auth.js';
import { zSignatureVerificationQuery, zSignatureVerificationResponse } from '@portal/shared/schemas/signatures';
import { openResource, verifyResourceSignature } from './resources.service.js';

/** Spec 7.4: a report, image or signed file, streamed from storage with Range support. */
export default function resourceRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    const preHandler = authenticate(ctx);
    for (const kind of ['report', 'image', 'signature'] as const) {
      app.get(
        `/api/v2/delivery/resource/${kind}`,
        {
          preHandler,
          // Files go out as stored: their types are not compressed (app.ts), and an error here is a
          // line of JSON below the 1 KiB threshold, so @fastify/compress's three hooks would only
          // look at each answer and pass it on. A GET has no body to decompress.
          compress: false,
          decompress: false,
          schema: {
            summary: `Open a ${kind} file`,
            description:
              'The stored file, with `Range` support. ' +
              (kind === 'report'
                ? 'With `showAll=true`, every available report of the protocol merged into one PDF, each page as its ' +
                  'source shows it; a report that cannot be read is replaced by a page saying so (in the language ' +
                  'of `Accept-Language`) and counted in the `X-Reports-Left-Out` header.'
                : ''),
            querystring: zResourceQuery,
          },
        },
        async (request, reply) => {
          const file = await openResource(ctx, requireAuth(request), kind, request.query, request);
          return reply.status(file.status).headers(file.headers).send(file.body);
        },
      );
    }

    app.get(
      '/api/v2/delivery/resource/signature/verification',
      {
        preHandler,
        schema: {
          summary: "Check a signed file's digital signature",
          description:
            'Checks the signature of the signed file again, now: whether it matches the bytes, who signed (name, ' +
            'CPF masked, CRM/UF from the ICP-Brasil fields of the certificate), when, whether the certificate ' +
            'chains up to a root of `TRUST_ROOTS_DIR` and whether a CRL beside the roots revokes it. With the ' +
            "report's verification code, which `/validar` takes.",
          querystring: zSignatureVerificationQuery,
          response: { 200: zSignatureVerificationResponse },
        },
      },
      async (request) => ({
        data: await verifyResourceSignature(ctx, requireAuth(request), request.query.resourceId, request),
      }),
    );
  };
}
