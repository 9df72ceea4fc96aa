import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyCompress from '@fastify/compress';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply } from 'fastify';
import helmet from 'helmet';
import {
  hasZodFastifySchemaValidationErrors,
  isResponseSerializationError,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { ServerMessage } from '@portal/shared/errors';
import type { AppContext } from './context.js';
import { AppError } from './lib/errors.js';
import { ANSWER_ENCODINGS, BROTLI_OPTIONS, COMPRESSION_THRESHOLD } from './lib/json-answer.js';
import { REDACT_PATHS, redactUrl } from './lib/redact.js';
import { registerMetrics, type PortalMetrics } from './plugins/metrics.js';
import { registerOpenApi, type OperationDocs } from './plugins/openapi.js';
import { requestChildLogger, requestIdMixin, trackRequests } from './lib/request-context.js';
import healthRoutes from './modules/health/health.routes.js';
import { recordIngestCalls } from './modules/ingest/ingest-calls.js';
import ingestRoutes from './modules/ingest/ingest.routes.js';
import hl7Routes from './modules/hl7/hl7.routes.js';
import institutionRoutes from './modules/institutions/institution.routes.js';
import authRoutes from './modules/auth/auth.routes.js';
import deliveryRoutes from './modules/delivery/delivery.routes.js';
import accountsRoutes from './modules/accounts/accounts.routes.js';
import administrationRoutes from './modules/administration/administration.routes.js';
import sharesRoutes from './modules/shares/shares.routes.js';
import termsRoutes from './modules/terms/terms.routes.js';
import fhirRoutes from './modules/fhir/fhir.routes.js';
import { accountsOperations } from './modules/accounts/accounts.openapi.js';
import { administrationOperations } from './modules/administration/administration.openapi.js';
import { authOperations } from './modules/auth/auth.openapi.js';
import { deliveryOperations } from './modules/delivery/delivery.openapi.js';
import { fhirOperations } from './modules/fhir/fhir.openapi.js';
import { healthOperations } from './modules/health/health.openapi.js';
import { hl7Operations } from './modules/hl7/hl7.openapi.js';
import { ingestOperations } from './modules/ingest/ingest.openapi.js';
import { institutionOperations } from './modules/institutions/institution.openapi.js';
import { sharesOperations } from './modules/shares/shares.openapi.js';
import { termsOperations } from './modules/terms/terms.openapi.js';
import dicomRoutes from './modules/dicom/dicom.routes.js';
import { dicomOperations } from './modules/dicom/dicom.openapi.js';
import accessLogRoutes from './modules/access-log/access-log.routes.js';
import signatureRoutes from './modules/signatures/signatures.routes.js';
import { signatureOperations } from './modules/signatures/signatures.openapi.js';
import { accessLogOperations } from './modules/access-log/access-log.openapi.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/** What the API reference says of every operation (summary, tag, security, errors, examples). */
const API_OPERATIONS: OperationDocs = {
  ...healthOperations,
  ...ingestOperations,
  ...hl7Operations,
  ...fhirOperations,
  ...dicomOperations,
  ...authOperations,
  ...accountsOperations,
  ...deliveryOperations,
  ...sharesOperations,
  ...accessLogOperations,
  ...signatureOperations,
  ...termsOperations,
  ...institutionOperations,
  ...administrationOperations,
};

export interface BuildOptions {
  /** Resolves when the database has been migrated (readyz answers 200 after). */
  ready?: () => boolean;
  /** pino options override (tests pass `false` to keep the output quiet). */
  logger?: boolean;
  /** Prometheus metrics, when configured (METRICS_PORT or METRICS_TOKEN). */
  metrics?: PortalMetrics;
}

export function loggerOptions(level: string) {
  return {
    level,
    // Lines written by services while a request runs carry its id too (request.log binds it).
    mixin: requestIdMixin,
    redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
    serializers: {
      req(request: { method: string; url: string; id: string; ip?: string }) {
        return { method: request.method, url: redactUrl(request.url), id: request.id };
      },
    },
  };
}

/** Builds the Fastify instance: plugins in a fixed order, the error handler, every module. */
export async function buildApp(ctx: AppContext, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: ctx.log,
    trustProxy: trustedProxies(ctx.config.trustProxy),
    bodyLimit: 1024 * 1024,
    requestIdHeader: false,
    genReqId: () => randomUUID(),
    childLoggerFactory: requestChildLogger,
    routerOptions: { ignoreTrailingSlash: true },
    // The router's own refusals (a path parameter over 100 characters, a malformed percent-escape)
    // skip the error handler and every hook: they answer the contract's envelope here.
    frameworkErrors: (error, _request, reply) => {
      const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
      void (reply as FastifyReply)
        .status(tooLong ? 414 : 400)
        .header('cache-control', 'no-store')
        .header('x-content-type-options', 'nosniff')
        .send({
          message: ServerMessage.validation,
          data: [{ field: 'path', message: tooLong ? 'a path parameter is too long' : 'the path is not a valid URL' }],
        });
    },
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorateRequest('auth', null);
  // Everything the request runs knows its id (see lib/request-context.ts); people quote it from
  // the X-Request-Id header when they report a problem.
  trackRequests(app);
  if (options.metrics) registerMetrics(app, ctx, options.metrics);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  // The security headers are the same on every answer: helmet's middleware is built once here
  // (registering @fastify/helmet would rebuild it, parsing every option again, on each request).
  const securityHeaders = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        frameSrc: ["'self'", 'blob:'],
        objectSrc: ["'self'", 'blob:'],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    referrerPolicy: { policy: 'no-referrer' },
    crossOriginEmbedderPolicy: false,
    hsts: false,
  });
  app.addHook('onRequest', (request, reply, done) =>
    securityHeaders(request.raw, reply.raw, (error?: unknown) => done(error instanceof Error ? error : undefined)),
  );

  // Every API answer may carry patient data: never cached anywhere.
  app.addHook('onRequest', async (request, reply) => {
    if (isApiPath(request.url)) reply.header('cache-control', 'no-store');
  });

  // JSON (and the few HTML and text answers) above 1 KiB go out compressed: a patient's list on a
  // phone is a fifth of its size. Stored files (PDF, images, DICOM, zips) are already compressed or
  // answer byte ranges, and their types are not in this list; the web app's own files are
  // compressed once at build time and sent as they are (registerWebApp).
  // List answers compress themselves with the same settings (lib/json-answer.ts), once per answer.
  // Answers up to 256 KiB are compressed in one call: a brotli stream per response cost more than
  // the compression itself here (bench/compress.bench.ts; the plugin streams above 8 KiB on two cores).
  await app.register(fastifyCompress, {
    global: true,
    threshold: COMPRESSION_THRESHOLD,
    syncThreshold: 256 * 1024,
    encodings: [...ANSWER_ENCODINGS],
    brotliOptions: BROTLI_OPTIONS,
    customTypes: COMPRESSED_TYPES,
  });

  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    if (error instanceof AppError) {
      if (error.headers) reply.headers(error.headers);
      return reply
        .status(error.statusCode)
        .send({ message: error.message, ...(error.data !== undefined ? { data: error.data } : {}) });
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const data = error.validation.map((v) => ({
        field:
          [v.instancePath.replace(/^\//, '').replace(/\//g, '.')].filter(Boolean).join('') ||
          v.params?.issue?.path?.join('.') ||
          '',
        message: v.message,
      }));
      return reply.status(400).send({ message: ServerMessage.validation, data });
    }
    if (isResponseSerializationError(error)) {
      request.log.error({ err: error }, 'response did not match its schema');
      return reply.status(500).send({ message: ServerMessage.internal });
    }
    const status = error.statusCode ?? 500;
    if (status === 413) return reply.status(413).send({ message: ServerMessage.payloadTooLarge });
    if (status === 415) return reply.status(415).send({ message: ServerMessage.unsupportedMediaType });
    if (status >= 400 && status < 500) {
      return reply.status(status).send({ message: error.message || ServerMessage.validation });
    }
    request.log.error({ err: error }, 'request failed');
    return reply.status(500).send({ message: ServerMessage.internal });
  });

  // The OpenAPI document, generated from the route schemas and each feature's *.openapi.ts.
  await registerOpenApi(app, API_OPERATIONS);

  await app.register(healthRoutes(ctx, options.ready ?? (() => true)));
  recordIngestCalls(app, ctx);
  await app.register(institutionRoutes(ctx));
  await app.register(ingestRoutes(ctx));
  await app.register(hl7Routes(ctx));
  await app.register(authRoutes(ctx));
  await app.register(deliveryRoutes(ctx));
  await app.register(accountsRoutes(ctx));
  await app.register(sharesRoutes(ctx));
  await app.register(accessLogRoutes(ctx));
  await app.register(signatureRoutes(ctx));
  await app.register(termsRoutes(ctx));
  await app.register(fhirRoutes(ctx));
  await app.register(dicomRoutes(ctx));
  await app.register(administrationRoutes(ctx));

  await registerWebApp(app, ctx);
  return app;
}

