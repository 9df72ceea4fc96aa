import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestPortal, type TestPortal } from '../../test/helpers.js';
import { makeInstitution, makeProtocol, makeTag, makeUser } from './test-factories.js';

const BROWSER = 'gzip, deflate, br, zstd';
const PATIENT_LIST = '/api/v2/delivery/dashboard/protocols';

const DECODE: Record<string, (bytes: Buffer) => Buffer> = {
  br: (bytes) => zlib.brotliDecompressSync(bytes),
  gzip: (bytes) => zlib.gunzipSync(bytes),
  deflate: (bytes) => zlib.inflateSync(bytes),
};

/**
 * List answers go to browsers compressed; a kept answer keeps its compressed bytes, so it must
 * never be sent compressed once what it says has changed, nor differ from the same list as text.
 */
describe('list answers compressed for the client', () => {
  let portal: TestPortal;
  let institution: { id: string };

  beforeAll(async () => {
    portal = await startTestPortal();
    institution = await makeInstitution(portal.ctx, { name: 'Clinica Gama' });
  });
  afterAll(async () => portal?.destroy());

  async function patientWith(protocols: number) {
    const user = await makeUser(portal.ctx, { type: 'PATIENT' });
    for (let i = 0; i < protocols; i++) {
      await makeProtocol(portal.ctx, { institutionId: institution.id, patientUserId: user.id });
    }
    const token = await portal.sessionFor({ role: 'PATIENT', userId: user.id, username: user.email });
    return { user, token };
  }

  /** One list call as a client sending `acceptEncoding` sees it: its encoding, Vary and decoded JSON. */
  async function call(url: string, token: string, acceptEncoding?: string, more: Record<string, string> = {}) {
    const res = await portal.app.inject({
      url,
      headers: { ...bearer(token), ...(acceptEncoding ? { 'accept-encoding': acceptEncoding } : {}), ...more },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    const encoding = res.headers['content-encoding'] as string | undefined;
    const bytes = encoding ? DECODE[encoding]!(res.rawPayload) : res.rawPayload;
    expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
    return {
      encoding: encoding ?? null,
      vary: res.headers.vary,
      raw: res.rawPayload,
      json: JSON.parse(bytes.toString('utf8')) as { data: { items: Array<{ number: string }>; total: number } },
    };
  }

  it('sends a kept list as the browser asks for it, the same as its text, and a changed list anew', async () => {
    const { user, token } = await patientWith(2);
    const plain = await call(PATIENT_LIST, token);
    expect(plain.encoding).toBeNull();
    expect(plain.json.data.total).toBe(2);

    const first = await call(PATIENT_LIST, token, BROWSER);
    expect(first.encoding).toBe('br');
    expect(first.vary).toBe('Accept-Encoding');
    expect(first.json).toEqual(plain.json);
    // The kept answer goes out again as the same bytes.
    const again = await call(PATIENT_LIST, token, BROWSER);
    expect(again.raw.equals(first.raw)).toBe(true);
    expect(first.raw.length).toBeLessThan(JSON.stringify(plain.json).length / 2);

    // A protocol released since: the compressed answer says so at the next call.
    const third = await makeProtocol(portal.ctx, { institutionId: institution.id, patientUserId: user.id });
    const changed = await call(PATIENT_LIST, token, BROWSER);
    expect(changed.encoding).toBe('br');
    expect(changed.json.data.total).toBe(3);
    expect(changed.json.data.items.map((p) => p.number)).toContain(third.protocol.number);
    expect(changed.json).toEqual((await call(PATIENT_LIST, token)).json);
  });

  it('answers in the encoding the client prefers among those it accepts, or as text', async () => {
    const { token } = await patientWith(2);
    const text = (await call(PATIENT_LIST, token)).json;
    const cases: Array<[string, string | null, Record<string, string>?]> = [
      ['gzip', 'gzip'],
      ['deflate', 'deflate'],
      ['br;q=0, gzip;q=0.5, deflate;q=0.4', 'gzip'],
      ['*', 'gzip'],
      ['x-gzip', 'gzip'],
      ['identity', null],
      ['zstd', null],
      [BROWSER, null, { 'x-no-compression': '1' }],
    ];
    for (const [accept, expected, more] of cases) {
      const answer = await call(PATIENT_LIST, token, accept, more);
      expect({ accept, encoding: answer.encoding }).toEqual({ accept, encoding: expected });
      expect(answer.vary).toBe('Accept-Encoding');
      expect(answer.json).toEqual(text);
    }
    // Built anew on every call, compressed the same way.
    const forced = await call(`${PATIENT_LIST}?forceRefresh=true`, token, BROWSER);
    expect(forced.encoding).toBe('br');
    expect(forced.json).toEqual(text);
  });

  it('sends a small answer as it is, and an external user’s page compressed', async () => {
    const { token } = await patientWith(0);
    const empty = await call(PATIENT_LIST, token, BROWSER);
    expect(empty.encoding).toBeNull();
    expect(empty.vary).toBeUndefined();
    expect(empty.json.data.total).toBe(0);

    const external = await makeUser(portal.ctx, { type: 'EXTERNAL' });
    const tag = await makeTag(portal.ctx, institution.id, [external.id]);
    for (let i = 0; i < 3; i++) await makeProtocol(portal.ctx, { institutionId: institution.id, tagId: tag.id });
    const externalToken = await portal.sessionFor({ role: 'EXTERNAL', userId: external.id, username: external.email });
    const url = '/api/v2/delivery/protocols/listedByTags';
    const page = await call(url, externalToken, 'gzip, br');
    expect(page.encoding).toBe('br');
    expect(page.json.data.total).toBe(3);
    expect(page.json).toEqual((await call(url, externalToken)).json);
  });
});
