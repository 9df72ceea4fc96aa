import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { ServerMessage } from '@portal/shared/errors';
import { exampleFor } from './openapi-examples.js';

/**
 * The OpenAPI document (GET /api/docs/openapi.json) and its browsable reference (GET /api/docs).
 * Paths, parameters and bodies come from the route schemas; what a schema cannot say (a summary,
 * the tag, who may call, the error answers, examples) comes from each feature's `*.openapi.ts`,
 * keyed by `METHOD /path`. An operation missing there fails the OpenAPI test.
 */

/** The groups of the reference, in the order an integrator reads them. */
export const API_TAGS = {
  Ingest: 'Institutions push protocols, exams and files with their API key (contract 5).',
  HL7: 'HL7 v2 messages over HTTPS (contract 9); the same messages also arrive over MLLP.',
  'FHIR R4': 'FHIR R4 transactions with the API key, and reads with a portal session (contract 9).',
  DICOMweb:
    'Imaging studies: STOW-RS with the API key; QIDO-RS and WADO-RS with a portal session (contract 9, docs/integration/dicomweb.md).',
  'Sign-in': 'Signing in and out, the session, MFA codes (contract 3).',
  Accounts: 'Registration, invitations, passwords, profiles and linking a protocol to an account.',
  Institutions: "Institutions' public pages and settings, read before sign-in.",
  Results: 'Protocol lists, protocol details, report and image files, batch printing, the results history.',
  Shares: 'Protocols shared with someone by e-mail for a number of days.',
  Terms: 'Terms of use and their acceptance.',
  Trace: "The client's own events for the audit trail, and a protocol's trace.",
  Administration: 'The administration console: admins and company users (`appKey: "admin"` sessions).',
  Health: 'Liveness and readiness for load balancers and orchestrators.',
} as const;
export type ApiTag = keyof typeof API_TAGS;

/**
 * Who may call: `bearer` a portal session, `apiKey` an institution's key (`X-Api-Key`), `public`
 * anybody, `bearerOptional` anybody, a session changing the answer.
 */
export type ApiSecurity = 'bearer' | 'apiKey' | 'public' | 'bearerOptional';

export interface MediaDoc {
  schema?: object;
  /** Omitted for binary content (files): the schema says `format: binary`. */
  example?: unknown;
}

export interface AnswerDoc {
  description: string;
  content?: Record<string, MediaDoc>;
  headers?: Record<string, { description: string; schema: object }>;
}

export interface OperationDoc {
  /** Required unless the route's schema has its own. */
  summary?: string;
  description?: string;
  tag: ApiTag;
  security: ApiSecurity;
  /**
   * The error answers of this operation beyond the two every operation of its kind has (400 when
   * it takes input, 401 when it needs a session or key): status → the catalogue's message(s).
   */
  errors?: Partial<Record<number, string | readonly string[]>>;
  /** Example inputs; what is not given is built from the schema. */
  params?: Record<string, string>;
  query?: Record<string, unknown>;
  body?: unknown;
  /** Bodies read without a JSON schema (files, HL7, FHIR Bundles): media type → schema and example. */
  requestContent?: Record<string, MediaDoc>;
  /** Example of the JSON success answer; built from its schema when absent. */
  response?: unknown;
  /** Success answers of routes without a response schema (files, redirects, FHIR), or more said of one. */
  answers?: Record<number, AnswerDoc>;
}

/** `METHOD /path` (OpenAPI's path form, `{id}`) → what the reference says of it. */
export type OperationDocs = Record<string, OperationDoc>;

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'The input is not valid; `data` names the fields at fault.',
  401: 'No valid session (or API key).',
  403: 'The session may not do this.',
  404: 'Not found, or not yours (both answer alike).',
  405: 'Not allowed on this resource.',
  409: 'Conflicts with the current state.',
  413: 'The body is too large.',
  415: 'The body has a media type this call does not take.',
  416: 'The byte range asked for is outside the file.',
  422: 'The content could not be processed.',
  429: 'Locked after repeated failures or too many calls; wait `Retry-After` seconds (contract 8).',
  502: 'The institution system behind this call did not answer.',
  503: 'The server is busy (password hashing queue full); wait `Retry-After` seconds.',
};

const RETRY_AFTER = { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 1 } };

