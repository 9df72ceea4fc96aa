import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { zBatchPrintRequest } from '@portal/shared/schemas/delivery';
import type { AppContext } from '../../context.js';
import { authenticate, requireAuth } from '../../plugins/auth.js';
import { batchPrint } from './batch-print.service.js';

export default function batchPrintRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    app.post(
      '/api/v2/delivery/resource/batchPrinting',
      {
        preHandler: authenticate(ctx),
        schema: {
          summary: 'Print the reports of up to 50 protocols, as one PDF or a zip',
          description:
            'PDF (`isCompressed: false`): every page of every REPORT and REPORT_PHYSICIAN file of each protocol, in ' +
            'the order given (contract 8), as its source shows it, with a bookmark per protocol and a ' +
            '`Content-Length`. A report that cannot be read (protected by a password, damaged, not a PDF, too large ' +
            'or too slow to read) is replaced by a page of its own saying which report of which protocol is missing ' +
            'and why, in the language of `Accept-Language` (pt-BR, es, en; pt-BR otherwise); the header ' +
            '`X-Reports-Left-Out` gives how many were replaced (0 when none) and the BATCH_PRINT trace lists them ' +
            '(`leftOut`). Zip (`isCompressed: true`): a folder per protocol number holding each report byte for ' +
            'byte, named in UTF-8 `<exam description> - <yyyy-mm-dd>[ - médico].pdf`.',
          body: zBatchPrintRequest,
        },
      },
      async (request, reply) => {
        const file = await batchPrint(ctx, requireAuth(request), request.body, request);
        return reply.status(file.status).headers(file.headers).send(file.body);
      },
    );
  };
}