/** Answers compressed on the fly: JSON of every kind, HTML, plain text and XML. */
const COMPRESSED_TYPES = /^(?:application\/(?:[\w.-]+\+)?json|text\/(?:html|plain|xml)|application\/xml)(?:\s*;|$)/i;

/** `/api` itself belongs to the API too: it must never fall through to the web app's HTML. */
function isApiPath(url: string): boolean {
  return url === '/api' || url.startsWith('/api/') || url.startsWith('/api?');
}

/**
 * Which hops of `X-Forwarded-For` are proxies of ours (TRUST_PROXY): a hop count trusts that many
 * hops from the socket inward (Fastify's own number trusts none), a list trusts those addresses.
 * The client's address is the first hop from the right that is not trusted.
 */
function trustedProxies(
  setting: number | string[] | undefined,
): string[] | ((address: string, hop: number) => boolean) | undefined {
  if (setting === undefined) return undefined;
  if (typeof setting === 'number') return (_address, hop) => hop < setting;
  return setting;
}

/** `/admin` and everything under it belong to the administration console (contract 9). */
function isAdminPath(url: string): boolean {
  return url === '/admin' || url.startsWith('/admin/') || url.startsWith('/admin?');
}

/** Every file says it varies with Accept-Encoding (a precompressed copy may be sent). */
const staticHeaders = (res: { setHeader: (name: string, value: string) => void }, filePath: string) => {
  res.setHeader('vary', 'Accept-Encoding');
  res.setHeader(
    'cache-control',
    filePath.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
  );
};

