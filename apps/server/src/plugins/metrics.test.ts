import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { createAccount, postLogin } from '../modules/auth/auth.test-support.js';
import { freePort, startTestPortal, type TestPortal } from '../test/helpers.js';

const TOKEN = 'metrics-token-metrics-token-0123456789';
const PROTOCOL_NUMBER = 'P7788990011';

let portal: TestPortal | undefined;
let prometheus: ChildProcess | undefined;
let tmp: string | undefined;
afterEach(async () => {
  if (prometheus && prometheus.exitCode === null) {
    const exited = new Promise((resolve) => prometheus!.once('exit', resolve));
    prometheus.kill('SIGTERM');
    await exited;
  }
  prometheus = undefined;
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  tmp = undefined;
  await portal?.destroy();
  portal = undefined;
});

/** A few answers of every kind the metrics count: a sign-in refused and one accepted, an ingest refused. */
async function exercise(p: TestPortal): Promise<void> {
  await createAccount(p.ctx, { type: 'ADMIN', email: 'admin@example.com', password: 'admin-pass' });
  const refused = await postLogin(p.app, { userName: 'admin@example.com', password: 'wrong-pass', appKey: 'admin' });
  expect(refused.statusCode).toBe(401);
  const accepted = await postLogin(p.app, { userName: 'admin@example.com', password: 'admin-pass', appKey: 'admin' });
  expect(accepted.statusCode).toBe(200);
  const ingest = await p.app.inject({
    method: 'PUT',
    url: `/api/v2/delivery/ingest/protocols/${PROTOCOL_NUMBER}`,
    headers: { 'x-api-key': 'not-a-key' },
    payload: {},
  });
  expect(ingest.statusCode).toBe(401);
}

