import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPortal, type TestPortal } from '../test/helpers.js';

/**
 * Contract 9 and issue 19: the OpenAPI document describes every operation with a summary, a tag,
 * its security, examples of what goes in and comes out, and its error answers; the examples are
 * real (the server takes every input example), the declared security is the one the server
 * enforces, and the document passes a maintained OpenAPI linter with the recommended rules.
 */

type Media = { schema?: { format?: string; type?: string }; example?: unknown; examples?: Record<string, unknown> };
type Operation = {
  summary?: string;
  operationId?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string; example?: unknown; required?: boolean }>;
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { description?: string; content?: Record<string, Media> }>;
};
type Document = {
  openapi: string;
  tags: Array<{ name: string; description: string }>;
  paths: Record<string, Record<string, Operation>>;
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

function operations(doc: Document): Array<{ method: string; url: string; op: Operation; name: string }> {
  return Object.entries(doc.paths).flatMap(([url, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({
      method,
      url,
      op: item[method]!,
      name: `${method.toUpperCase()} ${url}`,
    })),
  );
}

const isBinary = (media: Media) => media.schema?.format === 'binary';
const hasExample = (media: Media) => media.example !== undefined || Object.keys(media.examples ?? {}).length > 0;

/** The request an operation's examples describe, ready for inject. */
function exampleRequest(url: string, method: string, op: Operation) {
  let pathname = url;
  const query = new URLSearchParams();
  for (const p of op.parameters ?? []) {
    if (p.in === 'path') pathname = pathname.replace(`{${p.name}}`, encodeURIComponent(String(p.example)));
    if (p.in === 'query' && p.example !== undefined) query.set(p.name, String(p.example));
  }
  const [type, media] = Object.entries(op.requestBody?.content ?? {})[0] ?? [];
  const payload =
    media === undefined
      ? undefined
      : isBinary(media)
        ? Buffer.from('%PDF-1.4\n%%EOF\n')
        : typeof media.example === 'string'
          ? media.example
          : JSON.stringify(media.example);
  return {
    method: method.toUpperCase() as 'GET',
    url: `${pathname}${query.size > 0 ? `?${query}` : ''}`,
    payload,
    headers: type ? { 'content-type': type } : {},
  };
}

describe('OpenAPI document (contract 9)', () => {
  let portal: TestPortal;
  let doc: Document;
  beforeAll(async () => {
    portal = await startTestPortal();
    const res = await portal.app.inject({ method: 'GET', url: '/api/docs/openapi.json' });
    expect(res.statusCode).toBe(200);
    doc = res.json<Document>();
  });
  afterAll(async () => portal?.destroy());

  it('lists the operations integrators rely on, and not the reference itself', () => {
    expect(doc.openapi).toMatch(/^3\./);
    const names = operations(doc).map((o) => o.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'PUT /api/v2/delivery/ingest/protocols/{number}',
        'PUT /api/v2/delivery/ingest/protocols/{number}/exams/{examKey}/resources/{identifier}',
        'POST /api/v2/auth/login',
        'POST /api/fhir/R4',
        'POST /api/v2/delivery/ingest/hl7',
      ]),
    );
    expect(names.filter((n) => n.includes('/api/docs'))).toEqual([]);
    expect(names.length).toBeGreaterThan(100);
  });

  it('gives every operation a summary, one described tag, its security and a unique operationId', () => {
    const tags = new Set(doc.tags.map((t) => t.name));
    const faults: string[] = [];
    const ids = new Set<string>();
    for (const { name, op } of operations(doc)) {
      if (!op.summary?.trim()) faults.push(`${name}: no summary`);
      if (op.tags?.length !== 1 || !tags.has(op.tags[0]!)) faults.push(`${name}: tag ${JSON.stringify(op.tags)}`);
      if (!Array.isArray(op.security)) faults.push(`${name}: no security`);
      if (!op.operationId || ids.has(op.operationId)) faults.push(`${name}: operationId ${op.operationId}`);
      ids.add(op.operationId ?? '');
    }
    expect(faults).toEqual([]);
    for (const tag of doc.tags) expect(tag.description.length, tag.name).toBeGreaterThan(10);
  });

  it('gives every operation examples of its inputs and answers, and its error answers', () => {
    const faults: string[] = [];
    for (const { name, op } of operations(doc)) {
      for (const p of op.parameters ?? []) if (p.example === undefined) faults.push(`${name}: parameter ${p.name}`);
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
        if (!isBinary(media) && !hasExample(media)) faults.push(`${name}: request ${type} has no example`);
      }
      const statuses = Object.keys(op.responses);
      const successes = statuses.filter((s) => Number(s) < 400);
      const errors = statuses.filter((s) => Number(s) >= 400);
      if (successes.length === 0) faults.push(`${name}: no success answer`);
      if (errors.length === 0) faults.push(`${name}: no error answer`);
      for (const status of statuses) {
        const answer = op.responses[status]!;
        if (!answer.description || answer.description === 'Default Response') {
          faults.push(`${name}: ${status} undescribed`);
        }
        for (const [type, media] of Object.entries(answer.content ?? {})) {
          if (!isBinary(media) && !hasExample(media)) faults.push(`${name}: ${status} ${type} has no example`);
        }
        if (Number(status) >= 400 && status !== '503' && !op.responses[status]!.content) {
          faults.push(`${name}: ${status} has no body`);
        }
      }
      if (op.security?.length && !op.security.some((s) => Object.keys(s).length === 0) && !op.responses['401']) {
        faults.push(`${name}: signed but no 401`);
      }
    }
    expect(faults).toEqual([]);
  });

  it('answers 401 to every signed operation called with its example but no session or key', async () => {
    const faults: string[] = [];
    for (const { name, url, method, op } of operations(doc)) {
      const schemes = (op.security ?? []).map((s) => Object.keys(s)[0] ?? 'none');
      if (schemes.length === 0 || schemes.includes('none')) continue;
      const request = exampleRequest(url, method, op);
      const anonymous = await portal.app.inject(request);
      if (anonymous.statusCode !== 401) faults.push(`${name}: ${anonymous.statusCode} without credentials`);
      const forged = await portal.app.inject({
        ...request,
        headers: {
          ...request.headers,
          ...(schemes.includes('apiKey') ? { 'x-api-key': 'not-a-key' } : { authorization: 'Bearer not.a.token' }),
        },
      });
      if (forged.statusCode !== 401) faults.push(`${name}: ${forged.statusCode} with a forged credential`);
    }
    expect(faults).toEqual([]);
  });

  it("takes every public operation's example input (no validation refusal)", async () => {
    const faults: string[] = [];
    for (const { name, url, method, op } of operations(doc)) {
      const schemes = (op.security ?? []).map((s) => Object.keys(s)[0] ?? 'none');
      if (schemes.length > 0 && !schemes.includes('none')) continue;
      const res = await portal.app.inject(exampleRequest(url, method, op));
      const body = String(res.headers['content-type']).includes('json') ? res.json<{ message?: string }>() : undefined;
      if (res.statusCode === 400 && body?.message === 'Invalid request.') faults.push(`${name}: ${res.body}`);
      if (res.statusCode >= 500) faults.push(`${name}: ${res.statusCode}`);
    }
    expect(faults).toEqual([]);
  });

  it('passes the Redocly linter with the recommended rules, examples checked against their schemas', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-'));
    const file = path.join(dir, 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(doc));
    try {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [
          path.join(root, 'node_modules/@redocly/cli/bin/cli.js'),
          'lint',
          file,
          '--config',
          path.join(root, 'redocly.yaml'),
          '--format',
          'summary',
        ],
        { cwd: root, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
      ).catch((error: { stdout?: string; stderr?: string }) => {
        throw new Error(`redocly lint failed:\n${error.stdout ?? ''}\n${error.stderr ?? ''}`);
      });
      // Warnings are allowed only where a rule asks for what cannot be: a 4xx answer of the health
      // checks and of FHIR's capability statement, which refuse nothing.
      expect(stdout).not.toMatch(/^error/m);
      const warnings = stdout.match(/^warning\s+\S+/gm) ?? [];
      expect(warnings.filter((w) => !w.endsWith('operation-4xx-response:'))).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('API reference page (contract 9)', () => {
  let portal: TestPortal;
  beforeAll(async () => {
    portal = await startTestPortal();
  });
  afterAll(async () => portal?.destroy());

  it('serves an HTML page whose scripts and styles come from the portal itself', async () => {
    const page = await portal.app.inject({ method: 'GET', url: '/api/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const sources = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources.length).toBeGreaterThanOrEqual(4);
    for (const source of sources) {
      expect(source.startsWith('/'), source).toBe(true);
      const asset = await portal.app.inject({ method: 'GET', url: source });
      expect(asset.statusCode, source).toBe(200);
    }
    expect(String(page.headers['content-security-policy'])).toContain("script-src 'self'");
    const files = await portal.app.inject({ method: 'GET', url: '/api/docs/assets/package.json' });
    expect(files.statusCode).toBe(404);
  });
});
