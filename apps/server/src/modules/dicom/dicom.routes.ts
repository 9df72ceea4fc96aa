import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ServerMessage } from '@portal/shared/errors';
import type { AppContext } from '../../context.js';
import { AppError, notFound, unauthorized } from '../../lib/errors.js';
import { authenticate, requireAuth } from '../../plugins/auth.js';
import { requireApiKey } from '../ingest/ingest.routes.js';
import { type InstanceOutcome, StowRequestError, stowStudies } from './stow.service.js';
import {
  authoriseStudy,
  DICOMWEB_BASE,
  frameMediaType,
  framesOf,
  instancesSearchResult,
  instanceStream,
  keyInstance,
  metadataOf,
  noteStudyOpened,
  renderedOf,
  selectInstances,
  seriesOf,
  studiesOfExam,
} from './wado.service.js';
import { studyArchive } from './study-archive.js';
import { dicomCodecs } from './dicom-codecs.js';
import { canTranscode, EXPLICIT_VR_LITTLE_ENDIAN } from './transfer-syntax.js';

const DICOM_JSON = 'application/dicom+json';
const uid = z
  .string()
  .regex(/^[0-9]+(\.[0-9]+)*$/, 'a DICOM UID')
  .max(64);
const zStudy = z.object({ study: uid });
const zSeries = zStudy.extend({ series: uid });
const zInstance = zSeries.extend({ sop: uid });
const zFrames = zInstance.extend({ frames: z.string().regex(/^[0-9]+(,[0-9]+)*$/, 'frame numbers, 1-based') });
const zFrame = zInstance.extend({ frame: z.string().regex(/^[1-9][0-9]{0,5}$/, 'a frame number, 1-based') });
const zStudiesQuery = z.object({ examId: z.string().min(1).max(64) });

function sendJson(reply: FastifyReply, status: number, body: unknown) {
  return reply.status(status).type(DICOM_JSON).send(JSON.stringify(body));
}

/** PS3.18 10.5.3: the store answer, one item per instance stored or refused. */
function storeResponse(ctx: AppContext, outcomes: readonly InstanceOutcome[]) {
  const url = (o: InstanceOutcome) =>
    `${ctx.config.publicUrl}${DICOMWEB_BASE}/studies/${o.studyUid}/series/${o.seriesUid}/instances/${o.sopUid}`;
  const ui = (v: string | null) => (v ? { vr: 'UI', Value: [v] } : { vr: 'UI' });
  const stored = outcomes.filter((o) => o.stored);
  const failed = outcomes.filter((o) => o.failure);
  const studies = [...new Set(stored.map((o) => o.studyUid))];
  const body: Record<string, unknown> = {};
  if (studies.length === 1)
    body['00081190'] = { vr: 'UR', Value: [`${ctx.config.publicUrl}${DICOMWEB_BASE}/studies/${studies[0]}`] };
  if (failed.length) {
    body['00081198'] = {
      vr: 'SQ',
      Value: failed.map((o) => ({
        '00081150': ui(o.sopClassUid),
        '00081155': ui(o.sopUid),
        '00081197': { vr: 'US', Value: [o.failure!.reason] },
        // Not a PS3.18 attribute: the reason in words, for the integrator reading the answer.
        '00000902': { vr: 'LO', Value: [o.failure!.comment.slice(0, 64)] },
      })),
    };
  }
  if (stored.length) {
    body['00081199'] = {
      vr: 'SQ',
      Value: stored.map((o) => ({
        '00081150': ui(o.sopClassUid),
        '00081155': ui(o.sopUid),
        '00081190': { vr: 'UR', Value: [url(o)] },
      })),
    };
  }
  // 200: all stored; 202: some refused; 409: none stored (PS3.18 10.5.3.1).
  return { status: failed.length === 0 ? 200 : stored.length === 0 ? 409 : 202, body };
}

/** Whether the client asked for a bare Part 10 file (a portal extension to the multipart answer). */
function wantsBareFile(request: FastifyRequest): boolean {
  const accept = (request.headers.accept ?? '').toLowerCase();
  return accept.includes('application/dicom') && !accept.includes('multipart/related');
}

/** The `transfer-syntax` an `Accept: application/dicom; transfer-syntax=...` names; none for `*` or absent. */
function askedTransferSyntax(request: FastifyRequest): string | null {
  const part = (request.headers.accept ?? '')
    .split(',')
    .find((p) => p.trim().toLowerCase().startsWith('application/dicom'));
  const asked = /transfer-syntax\s*=\s*"?([0-9.*]+)"?/i.exec(part ?? '')?.[1];
  return !asked || asked === '*' ? null : asked;
}

