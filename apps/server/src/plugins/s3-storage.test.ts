import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { createStorage } from './storage-factory.js';
import { objectKey, parseStorageUrl, S3Storage } from './s3-storage.js';

/*
 * No S3 service is reachable here. Besides the pure parts (URL parsing, key building), the
 * storage is exercised over real HTTP against the small S3-compatible endpoint below, which keeps
 * objects in memory and speaks the calls the storage uses (put, multipart, ranged get, head,
 * delete). It checks no signatures: compatibility with a real service is not proven by this file.
 */
function fakeS3() {
  const objects = new Map<string, Buffer>();
  const uploads = new Map<string, { key: string; parts: Map<number, Buffer> }>();
  const calls: string[] = [];
  let nextUpload = 1;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://s3.local');
      const key = decodeURIComponent(url.pathname).replace(/^\/+/, '');
      const body = Buffer.concat(chunks);
      const q = url.searchParams;
      const xml = (status: number, text: string) =>
        res.writeHead(status, { 'content-type': 'application/xml' }).end(`<?xml version="1.0"?>${text}`);
      const noSuchKey = () => xml(404, '<Error><Code>NoSuchKey</Code><Message>missing</Message></Error>');
      if (req.method === 'POST' && q.has('uploads')) {
        calls.push('create-multipart');
        const id = `u${nextUpload++}`;
        uploads.set(id, { key, parts: new Map() });
        return xml(
          200,
          `<InitiateMultipartUploadResult><Bucket>b</Bucket><Key>${key}</Key><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`,
        );
      }
      if (req.method === 'PUT' && q.has('uploadId')) {
        calls.push('upload-part');
        uploads.get(q.get('uploadId')!)!.parts.set(Number(q.get('partNumber')), body);
        return res.writeHead(200, { etag: `"p${q.get('partNumber')}"` }).end();
      }
      if (req.method === 'POST' && q.has('uploadId')) {
        calls.push('complete-multipart');
        const upload = uploads.get(q.get('uploadId')!)!;
        const order = [...upload.parts.keys()].sort((a, b) => a - b);
        objects.set(upload.key, Buffer.concat(order.map((n) => upload.parts.get(n)!)));
        uploads.delete(q.get('uploadId')!);
        return xml(
          200,
          `<CompleteMultipartUploadResult><Bucket>b</Bucket><Key>${key}</Key><ETag>"done"</ETag></CompleteMultipartUploadResult>`,
        );
      }
      if (req.method === 'DELETE' && q.has('uploadId')) {
        calls.push('abort-multipart');
        uploads.delete(q.get('uploadId')!);
        return res.writeHead(204).end();
      }
      if (req.method === 'PUT') {
        calls.push('put');
        objects.set(key, body);
        return res.writeHead(200, { etag: '"x"' }).end();
      }
      if (req.method === 'HEAD') {
        const object = objects.get(key);
        return res.writeHead(object ? 200 : 404, object ? { 'content-length': object.length } : {}).end();
      }
      if (req.method === 'GET') {
        const object = objects.get(key);
        if (!object) return noSuchKey();
        const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
        if (range) {
          const start = Number(range[1]);
          const end = Math.min(Number(range[2]), object.length - 1);
          return res
            .writeHead(206, {
              'content-range': `bytes ${start}-${end}/${object.length}`,
              'content-length': end - start + 1,
            })
            .end(object.subarray(start, end + 1));
        }
        return res.writeHead(200, { 'content-length': object.length }).end(object);
      }
      if (req.method === 'DELETE') {
        objects.delete(key);
        return res.writeHead(204).end();
      }
      res.writeHead(400).end();
    });
  });
  return { server, objects, uploads, calls };
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

  it('is chosen when STORAGE_URL is set, with every S3 variable read', () => {
    const config = loadConfig({
      DATA_DIR: '/tmp/portal-s3-config',
      STORAGE_URL: 's3://bucket/prefix',
      S3_ENDPOINT: 'http://127.0.0.1:9000',
      S3_REGION: 'sa-east-1',
      S3_ACCESS_KEY_ID: 'id',
      S3_SECRET_ACCESS_KEY: 'secret',
    });
    const storage = createStorage(config.storage);
    expect(storage).toBeInstanceOf(S3Storage);
    expect((storage as S3Storage).location).toEqual({ bucket: 'bucket', prefix: 'prefix' });
    (storage as S3Storage).close();
  });
});

describe('S3 storage over HTTP', () => {
  const fake = fakeS3();
  let storage: S3Storage;
  beforeAll(async () => {
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    const { port } = fake.server.address() as AddressInfo;
    storage = new S3Storage(
      {
        url: 's3://results/portal',
        endpoint: `http://127.0.0.1:${port}`,
        region: 'us-east-1',
        accessKeyId: 'test',
        secretAccessKey: 'test-secret',
      },
      { partSize: 64 * 1024 },
    );
  });
  afterAll(async () => {
    storage?.close();
    await new Promise((resolve) => fake.server.close(resolve));
  });

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
    expect(fake.calls).toEqual(['put']);
    expect(fake.objects.get('results/portal/results/i1/small')).toEqual(data);
    expect(await readAll(await storage.get('results/i1/small'))).toEqual(data);
    expect(await readAll(await storage.get('results/i1/small', { start: 5, end: 8 }))).toEqual(data.subarray(5, 9));
    expect(await storage.exists('results/i1/small')).toBe(true);
    await storage.delete('results/i1/small');
    expect(await storage.exists('results/i1/small')).toBe(false);
    await expect(storage.get('results/i1/small')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('streams a larger file in parts and completes it as one object', async () => {
    fake.calls.length = 0;
    const data = Buffer.alloc(200 * 1024);
    for (let i = 0; i < data.length; i++) data[i] = (i * 7) % 251;
    async function* pieces() {
      for (let i = 0; i < data.length; i += 10_000) yield data.subarray(i, i + 10_000);
    }
    const stored = await storage.put('results/i1/large', Readable.from(pieces()), {
      contentType: 'application/pdf',
      maxBytes: 1024 * 1024,
    });
    expect(stored.size).toBe(data.length);
    expect(fake.calls).toEqual([
      'create-multipart',
      'upload-part',
      'upload-part',
      'upload-part',
      'upload-part',
      'complete-multipart',
    ]);
    expect(await readAll(await storage.get('results/i1/large'))).toEqual(data);
  });

  it('refuses a file over the limit with 413 and leaves neither object nor pending upload', async () => {
    fake.calls.length = 0;
    async function* endless() {
      for (;;) yield Buffer.alloc(16 * 1024, 1);
    }
    await expect(
      storage.put('results/i1/huge', Readable.from(endless()), {
        contentType: 'application/pdf',
        maxBytes: 300 * 1024,
      }),
    ).rejects.toMatchObject({ statusCode: 413 });
    expect(fake.calls).toContain('abort-multipart');
    expect(fake.uploads.size).toBe(0);
    expect(await storage.exists('results/i1/huge')).toBe(false);
  });
});