describe('GET /metrics', () => {
  it('is off by default: neither the route nor a port', async () => {
    portal = await startTestPortal();
    expect(portal.ctx.config.metrics.enabled).toBe(false);
    // Not a route of the portal: the web app's fallback answers it like any unknown page.
    const answer = await portal.app.inject({ method: 'GET', url: '/metrics' });
    expect(answer.body).not.toContain('# HELP');
    expect(portal.metricsServer).toBeUndefined();
  });

  it('with METRICS_TOKEN answers bearers of the token only, with route patterns and no ids', async () => {
    portal = await startTestPortal({ env: { METRICS_TOKEN: TOKEN } });
    await exercise(portal);
    expect((await portal.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
    const wrong = await portal.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN.slice(0, -1)}x` },
    });
    expect(wrong.statusCode).toBe(401);
    const answer = await portal.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toContain('text/plain');
    const text = answer.body;
    expect(text).toContain('portal_sign_ins_total{outcome="refused"} 1');
    expect(text).toContain('portal_sign_ins_total{outcome="success"} 1');
    expect(text).toContain('portal_ingest_requests_total{method="PUT",outcome="refused"} 1');
    expect(text).toContain(
      'portal_http_requests_total{method="PUT",route="/api/v2/delivery/ingest/protocols/:number",status="401"} 1',
    );
    expect(text).toMatch(
      /portal_http_request_duration_seconds_bucket\{le="0\.005",method="POST",route="\/api\/v2\/auth\/login"\}/,
    );
    expect(text).toMatch(/portal_outbox_messages\{status="pending"\} \d+/);
    expect(text).toMatch(/portal_outbox_failing_messages \d+/);
    expect(text).toMatch(/portal_throttle_locks \d+/);
    expect(text).toMatch(/nodejs_eventloop_lag_seconds \d/);
    expect(text).toMatch(/process_resident_memory_bytes \d/);
    expect(text).toMatch(/nodejs_heap_size_used_bytes \d/);
    if (portal.ctx.dialect === 'postgres') {
      expect(text).toMatch(/portal_db_pool_connections\{pool="write",state="total"\} \d+/);
    }
    expect(text).not.toContain(PROTOCOL_NUMBER);
    expect(text).not.toContain('admin@example.com');
  });

  it('reports the connections of the write pool and of the read pool apart (PostgreSQL; SQLite has none)', async () => {
    portal = await startTestPortal({ env: { METRICS_TOKEN: TOKEN } });
    const scrape = async () => {
      const answer = await portal!.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(answer.statusCode).toBe(200);
      const gauge = (pool: string, state: string) => {
        const m = new RegExp(`portal_db_pool_connections\\{pool="${pool}",state="${state}"\\} (\\d+)`).exec(
          answer.body,
        );
        return m ? Number(m[1]) : undefined;
      };
      return { gauge, body: answer.body };
    };
    const { readPool } = portal.ctx.database;
    if (!readPool) {
      expect(portal.ctx.dialect).toBe('sqlite');
      expect((await scrape()).body).not.toContain('portal_db_pool_connections');
      return;
    }
    // Three reads held open on the read pool, none on the write pool beyond its own use.
    const held = await Promise.all([readPool.connect(), readPool.connect(), readPool.connect()]);
    try {
      const { gauge } = await scrape();
      expect(gauge('read', 'total')).toBeGreaterThanOrEqual(3);
      expect(gauge('read', 'total')! - gauge('read', 'idle')!).toBe(3);
      expect(gauge('read', 'waiting')).toBe(0);
      // The write pool is the one the scrape's own counts (outbox, locks) read through.
      expect(gauge('write', 'total')).toBeGreaterThanOrEqual(1);
      expect(gauge('write', 'waiting')).toBeDefined();
    } finally {
      for (const client of held) client.release();
    }
    const after = await scrape();
    expect(after.gauge('read', 'idle')).toBe(after.gauge('read', 'total'));
  });

  it('counts locks held in the database, shared by every process', async () => {
    portal = await startTestPortal({ env: { METRICS_TOKEN: TOKEN } });
    const now = portal.ctx.clock.now();
    await portal.ctx.db
      .insertInto('throttles')
      .values([
        {
          key: 'subject:locked',
          failures: 6,
          firstFailureAt: now.toISOString(),
          lastFailureAt: now.toISOString(),
          lockedUntil: new Date(now.getTime() + 60_000).toISOString(),
        },
        {
          key: 'subject:expired',
          failures: 6,
          firstFailureAt: now.toISOString(),
          lastFailureAt: now.toISOString(),
          lockedUntil: new Date(now.getTime() - 1000).toISOString(),
        },
      ])
      .execute();
    const answer = await portal.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(answer.body).toContain('portal_throttle_locks 1\n');
  });

  it('refuses a METRICS_PORT equal to PORT and a short token', () => {
    expect(() => loadConfig({ PORT: '9100', METRICS_PORT: '9100' })).toThrow(/METRICS_PORT/);
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
  });
});

async function waitFor<T>(what: string, deadlineMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`${what} did not happen in ${deadlineMs} ms (${String(last)})`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('METRICS_PORT, scraped by Prometheus', () => {
  it("serves /metrics on its own port of HOST, and Prometheus's query API gives the figures back", async () => {
    portal = await startTestPortal({ env: { HOST: '127.0.0.1', METRICS_PORT: '0' } });
    const address = portal.metricsServer?.address() as net.AddressInfo;
    expect(address.address).toBe('127.0.0.1');
    // The public port has no /metrics when only METRICS_PORT is set.
    expect((await portal.app.inject({ method: 'GET', url: '/metrics' })).body).not.toContain('# HELP');
    const other = await fetch(`http://127.0.0.1:${address.port}/other`);
    expect(other.status).toBe(404);
    await exercise(portal);

    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-prometheus-'));
    const config = path.join(tmp, 'prometheus.yml');
    fs.writeFileSync(
      config,
      [
        'global:',
        '  scrape_interval: 1s',
        '  evaluation_interval: 1s',
        'scrape_configs:',
        '  - job_name: portal',
        '    static_configs:',
        `      - targets: ['127.0.0.1:${address.port}']`,
        '',
      ].join('\n'),
    );
    const webPort = await freePort();
    let output = '';
    prometheus = spawn(
      'prometheus',
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${path.join(tmp, 'data')}`,
        `--web.listen-address=127.0.0.1:${webPort}`,
        '--storage.tsdb.retention.time=1h',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prometheus.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    prometheus.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const spawned = await new Promise<Error | undefined>((resolve) => {
      prometheus!.once('spawn', () => resolve(undefined));
      prometheus!.once('error', resolve);
    });
    expect(spawned, "Debian's prometheus must be installed (scripts/test-all.sh installs it)").toBeUndefined();

    const api = `http://127.0.0.1:${webPort}/api/v1`;
    const query = async (promql: string) => {
      const res = await fetch(`${api}/query?query=${encodeURIComponent(promql)}`);
      if (!res.ok) return undefined;
      const body = (await res.json()) as {
        data: { result: { metric: Record<string, string>; value: [number, string] }[] };
      };
      return body.data.result.length > 0 ? body.data.result : undefined;
    };
    try {
      const up = await waitFor('a successful scrape', 60_000, () => query('up{job="portal"} == 1'));
      expect(up[0]?.metric.instance).toBe(`127.0.0.1:${address.port}`);
      const signIns = await waitFor('sign-in figures in Prometheus', 30_000, () =>
        query('portal_sign_ins_total{outcome="refused"}'),
      );
      expect(signIns[0]?.value[1]).toBe('1');
      const routes = await waitFor('request figures per route', 30_000, () =>
        query('sum by (route) (portal_http_requests_total{route=~"/api/v2/delivery/ingest/.*"})'),
      );
      expect(routes.map((r) => r.metric.route)).toEqual(['/api/v2/delivery/ingest/protocols/:number']);
    } catch (error) {
      throw new Error(`${String(error)}\nprometheus said:\n${output.slice(-3000)}`);
    }
    // Its own waits add up to two minutes: a loaded machine may need more than the suite's 60 s.
  }, 180_000);
});
