import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.js';
import { createAccount } from '../modules/auth/auth.test-support.js';
import { startTestPortal, type TestPortal } from '../test/helpers.js';

const SERVER_DIR = fileURLToPath(new URL('../..', import.meta.url));
const CEILING = 100;

describe('TRUST_PROXY (contract 9)', () => {
  it('takes a hop count or a list of addresses and CIDRs', () => {
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).toBeUndefined();
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBeUndefined();
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,fd00::/8,loopback' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
      'fd00::/8',
      'loopback',
    ]);
  });

  it('refuses `true` naming the variable and what to write instead, and entries that are not addresses', () => {
    for (const value of ['true', 'TRUE', ' true ']) {
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(ConfigError);
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(/TRUST_PROXY: `true` .*`1`.*CIDR/);
    }
    for (const value of ['nginx', '10.0.0.0/33', '10.0.0.1,', '300.1.1.1', '1.2.3.4/8/9']) {
      expect(() => loadConfig({ TRUST_PROXY: value }), value).toThrow(/TRUST_PROXY: .*is not a hop count/);
    }
  });

  it('stops the start with that message', async () => {
    const { DATABASE_URL: _db, ...inherited } = process.env;
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: SERVER_DIR,
      env: { ...inherited, TRUST_PROXY: 'true', HOST: '127.0.0.1', PORT: '0', DATA_DIR: '/nonexistent-never-created' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let errors = '';
    child.stderr.on('data', (d: Buffer) => (errors += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code, errors).toBe(78);
    expect(errors).toContain('TRUST_PROXY: `true` would believe any X-Forwarded-For a client writes');
  });
});

/** Failed sign-ins from a client behind the proxy, each with a new address forged at the left. */
describe.each([
  ['a hop count', '1'],
  ['a list of proxy addresses', '10.0.0.0/8'],
])('the per-address ceiling behind a proxy trusted by %s', (_name, setting) => {
  let portal: TestPortal;
  const proxy = '10.0.0.7';
  const attacker = '203.0.113.9';

  beforeAll(async () => {
    portal = await startTestPortal({ env: { TRUST_PROXY: setting } });
    await createAccount(portal.ctx, { type: 'PATIENT', email: 'real@example.com', password: 'right-one' });
  });
  afterAll(async () => portal?.destroy());

  const login = (forwardedFor: string, remoteAddress: string, userName: string, password = 'wrong') =>
    portal.app.inject({
      method: 'POST',
      url: '/api/v2/auth/login',
      payload: { userName, password, appKey: 'login' },
      remoteAddress,
      headers: { 'x-forwarded-for': forwardedFor },
    });

  it('is not escaped by forging X-Forwarded-For entries', async () => {
    for (let i = 0; i < CEILING; i++) {
      // What the client sent (`198.51.100.x`) followed by the address the proxy saw.
      const res = await login(`198.51.100.${i}, ${attacker}`, proxy, `NOPE-${i}`);
      expect(res.statusCode, `failure ${i}`).toBe(404);
    }
    const forged = await login(`192.0.2.200, ${attacker}`, proxy, 'real@example.com', 'right-one');
    expect(forged.statusCode).toBe(429);
    expect(Number(forged.headers['retry-after'])).toBeGreaterThan(0);
    // Another client behind the same proxy is not affected.
    expect((await login(`198.51.100.1, 203.0.113.10`, proxy, 'real@example.com', 'right-one')).statusCode).toBe(200);
  });

  it('believes X-Forwarded-For only from the proxy (a list) or from anyone (a hop count)', async () => {
    // A client reaching the portal directly and claiming the blocked address in the header.
    const direct = await login(attacker, '192.0.2.77', 'real@example.com', 'right-one');
    if (setting === '1') {
      // A hop count cannot tell the proxy from a direct client: the portal must be reachable only
      // through its proxy (README); a list of addresses does not depend on that.
      expect(direct.statusCode).toBe(429);
    } else {
      expect(direct.statusCode).toBe(200);
    }
  });
});
