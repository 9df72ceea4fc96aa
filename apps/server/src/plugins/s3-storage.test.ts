import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { EventEmitter } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { createStorage } from './storage-factory.js';
import { objectKey, parseStorageUrl, S3Storage } from './s3-storage.js';

/*
 * The storage runs against s3rver, a third-party S3-compatible server kept on disk, over real HTTP
 * with signed requests: multipart uploads, ranged reads, missing keys, and the server stopping and
 * coming back while an upload is under way. s3rver does not implement AbortMultipartUpload; the
 * storage's abort is checked against the store's contract only (nothing readable is left).
 */
interface S3EventRecords {
  Records: { eventName: string; s3: { object: { key: string } } }[];
}

class ObjectStore {
  server: S3rver | undefined;
  port = 0;
  /** What the server says it did: `ObjectCreated:Put <key>` for one PutObject, `ObjectCreated:Post <key>` for a completed multipart upload. */
  readonly events: string[] = [];
  constructor(readonly directory: string) {}

  async start(): Promise<void> {
    this.server = new S3rver({
      address: '127.0.0.1',
      port: this.port,
      silent: true,
      directory: this.directory,
      configureBuckets: [{ name: 'results', configs: [] }],
    });
    (this.server as unknown as EventEmitter).on('event', (event: S3EventRecords) => {
      for (const r of event.Records) this.events.push(`${r.eventName} ${r.s3.object.key}`);
    });
    const { port } = await this.server.run();
    this.port = port;
  }

