import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../../context.js';
import { requireApiKey } from '../ingest/ingest.routes.js';
import { receiveHl7 } from './hl7.service.js';

/** Contract 9's media type, and the ones interface engines also send HL7 v2 text with. */
export const HL7_CONTENT_TYPES = [
  'x-application/hl7-v2+er7',
  'application/hl7-v2',
  'application/edi-hl7',
  'text/plain',
];

/** Contract 9: HL7 v2 messages over HTTPS with the institution's API key; the answer is the ACK. */
export default function hl7Routes(ctx: AppContext): FastifyPluginAsync {
  return async (app) => {
    app.decorateRequest('ingestInstitution', null);
    app.addHook('onRequest', requireApiKey(ctx));
    // The body stays bytes: its character set is read from MSH-18, not from the HTTP header.
    app.addContentTypeParser(HL7_CONTENT_TYPES, { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    app.post(
      '/api/v2/delivery/ingest/hl7',
      {
        bodyLimit: Math.ceil(ctx.config.ingestMaxBytes * 1.4) + 64 * 1024,
        schema: {
          summary: 'Deliver HL7 v2 results (ORU^R01, ORM, OML); answers the ACK',
          description:
            'Body: one HL7 v2 message or an FHS/BHS batch, `x-application/hl7-v2+er7`. The answer (200) is the ' +
            'ACK in the same media type and character set: `MSA-1` AA once stored, AE or AR with the reason in ' +
            '`MSA-3` and `ERR`. See docs/integration/hl7v2.md.',
          tags: ['ingest'],
          security: [{ apiKey: [] }],
        },
      },
      async (request, reply) => {
        const ack = await receiveHl7(ctx, request.body as Buffer, {
          transport: 'HTTPS',
          remoteAddress: request.ip,
          institution: request.ingestInstitution ?? undefined,
        });
        return reply.status(200).type('x-application/hl7-v2+er7').send(ack);
      },
    );
  };
}
