import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import client from 'prom-client';
import type { AppContext } from '../context.js';

/**
 * Prometheus metrics (GET /metrics), off unless METRICS_PORT or METRICS_TOKEN is set.
 *
 * Labels hold route patterns (`/api/v2/delivery/protocols/:id`), methods, status codes and
 * fixed outcome words, never a raw URL, an id or anything a patient typed. Figures kept in the
 * database (outbox, locks) are read at scrape time, so every process reports the same, shared
 * state; counters and histograms are per process (Prometheus sums them over instances).
 */
export interface PortalMetrics {
  registry: client.Registry;
  /** The exposition text, as Prometheus scrapes it. */
  render(): Promise<string>;
  contentType: string;
}

const ROUTE_UNMATCHED = 'unmatched';
const SIGN_IN_ROUTES = new Set(['/api/v2/auth/login', '/api/v2/auth/externalLogin']);
const INGEST_PREFIX = '/api/v2/delivery/ingest/';

export function createMetrics(ctx: AppContext): PortalMetrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });

  new client.Counter({
    name: 'portal_http_requests_total',
    help: 'Requests answered, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  new client.Histogram({
    name: 'portal_http_request_duration_seconds',
    help: 'Time from the request arriving to the answer being sent, by method and route pattern.',
    labelNames: ['method', 'route'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  new client.Counter({
    name: 'portal_sign_ins_total',
    help: 'Sign-in attempts by outcome: success, refused (wrong or unknown credentials, bad input), locked (429: subject or address locked), error.',
    labelNames: ['outcome'],
    registers: [registry],
  });
  new client.Counter({
    name: 'portal_ingest_requests_total',
    help: 'Calls of the ingest API by method and outcome: accepted (2xx), refused (4xx), error (5xx).',
    labelNames: ['method', 'outcome'],
    registers: [registry],
  });

  const db = ctx.db;
  new client.Gauge({
    name: 'portal_outbox_messages',
    help: 'Messages in the outbox waiting to be sent (pending) or given up after every retry (dead); shared by all processes.',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const rows = await db
        .selectFrom('outbox')
        .select(['status', sql<number>`count(*)`.as('count')])
        .where('status', 'in', ['PENDING', 'DEAD'])
        .groupBy('status')
        .execute();
      const counts = new Map(rows.map((r) => [r.status, Number(r.count)]));
      this.set({ status: 'pending' }, counts.get('PENDING') ?? 0);
      this.set({ status: 'dead' }, counts.get('DEAD') ?? 0);
    },
  });
  new client.Gauge({
    name: 'portal_outbox_failing_messages',
    help: 'Pending messages whose last send failed and that wait for a retry.',
    registers: [registry],
    async collect() {
      const row = await db
        .selectFrom('outbox')
        .select(sql<number>`count(*)`.as('count'))
        .where('status', '=', 'PENDING')
        .where('attempts', '>', 0)
        .executeTakeFirst();
      this.set(Number(row?.count ?? 0));
    },
  });
  new client.Gauge({
    name: 'portal_throttle_locks',
    help: 'Sign-in subjects and client addresses locked right now after repeated failures.',
    registers: [registry],
    async collect() {
      const row = await db
        .selectFrom('throttles')
        .select(sql<number>`count(*)`.as('count'))
        .where('lockedUntil', '>', ctx.clock.now().toISOString())
        .executeTakeFirst();
      this.set(Number(row?.count ?? 0));
    },
  });
  const pools = [
    ['write', ctx.database.pool],
    ['read', ctx.database.readPool],
  ] as const;
  if (pools.some(([, pool]) => pool)) {
    new client.Gauge({
      name: 'portal_db_pool_connections',
      help: 'PostgreSQL pools (write; read: page views, health checks): connections open (total), idle, and requests waiting.',
      labelNames: ['pool', 'state'],
      registers: [registry],
      collect() {
        for (const [name, pool] of pools) {
          if (!pool) continue;
          this.set({ pool: name, state: 'total' }, pool.totalCount);
          this.set({ pool: name, state: 'idle' }, pool.idleCount);
          this.set({ pool: name, state: 'waiting' }, pool.waitingCount);
        }
      },
    });
  }

  return {
    registry,
    contentType: registry.contentType,
    render: () => registry.metrics(),
  };
}

function outcomeOf(status: number): 'accepted' | 'refused' | 'error' {
  if (status >= 500) return 'error';
  return status >= 400 ? 'refused' : 'accepted';
}

function signInOutcome(status: number): string {
  if (status === 429) return 'locked';
  if (status >= 500) return 'error';
  return status >= 400 ? 'refused' : 'success';
}

/** Counts every answer; with METRICS_TOKEN, serves GET /metrics to bearers of the token. */
export function registerMetrics(app: FastifyInstance, ctx: AppContext, metrics: PortalMetrics): void {
  const requests = metrics.registry.getSingleMetric('portal_http_requests_total') as client.Counter;
  const durations = metrics.registry.getSingleMetric('portal_http_request_duration_seconds') as client.Histogram;
  const signIns = metrics.registry.getSingleMetric('portal_sign_ins_total') as client.Counter;
  const ingests = metrics.registry.getSingleMetric('portal_ingest_requests_total') as client.Counter;

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? ROUTE_UNMATCHED;
    const method = request.method;
    const status = reply.statusCode;
    requests.inc({ method, route, status: String(status) });
    durations.observe({ method, route }, reply.elapsedTime / 1000);
    if (SIGN_IN_ROUTES.has(route)) signIns.inc({ outcome: signInOutcome(status) });
    else if (route.startsWith(INGEST_PREFIX)) ingests.inc({ method, outcome: outcomeOf(status) });
  });

  const token = ctx.config.metrics.token;
  if (token) {
    app.get('/metrics', { schema: { hide: true } }, async (request: FastifyRequest, reply: FastifyReply) => {
      if (!bearerMatches(request.headers.authorization, token)) {
        return reply.status(401).header('www-authenticate', 'Bearer').send({ message: 'Unauthorized' });
      }
      return reply
        .header('cache-control', 'no-store')
        .type(metrics.contentType)
        .send(await metrics.render());
    });
  }
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(/^Bearer (.+)$/i.exec(header ?? '')?.[1] ?? '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * METRICS_PORT: a listener of its own on HOST, for a scraper inside the private network; the
 * portal's public port keeps no /metrics. With METRICS_TOKEN too, the token is asked there as well.
 */
export async function startMetricsServer(
  metrics: PortalMetrics,
  options: { host: string; port: number; token?: string },
): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://metrics');
    if (url.pathname !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
      return;
    }
    if (options.token && !bearerMatches(req.headers.authorization, options.token)) {
      res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' }).end('Unauthorized\n');
      return;
    }
    metrics.render().then(
      (text) => res.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' }).end(text),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('Metrics could not be collected\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
