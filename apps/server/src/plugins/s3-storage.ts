import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  type CompletedPart,
} from '@aws-sdk/client-s3';
import { measuringStream } from './disk-storage.js';
import type { ByteRange, Storage, StoredObject } from './storage.js';

export interface S3StorageConfig {
  /** `s3://bucket/optional/prefix` */
  url: string;
  endpoint?: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

export interface S3Location {
  bucket: string;
  /** No leading or trailing slash; empty for the bucket's root. */
  prefix: string;
}

/** Keys are made by the server; anything else is a programming error, never a client's name. */
const KEY_PATTERN = /^[a-z0-9][a-z0-9/_-]*$/;

/** S3 refuses multipart parts under 5 MiB (except the last); 8 MiB keeps memory per upload small. */
export const DEFAULT_PART_SIZE = 8 * 1024 * 1024;

/** `s3://bucket/some/prefix/` -> `{ bucket: 'bucket', prefix: 'some/prefix' }` */
export function parseStorageUrl(url: string): S3Location {
  // Parsed by hand: URL() would resolve "a/../b" silently instead of refusing it.
  const m = /^s3:\/\/([^/?#]+)(\/[^?#]*)?$/.exec(url);
  if (!m) throw new Error(`STORAGE_URL must look like s3://bucket/prefix: ${url}`);
  const bucket = m[1]!;
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw new Error(`STORAGE_URL names no valid bucket: ${url}`);
  const prefix = decodeURIComponent(m[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix.split('/').some((part) => part === '.' || part === '..')) {
    throw new Error(`STORAGE_URL prefix must not contain . or .. segments: ${url}`);
  }
  return { bucket, prefix };
}

/** The object key of a storage key under the configured prefix. */
export function objectKey(location: S3Location, key: string): string {
  if (!KEY_PATTERN.test(key) || key.includes('..')) throw new Error(`invalid storage key ${key}`);
  return location.prefix ? `${location.prefix}/${key}` : key;
}

function isNotFound(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } } | null;
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}

/** Like a missing file on disk, so callers handle both backends alike. */
function missing(key: string): Error {
  return Object.assign(new Error(`no stored object ${key}`), { code: 'ENOENT' });
}

/**
 * Files in an S3-compatible bucket. Uploads stream through in parts of `partSize` bytes (one
 * PutObject when the file is smaller): memory stays bounded, and the object appears only when the
 * upload completes, so readers see the whole file or nothing.
 */
export class S3Storage implements Storage {
  readonly location: S3Location;
  private readonly client: S3Client;
  private readonly partSize: number;

  constructor(config: S3StorageConfig, options: { partSize?: number } = {}) {
    this.location = parseStorageUrl(config.url);
    this.partSize = options.partSize ?? DEFAULT_PART_SIZE;
    this.client = new S3Client({
      region: config.region,
      endpoint: config.endpoint,
      // MinIO, Ceph and most S3-compatible servers address buckets by path, not by host name.
      forcePathStyle: Boolean(config.endpoint),
      credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
      // Integrity is checked by our own sha256 and crc32; optional checksum headers break some servers.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async put(key: string, body: Readable, options: { contentType: string; maxBytes: number }): Promise<StoredObject> {
    const Key = objectKey(this.location, key);
    const Bucket = this.location.bucket;
    const measure = measuringStream(options.maxBytes);
    body.on('error', (error) => measure.stream.destroy(error));
    body.pipe(measure.stream);

    let uploadId: string | undefined;
    const parts: CompletedPart[] = [];
    const uploadPart = async (data: Buffer) => {
      if (!uploadId) {
        const created = await this.client.send(
          new CreateMultipartUploadCommand({ Bucket, Key, ContentType: options.contentType }),
        );
        uploadId = created.UploadId;
        if (!uploadId) throw new Error('the object store gave no upload id');
      }
      const PartNumber = parts.length + 1;
      const answer = await this.client.send(
        new UploadPartCommand({ Bucket, Key, UploadId: uploadId, PartNumber, Body: data, ContentLength: data.length }),
      );
      parts.push({ PartNumber, ETag: answer.ETag });
    };

    try {
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      for await (const chunk of measure.stream as AsyncIterable<Buffer>) {
        pending.push(chunk);
        pendingBytes += chunk.length;
        while (pendingBytes >= this.partSize) {
          const all = Buffer.concat(pending);
          await uploadPart(all.subarray(0, this.partSize));
          const rest = all.subarray(this.partSize);
          pending = rest.length > 0 ? [rest] : [];
          pendingBytes = rest.length;
        }
      }
      const last = Buffer.concat(pending);
      if (!uploadId) {
        await this.client.send(
          new PutObjectCommand({
            Bucket,
            Key,
            Body: last,
            ContentLength: last.length,
            ContentType: options.contentType,
          }),
        );
      } else {
        if (last.length > 0) await uploadPart(last);
        await this.client.send(
          new CompleteMultipartUploadCommand({ Bucket, Key, UploadId: uploadId, MultipartUpload: { Parts: parts } }),
        );
      }
    } catch (error) {
      body.unpipe(measure.stream);
      measure.stream.destroy();
      if (uploadId) {
        // An abandoned multipart upload is invisible but billed: abort it.
        await this.client
          .send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId: uploadId }))
          .catch(() => undefined);
      }
      throw error;
    }
    return measure.result();
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    try {
      const answer = await this.client.send(
        new GetObjectCommand({
          Bucket: this.location.bucket,
          Key: objectKey(this.location, key),
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      if (!answer.Body) throw missing(key);
      return answer.Body instanceof Readable
        ? answer.Body
        : Readable.fromWeb(answer.Body.transformToWebStream() as never);
    } catch (error) {
      if (isNotFound(error)) throw missing(key);
      throw error;
    }
  }

  async read(key: string, size?: number): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of await this.get(key)) chunks.push(chunk as Buffer);
    const whole = Buffer.concat(chunks);
    if (size !== undefined && whole.length !== size) {
      throw new Error(`stored object ${key} is ${whole.length} bytes, not ${size}`);
    }
    return whole;
  }

  async delete(key: string): Promise<void> {
    await this.client.send(
      new DeleteObjectCommand({ Bucket: this.location.bucket, Key: objectKey(this.location, key) }),
    );
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(
        new HeadObjectCommand({ Bucket: this.location.bucket, Key: objectKey(this.location, key) }),
      );
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  /** Releases the client's sockets. */
  close(): void {
    this.client.destroy();
  }
}