function multipartStream(files: AsyncIterable<Readable>, contentType: string, boundary: string): Readable {
  return Readable.from(
    (async function* () {
      for await (const file of files) {
        yield Buffer.from(`--${boundary}\r\nContent-Type: ${contentType}\r\n\r\n`, 'latin1');
        for await (const chunk of file) yield chunk as Buffer;
        yield Buffer.from('\r\n', 'latin1');
      }
      yield Buffer.from(`--${boundary}--\r\n`, 'latin1');
    })(),
  );
}

/** Contract 9: DICOMweb. STOW-RS with the institution's API key; QIDO-RS and WADO-RS with the portal session. */
export default function dicomRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    app.decorateRequest('ingestInstitution', null);
    // The body stays a stream: parts are read and filed one at a time.
    app.addContentTypeParser('multipart/related', (_request, payload, done) => done(null, payload));
    // Refusing a body half-way leaves unread bytes on the connection: close it after the answer.
    app.addHook('onSend', async (request, reply) => {
      if (reply.statusCode >= 400 && request.raw.complete === false) reply.header('connection', 'close');
    });

    const stow = async (request: FastifyRequest, reply: FastifyReply, studyUid?: string) => {
      const institution = request.ingestInstitution;
      if (!institution) throw unauthorized(ServerMessage.invalidApiKey);
      try {
        const outcomes = await stowStudies(
          ctx,
          institution,
          request.headers['content-type'],
          request.body as Readable,
          studyUid,
        );
        const { status, body } = storeResponse(ctx, outcomes);
        request.log.info(
          { stored: outcomes.filter((o) => o.stored).length, refused: outcomes.filter((o) => o.failure).length },
          'STOW-RS',
        );
        return sendJson(reply, status, body);
      } catch (error) {
        if (error instanceof StowRequestError) {
          throw new AppError(
            error.statusCode,
            error.statusCode === 415 ? ServerMessage.unsupportedMediaType : ServerMessage.validation,
            [{ field: 'body', message: error.message }],
          );
        }
        throw error;
      }
    };
    const stowSchema = {
      summary: 'Store DICOM instances (STOW-RS)',
      description:
        'A `multipart/related; type="application/dicom"` body, one DICOM Part 10 file per part. Instances are filed by ' +
        'Study/Series/SOP Instance UID and joined to the exam whose `examKey` equals their Accession Number, whether ' +
        'the protocol arrives before or after them. Resending an instance changes nothing. Answers the PS3.18 store ' +
        'response (`application/dicom+json`): 200 all stored, 202 some refused (FailedSOPSequence with the reason), ' +
        '409 none stored. See docs/integration/dicomweb.md.',
    };
    app.post(
      `${DICOMWEB_BASE}/studies`,
      { onRequest: requireApiKey(ctx), bodyLimit: Number.MAX_SAFE_INTEGER, schema: stowSchema },
      (request, reply) => stow(request, reply),
    );
    app.post(
      `${DICOMWEB_BASE}/studies/:study`,
      { onRequest: requireApiKey(ctx), bodyLimit: Number.MAX_SAFE_INTEGER, schema: { ...stowSchema, params: zStudy } },
      (request, reply) => stow(request, reply, request.params.study),
    );

    const preHandler = authenticate(ctx);

    app.get(
      `${DICOMWEB_BASE}/studies`,
      {
        preHandler,
        schema: {
          summary: 'Search the studies of an exam (QIDO-RS)',
          description:
            'The studies joined to the exam `examId` (the exam id of the protocol detail), when the caller may see it.',
          querystring: zStudiesQuery,
        },
      },
      async (request, reply) =>
        sendJson(reply, 200, await studiesOfExam(ctx, requireAuth(request), request.query.examId)),
    );

    // Every study-level call authorises the study first; all but the thumbnail count as opening it.
    const open = async (request: FastifyRequest, studyUid: string, opening = true) => {
      const found = await authoriseStudy(ctx, requireAuth(request), studyUid);
      if (opening) await noteStudyOpened(ctx, found, request);
      return found;
    };

    app.get(
      `${DICOMWEB_BASE}/studies/:study/series`,
      {
        preHandler,
        schema: { summary: 'Search the series of a study (QIDO-RS)', params: zStudy },
      },
      async (request, reply) => sendJson(reply, 200, await seriesOf(ctx, await open(request, request.params.study))),
    );
    app.get(
      `${DICOMWEB_BASE}/studies/:study/instances`,
      {
        preHandler,
        schema: {
          summary: 'Search the instances of a study (QIDO-RS)',
          params: zStudy,
        },
      },
      async (request, reply) =>
        sendJson(reply, 200, await instancesSearchResult(ctx, await open(request, request.params.study))),
    );
    app.get(
      `${DICOMWEB_BASE}/studies/:study/series/:series/instances`,
      {
        preHandler,
        schema: {
          summary: 'Search the instances of a series (QIDO-RS)',
          params: zSeries,
        },
      },
      async (request, reply) =>
        sendJson(
          reply,
          200,
          await instancesSearchResult(ctx, await open(request, request.params.study), request.params.series),
        ),
    );

    app.get(
      `${DICOMWEB_BASE}/studies/:study/metadata`,
      {
        preHandler,
        schema: { summary: 'Metadata of a study (WADO-RS)', params: zStudy },
      },
      async (request, reply) => sendJson(reply, 200, await metadataOf(ctx, await open(request, request.params.study))),
    );
    app.get(
      `${DICOMWEB_BASE}/studies/:study/series/:series/metadata`,
      {
        preHandler,
        schema: { summary: 'Metadata of a series (WADO-RS)', params: zSeries },
      },
      async (request, reply) =>
        sendJson(reply, 200, await metadataOf(ctx, await open(request, request.params.study), request.params.series)),
    );
    app.get(
      `${DICOMWEB_BASE}/studies/:study/series/:series/instances/:sop/metadata`,
      {
        preHandler,
        schema: { summary: 'Metadata of an instance (WADO-RS)', params: zInstance },
      },
      async (request, reply) =>
        sendJson(
          reply,
          200,
          await metadataOf(ctx, await open(request, request.params.study), request.params.series, request.params.sop),
        ),
    );

    /** Instances as stored, in a multipart/related answer (or, for one instance, the bare file when asked). */
    const retrieve = async (
      request: FastifyRequest,
      reply: FastifyReply,
      study: string,
      series?: string,
      sop?: string,
    ) => {
      const accept = (request.headers.accept ?? '').toLowerCase();
      if (accept.includes('application/zip') && !series) {
        const found = await open(request, study);
        const archive = await studyArchive(ctx, found);
        return reply
          .status(200)
          .headers({
            'content-type': 'application/zip',
            'content-disposition': `attachment; filename="${archive.fileName}"`,
            'content-length': String(archive.size),
          })
          .send(archive.body);
      }
      const found = await open(request, study);
      const instances = await selectInstances(ctx, found, series, sop);
      if (sop && wantsBareFile(request)) {
        const [instance] = instances;
        if (!instance) throw notFound();
        const wanted = askedTransferSyntax(request);
        if (wanted && wanted !== instance.transferSyntaxUid) {
          // PS3.18 8.7.3.5: a syntax the portal cannot make from this file is not acceptable.
          if (wanted !== EXPLICIT_VR_LITTLE_ENDIAN || !canTranscode(instance.transferSyntaxUid)) {
            throw new AppError(406, ServerMessage.notAcceptable, `cannot serve this instance as ${wanted}`);
          }
          const { transcode } = await dicomCodecs();
          const body = await transcode(await ctx.storage.read(instance.storageKey));
          return reply
            .status(200)
            .headers({
              'content-type': `application/dicom; transfer-syntax=${EXPLICIT_VR_LITTLE_ENDIAN}`,
              'content-length': String(body.length),
            })
            .send(body);
        }
        return reply
          .status(200)
          .headers({ 'content-type': 'application/dicom', 'content-length': String(instance.size) })
          .send(await ctx.storage.get(instance.storageKey));
      }
      const boundary = `dicom-${randomBytes(12).toString('hex')}`;
      return reply
        .status(200)
        .header('content-type', `multipart/related; type="application/dicom"; boundary=${boundary}`)
        .send(multipartStream(instanceStream(ctx, instances), 'application/dicom', boundary));
    };
    const retrieveDoc =
      'The stored DICOM Part 10 files, byte for byte, as `multipart/related; type="application/dicom"`. ' +
      'For one instance, `Accept: application/dicom` answers the bare file; with `transfer-syntax=1.2.840.10008.1.2.1` ' +
      'a JPEG-LS file decoded, or a deflated one inflated, to Explicit VR Little Endian (another syntax than the stored one: 406).';
    app.get(
      `${DICOMWEB_BASE}/studies/:study`,
      {
        preHandler,
        schema: {
          summary: 'Retrieve a study (WADO-RS), or download it as a zip with a DICOMDIR',
          description: `${retrieveDoc} With \`Accept: application/zip\`, a zip of the study's files with a DICOMDIR (PS3.10 media) for the patient to take to another physician.`,
          params: zStudy,
        },
      },
      (request, reply) => retrieve(request, reply, request.params.study),
    );
    app.get(
      `${DICOMWEB_BASE}/studies/:study/series/:series`,
      {
        preHandler,
        schema: {
          summary: 'Retrieve a series (WADO-RS)',
          description: retrieveDoc,
          params: zSeries,
        },
      },
      (request, reply) => retrieve(request, reply, request.params.study, request.params.series),
    );
    app.get(
      `${DICOMWEB_BASE}/studies/:study/series/:series/instances/:sop`,
      {
        preHandler,
        schema: {
          summary: 'Retrieve an instance (WADO-RS)',
          description: retrieveDoc,
          params: zInstance,
        },
      },
      (request, reply) => retrieve(request, reply, request.params.study, request.params.series, request.params.sop),
    );

    app.get(
      `${DICOMWEB_BASE}/studies/:study/series/:series/instances/:sop/frames/:frames`,
      {
        preHandler,
        schema: {
          summary: 'Retrieve frames (WADO-RS)',
          description:
            'The pixel data of the frames named (1-based, comma-separated), one part each: ' +
            '`application/octet-stream` for native data, else the compressed bitstream as stored (`image/jpeg`, `image/jls`, `image/jp2`, `image/dicom-rle`) with its `transfer-syntax`.',
          params: zFrames,
        },
      },
      async (request, reply) => {
        const { study, series, sop, frames } = request.params;
        const [instance] = await selectInstances(ctx, await open(request, study), series, sop);
        if (!instance) throw notFound();
        const numbers = frames.split(',').map(Number);
        const bodies = await framesOf(ctx, instance, numbers);
        const type = frameMediaType(instance.transferSyntaxUid);
        const boundary = `dicom-${randomBytes(12).toString('hex')}`;
        const pieces: Buffer[] = [];
        for (const body of bodies) {
          pieces.push(
            Buffer.from(`--${boundary}\r\nContent-Type: ${type}\r\n\r\n`, 'latin1'),
            body,
            Buffer.from('\r\n'),
          );
        }
        pieces.push(Buffer.from(`--${boundary}--\r\n`, 'latin1'));
        return reply
          .status(200)
          .header('content-type', `multipart/related; type="${type.split(';')[0]}"; boundary=${boundary}`)
          .send(Buffer.concat(pieces));
      },
    );

    const renderedFormat = (request: FastifyRequest) =>
      (request.headers.accept ?? '').toLowerCase().includes('image/png') ? 'png' : 'jpeg';
    const sendImage = (reply: FastifyReply, image: { contentType: string; body: Buffer }) =>
      reply
        .status(200)
        .headers({ 'content-type': image.contentType, 'content-length': String(image.body.length) })
        .send(image.body);

    app.get(
      `${DICOMWEB_BASE}/studies/:study/series/:series/instances/:sop/frames/:frame/rendered`,
      {
        preHandler,
        schema: {
          summary: 'A frame rendered as an image (WADO-RS rendered)',
          description: 'JPEG by default, PNG with `Accept: image/png`; the window the file proposes.',
          params: zFrame,
        },
      },
      async (request, reply) => {
        const { study, series, sop, frame } = request.params;
        const [instance] = await selectInstances(ctx, await open(request, study), series, sop);
        if (!instance) throw notFound();
        return sendImage(
          reply,
          await renderedOf(ctx, instance, { frame: Number(frame), format: renderedFormat(request) }),
        );
      },
    );
    app.get(
      `${DICOMWEB_BASE}/studies/:study/series/:series/instances/:sop/thumbnail`,
      {
        preHandler,
        schema: { summary: 'Thumbnail of an instance (WADO-RS)', params: zInstance },
      },
      async (request, reply) => {
        const { study, series, sop } = request.params;
        const [instance] = await selectInstances(ctx, await open(request, study, false), series, sop);
        if (!instance) throw notFound();
        return sendImage(reply, await renderedOf(ctx, instance, { maxSide: 128, format: renderedFormat(request) }));
      },
    );
    app.get(
      `${DICOMWEB_BASE}/studies/:study/series/:series/thumbnail`,
      {
        preHandler,
        schema: {
          summary: 'Thumbnail of a series: its middle instance (WADO-RS)',
          params: zSeries,
        },
      },
      async (request, reply) => {
        const { study, series } = request.params;
        const instances = await selectInstances(ctx, await open(request, study, false), series);
        const middle = instances[Math.floor((instances.length - 1) / 2)];
        if (!middle) throw notFound();
        return sendImage(reply, await renderedOf(ctx, middle, { maxSide: 128, format: renderedFormat(request) }));
      },
    );
    app.get(
      `${DICOMWEB_BASE}/studies/:study/thumbnail`,
      {
        preHandler,
        schema: {
          summary: "The study's key image as a thumbnail (WADO-RS)",
          description:
            'The middle slice of the first series (the middle frame of a multi-frame instance). Does not count as opening the study.',
          params: zStudy,
        },
      },
      async (request, reply) => {
        const found = await open(request, request.params.study, false);
        return sendImage(
          reply,
          await renderedOf(ctx, await keyInstance(ctx, found), { maxSide: 256, format: renderedFormat(request) }),
        );
      },
    );
  };
}