/**
 * The screens the web app's build drew into pages of their own (apps/web/src/prerender.tsx): every
 * page of the build outside assets/ but index.html, each the file of its path plus `.html`
 * (`login.html` for /login). By path, its file.
 */
function drawnScreensOf(dist: string): Map<string, string> {
  if (!fs.existsSync(dist)) return new Map();
  const pages = fs
    .readdirSync(dist, { recursive: true, encoding: 'utf8' })
    .map((file) => file.split(path.sep).join('/'))
    .filter((file) => file.endsWith('.html') && file !== 'index.html' && !file.startsWith('assets/'));
  return new Map(pages.map((file) => [`/${file.slice(0, -'.html'.length)}`, file]));
}

/**
 * Serves the built web apps: the patient app at `/`, the administration console at `/admin/`;
 * hashed assets with long caching, each app's index.html for every route of that app. A build
 * may write a brotli and a gzip copy beside each text file (apps/web/vite.config.ts); the one the
 * browser accepts is sent.
 */
async function registerWebApp(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const dist = ctx.config.webDist ?? path.resolve(here, '../../web/dist');
  const indexFile = path.join(dist, 'index.html');
  const hasWeb = fs.existsSync(indexFile);
  // The screens drawn at build time, sent for their paths.
  const drawnFiles = drawnScreensOf(dist);
  // By its own name a drawn page would be the app at a path no screen has: it is sent to its path.
  const drawnPathOfFile = new Map([...drawnFiles].map(([screen, file]) => [`/${file}`, screen]));
  const adminDist = ctx.config.adminDist ?? path.resolve(here, '../../admin/dist');
  const adminIndex = path.join(adminDist, 'index.html');
  const hasAdmin = fs.existsSync(adminIndex);
  if (hasWeb) {
    await app.register(fastifyStatic, {
      root: dist,
      index: false,
      wildcard: false,
      serve: true,
      cacheControl: false,
      preCompressed: true,
      setHeaders: staticHeaders,
      // A drawn screen is its path's page, never served by its file's name (see the not-found handler).
      allowedPath: (pathname) => !drawnPathOfFile.has(pathname),
    });
  }
  if (hasAdmin) {
    await app.register(fastifyStatic, {
      root: adminDist,
      prefix: '/admin/',
      index: false,
      wildcard: false,
      serve: true,
      cacheControl: false,
      decorateReply: false,
      preCompressed: true,
      setHeaders: staticHeaders,
    });
  }
  app.setNotFoundHandler(async (request, reply) => {
    if (isApiPath(request.url) || (request.method !== 'GET' && request.method !== 'HEAD')) {
      return reply.status(404).send({ message: ServerMessage.notFound });
    }
    const admin = isAdminPath(request.url);
    if (admin ? !hasAdmin : !hasWeb) {
      return reply.status(503).type('text/plain').send('The web app is not built yet: run `npm run build`.');
    }
    if (!admin) {
      const [pathname, query] = request.url.split(/\?(.*)/s, 2);
      const drawnPath = drawnPathOfFile.get(pathname ?? '');
      if (drawnPath) return reply.redirect(query ? `${drawnPath}?${query}` : drawnPath, 301);
      // Through @fastify/static, so the page goes out precompressed like the rest (no-cache).
      return reply.sendFile(drawnFiles.get(pathname ?? '') ?? 'index.html');
    }
    return reply
      .header('cache-control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(await fs.promises.readFile(adminIndex));
  });
}