type JsonObject = Record<string, unknown>;
type Operation = JsonObject & {
  summary?: string;
  parameters?: Array<JsonObject & { name: string; in: string; schema?: JsonObject }>;
  requestBody?: { content?: Record<string, MediaDoc> } & JsonObject;
  responses?: Record<string, JsonObject & { content?: Record<string, MediaDoc> }>;
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

/** `get /api/x/{id}` → `getApiXById`-like operation ids, unique in the document. */
function operationId(method: string, url: string): string {
  const words = url
    .split('/')
    .filter((part) => part && part !== 'api')
    .map((part) => (part.startsWith('{') ? `by-${part.slice(1, -1)}` : part))
    .flatMap((part) => part.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  return [method, ...words].map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join('');
}

function securityOf(kind: ApiSecurity): Array<Record<string, string[]>> {
  switch (kind) {
    case 'bearer':
      return [{ bearer: [] }];
    case 'apiKey':
      return [{ apiKey: [] }];
    case 'bearerOptional':
      return [{ bearer: [] }, {}];
    case 'public':
      return [];
  }
}

function errorAnswer(status: number, messages: readonly string[]): JsonObject {
  const example = (message: string) =>
    status === 400 && message === ServerMessage.validation
      ? { message, data: [{ field: 'field', message: 'Required' }] }
      : status === 429
        ? { message, data: { retryAfter: 60 } }
        : { message };
  const media: JsonObject = { schema: { $ref: '#/components/schemas/ErrorAnswer' } };
  if (messages.length === 1) media.example = example(messages[0]!);
  else {
    media.examples = Object.fromEntries(
      messages.map((message, i) => [`error${i + 1}`, { summary: message, value: example(message) }]),
    );
  }
  return {
    description: ERROR_DESCRIPTIONS[status] ?? 'Refused.',
    ...(status === 429 || status === 503 ? { headers: { 'Retry-After': RETRY_AFTER } } : {}),
    content: { 'application/json': media },
  };
}

/**
 * An OpenAPI 3.0 schema `{ nullable: true }` with no type (zod's unknown-or-null) is read as
 * "any value" without `nullable`, which 3.0 only allows beside a type.
 */
function dropUntypedNullable(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    node.forEach(dropUntypedNullable);
    return;
  }
  const object = node as JsonObject;
  if (object.nullable === true && object.type === undefined && object.$ref === undefined) delete object.nullable;
  Object.values(object).forEach(dropUntypedNullable);
}

function describeOperation(op: Operation, method: string, url: string, doc: OperationDoc): void {
  op.operationId = operationId(method, url);
  if (doc.summary) op.summary = doc.summary;
  if (doc.description) op.description = doc.description;
  op.tags = [doc.tag];
  op.security = securityOf(doc.security);

  for (const parameter of op.parameters ?? []) {
    const given = parameter.in === 'path' ? doc.params?.[parameter.name] : doc.query?.[parameter.name];
    const example = given ?? exampleFor(parameter.schema as never, parameter.name, true);
    if (example !== undefined) parameter.example = example;
  }

  if (doc.requestContent) {
    op.requestBody = { required: true, content: doc.requestContent };
  } else if (op.requestBody?.content) {
    for (const media of Object.values(op.requestBody.content)) {
      media.example = doc.body ?? exampleFor(media.schema as never, '', true);
    }
  }

  const responses = (op.responses ??= {});
  for (const [status, answer] of Object.entries(doc.answers ?? {})) {
    responses[status] = { ...responses[status], ...answer } as JsonObject;
  }
  for (const [status, answer] of Object.entries(responses)) {
    if (answer.description === 'Default Response') {
      answer.description = status === '201' ? 'Created.' : 'Done.';
    }
    for (const [type, media] of Object.entries(answer.content ?? {})) {
      if (media.example !== undefined || !type.includes('json') || !media.schema) continue;
      media.example = doc.response ?? exampleFor(media.schema as never);
    }
  }

  const errors: Record<number, readonly string[]> = {};
  if ((op.parameters?.length ?? 0) > 0 || op.requestBody) errors[400] = [ServerMessage.validation];
  if (doc.security === 'bearer') errors[401] = [ServerMessage.unauthorized];
  if (doc.security === 'apiKey') errors[401] = [ServerMessage.invalidApiKey];
  for (const [status, messages] of Object.entries(doc.errors ?? {})) {
    if (messages !== undefined) errors[Number(status)] = typeof messages === 'string' ? [messages] : messages;
  }
  for (const [status, messages] of Object.entries(errors)) {
    if (!responses[status]) responses[status] = errorAnswer(Number(status), messages);
  }
}

/** Adds to the generated document what the route schemas cannot say (see OperationDoc). */
export function describeOperations(document: JsonObject, docs: OperationDocs): JsonObject {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const [url, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const op = item[method];
      const doc = docs[`${method.toUpperCase()} ${url}`];
      if (op && doc) describeOperation(op, method, url, doc);
    }
  }
  dropUntypedNullable(paths);
  const components = (document.components ?? {}) as JsonObject;
  components.schemas = {
    ...(components.schemas as JsonObject | undefined),
    ErrorAnswer: {
      type: 'object',
      description:
        "Every refusal (contract 2): `message` is the catalogue's exact English text, which clients match by " +
        'substring; `data` adds detail (the fields at fault of a 400, `retryAfter` of a 429).',
      required: ['message'],
      properties: { message: { type: 'string' }, data: { description: 'Detail of the refusal, when there is one.' } },
    },
  };
  return {
    ...document,
    servers: [{ url: '/', description: 'This portal' }],
    tags: Object.entries(API_TAGS).map(([name, description]) => ({ name, description })),
    components,
  };
}