  async stop(): Promise<void> {
    await this.server?.close();
    this.server = undefined;
  }
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('S3 storage configuration', () => {
  it('reads bucket and prefix from STORAGE_URL', () => {
    expect(parseStorageUrl('s3://results-bucket/portal/prod/')).toEqual({
      bucket: 'results-bucket',
      prefix: 'portal/prod',
    });
    expect(parseStorageUrl('s3://results-bucket')).toEqual({ bucket: 'results-bucket', prefix: '' });
    expect(() => parseStorageUrl('s3://results-bucket/a/../b')).toThrow();
    expect(() => parseStorageUrl('http://results-bucket/a')).toThrow();
  });

  it('builds object keys under the prefix and refuses keys that are not the server’s own', () => {
    expect(objectKey({ bucket: 'b', prefix: 'portal' }, 'results/abc/def')).toBe('portal/results/abc/def');
    expect(objectKey({ bucket: 'b', prefix: '' }, 'results/abc')).toBe('results/abc');
    for (const bad of ['../etc/passwd', '/abs', 'Results/X', 'a/../b', '']) {
      expect(() => objectKey({ bucket: 'b', prefix: 'p' }, bad), bad).toThrow();
    }
  });

  it('is chosen when STORAGE_URL is set, with every S3 variable read', async () => {
    const config = loadConfig({
      DATA_DIR: '/tmp/portal-s3-config',
      STORAGE_URL: 's3://bucket/prefix',
      S3_ENDPOINT: 'http://127.0.0.1:9000',
      S3_REGION: 'sa-east-1',
      S3_ACCESS_KEY_ID: 'id',
      S3_SECRET_ACCESS_KEY: 'secret',
    });
    const storage = await createStorage(config.storage);
    expect(storage).toBeInstanceOf(S3Storage);
    expect((storage as S3Storage).location).toEqual({ bucket: 'bucket', prefix: 'prefix' });
    (storage as S3Storage).close();
  });
});

describe('S3 storage against s3rver', () => {
  let dir: string;
  let store: ObjectStore;
  let storage: S3Storage;
  let raw: S3Client;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-s3rver-'));
    store = new ObjectStore(dir);
    await store.start();
    const endpoint = `http://127.0.0.1:${store.port}`;
    const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
    storage = new S3Storage(
      { url: 's3://results/portal', endpoint, region: 'us-east-1', ...credentials },
      { partSize: 64 * 1024 },
    );
    raw = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials });
  });
  afterAll(async () => {
    storage?.close();
    raw?.destroy();
    await store?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const pattern = (size: number, seed = 7) => {
    const data = Buffer.alloc(size);
    for (let i = 0; i < data.length; i++) data[i] = (i * seed) % 251;
    return data;
  };
  const head = async (key: string) => raw.send(new HeadObjectCommand({ Bucket: 'results', Key: `portal/${key}` }));

  it('stores a small file in one call, measures it, reads it whole and by range, and deletes it', async () => {
    const data = Buffer.from('%PDF-1.4 small file for the bucket');
    const stored = await storage.put('results/i1/small', Readable.from([data]), {
      contentType: 'application/pdf',
      maxBytes: 1024,
    });
    expect(stored).toEqual({
      size: data.length,
      sha256: createHash('sha256').update(data).digest('hex'),
      crc32: zlib.crc32(data) >>> 0,
    });
    expect(store.events).toContain('ObjectCreated:Put portal/results/i1/small');
    expect(await readAll(await storage.get('results/i1/small'))).toEqual(data);
    expect(await readAll(await storage.get('results/i1/small', { start: 5, end: 8 }))).toEqual(data.subarray(5, 9));
    expect(await storage.exists('results/i1/small')).toBe(true);
    await storage.delete('results/i1/small');
    expect(await storage.exists('results/i1/small')).toBe(false);
    await expect(storage.get('results/i1/small')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('streams a larger file in parts, completes it as one object and reads any range of it', async () => {
    const data = pattern(200 * 1024);
    async function* pieces() {
      for (let i = 0; i < data.length; i += 10_000) yield data.subarray(i, i + 10_000);
    }
    const stored = await storage.put('results/i1/large', Readable.from(pieces()), {
      contentType: 'application/pdf',
      maxBytes: 1024 * 1024,
    });
    expect(stored.size).toBe(data.length);
    expect(stored.sha256).toBe(createHash('sha256').update(data).digest('hex'));
    expect(store.events).toContain('ObjectCreated:Post portal/results/i1/large');
    expect(store.events).not.toContain('ObjectCreated:Put portal/results/i1/large');
    expect(await readAll(await storage.get('results/i1/large'))).toEqual(data);
    expect((await head('results/i1/large')).ContentLength).toBe(data.length);
    for (const [start, end] of [
      // (s3rver answers `bytes=0-0` with the whole object, unlike S3: not asked here.)
      [0, 9],
      [65_535, 65_537],
      [100_000, 150_000],
      [data.length - 10, data.length - 1],
    ] as const) {
      expect(await readAll(await storage.get('results/i1/large', { start, end })), `${start}-${end}`).toEqual(
        data.subarray(start, end + 1),
      );
    }
  });

  it('answers a missing key like a missing file: ENOENT on get, false on exists, a quiet delete', async () => {
    await expect(storage.get('results/none/missing')).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(storage.get('results/none/missing', { start: 0, end: 9 })).rejects.toMatchObject({
      code: 'ENOENT',
    });
    await expect(storage.read('results/none/missing')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await storage.exists('results/none/missing')).toBe(false);
    await expect(storage.delete('results/none/missing')).resolves.toBeUndefined();
  });

  it('refuses a file over the limit with 413 and leaves nothing readable', async () => {
    async function* endless() {
      for (;;) yield Buffer.alloc(16 * 1024, 1);
    }
    await expect(
      storage.put('results/i1/huge', Readable.from(endless()), {
        contentType: 'application/pdf',
        maxBytes: 300 * 1024,
      }),
    ).rejects.toMatchObject({ statusCode: 413 });
    expect(await storage.exists('results/i1/huge')).toBe(false);
  });

  /**
   * Starts uploading `data` in 64 KiB parts; the file stops after 160 KiB (two parts sent) and
   * goes on when `resume()` is called.
   */
  async function uploadPausedMidway(key: string, data: Buffer) {
    let resume!: () => void;
    const resumed = new Promise<void>((resolve) => (resume = resolve));
    let paused!: () => void;
    const pausedAt = new Promise<void>((resolve) => (paused = resolve));
    const file = Readable.from(
      (async function* () {
        for (let i = 0; i < data.length; i += 16 * 1024) {
          if (i === 160 * 1024) {
            paused();
            await resumed;
          }
          yield data.subarray(i, i + 16 * 1024);
        }
      })(),
    );
    const upload = storage.put(key, file, { contentType: 'application/pdf', maxBytes: 1024 * 1024 });
    upload.catch(() => undefined);
    await pausedAt;
    return { upload, resume };
  }

  it('finishes an upload when the server restarts between two parts, the object whole and intact', async () => {
    const data = pattern(320 * 1024, 11);
    const { upload, resume } = await uploadPausedMidway('results/i2/restart', data);
    // Two parts are on the server; it stops and starts again on the same port and directory.
    await store.stop();
    await store.start();
    resume();
    const stored = await upload;
    expect(stored.sha256).toBe(createHash('sha256').update(data).digest('hex'));
    expect(store.events).toContain('ObjectCreated:Post portal/results/i2/restart');
    expect(await readAll(await storage.get('results/i2/restart'))).toEqual(data);
  });

  it('fails an upload whose server is gone, leaves no object, and the same upload succeeds once it is back', async () => {
    const data = pattern(320 * 1024, 13);
    const { upload, resume } = await uploadPausedMidway('results/i2/down', data);
    await store.stop();
    resume();
    await expect(upload).rejects.toThrow();
    await store.start();
    expect(await storage.exists('results/i2/down')).toBe(false);
    const again = await storage.put('results/i2/down', Readable.from([data]), {
      contentType: 'application/pdf',
      maxBytes: 1024 * 1024,
    });
    expect(again.size).toBe(data.length);
    expect(await readAll(await storage.get('results/i2/down'))).toEqual(data);
    // What was stored before the restarts is still there.
    expect(await readAll(await storage.get('results/i1/large', { start: 0, end: 3 }))).toEqual(pattern(4));
  });
});