const require = createRequire(import.meta.url);
const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
/** The only files of swagger-ui-dist the reference page loads. */
const UI_FILES = ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png'];

const UI_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Results portal API reference</title>
<link rel="icon" type="image/png" href="/api/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/api/docs/assets/swagger-ui.css">
</head>
<body>
<main id="reference"><noscript>The API reference needs JavaScript; the document itself is at
<a href="/api/docs/openapi.json">/api/docs/openapi.json</a>.</noscript></main>
<script src="/api/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/docs/assets/reference.js"></script>
</body>
</html>
`;

// Served as a file of its own: the Content-Security-Policy allows no inline script. No
// validator badge (it would send the document to a third party), no "try it out" by default.
const UI_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/api/docs/openapi.json',
    dom_id: '#reference',
    deepLinking: true,
    validatorUrl: null,
    // Folded tags: the reader first sees the list of tags. Swagger UI draws only the operations in
    // view (a virtual list), so an unfolded reference showed the first screenful, not all 140.
    docExpansion: 'none',
    defaultModelsExpandDepth: 0,
    displayOperationId: false,
    tryItOutEnabled: false,
  });
});
`;

/** Registers the OpenAPI generator, the document's route and the browsable reference. */
export async function registerOpenApi(app: FastifyInstance, docs: OperationDocs): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      info: {
        title: 'Results portal API',
        version: '1',
        description:
          'The API of the results portal: institutions deliver results (Ingest, HL7, FHIR R4); patients, physicians, ' +
          'partners and guests read them; administrators run the portal. Answers are JSON `{"data": …}`; refusals ' +
          'are `{"message", "data"?}` with the exact English texts of the error catalogue (contract 2). Calls ' +
          'that check a secret (sign-in, protocol password, current password, MFA code, password recovery, share ' +
          'creation) answer 429 with Retry-After while the account, protocol number or client address is locked ' +
          '(contract 8). Password hashing is queued: beyond the queue a call answers 503 with Retry-After.',
        license: { name: 'Proprietary', url: '/api/docs' },
      },
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description: 'The `accessToken` of a sign-in (`POST /api/v2/auth/login`) or of a share link.',
          },
          apiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Api-Key',
            description: "An institution's API key, shown once when the institution is created or its key rotated.",
          },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: (documentObject) =>
      'openapiObject' in documentObject ? describeOperations(documentObject.openapiObject as JsonObject, docs) : {},
  });

  app.get('/api/docs/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  app.get('/api/docs', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send(UI_PAGE),
  );
  app.get('/api/docs/assets/reference.js', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').send(UI_SCRIPT),
  );
  for (const file of UI_FILES) {
    if (!fs.existsSync(path.join(SWAGGER_UI_DIR, file))) throw new Error(`swagger-ui-dist lacks ${file}`);
  }
  await app.register(fastifyStatic, {
    root: SWAGGER_UI_DIR,
    prefix: '/api/docs/assets/',
    decorateReply: false,
    allowedPath: (pathName) => UI_FILES.includes(pathName.replace(/^\//, '')),
    schemaHide: true,
  });
}
