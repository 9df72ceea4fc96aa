import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PRIVATE_DIR_MODE, privateDir } from '../lib/private-files.js';
import zlib from 'node:zlib';
import { AppError } from '../lib/errors.js';
import { ServerMessage } from '@portal/shared/errors';
import type { ByteRange, Storage, StoredObject } from './storage.js';

const KEY_PATTERN = /^[a-z0-9][a-z0-9/_-]*$/;

/** Counts, hashes and CRCs bytes as they pass, refusing more than maxBytes. */
export function measuringStream(maxBytes: number) {
  const hash = createHash('sha256');
  let crc = 0;
  let size = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > maxBytes) {
        done(new AppError(413, ServerMessage.payloadTooLarge, { maxBytes }));
        return;
      }
      hash.update(chunk);
      crc = zlib.crc32(chunk, crc);
      done(null, chunk);
    },
  });
  const result = (): StoredObject => ({ size, sha256: hash.digest('hex'), crc32: crc >>> 0 });
  return { stream, result };
}

/** Files on disk, written atomically: temp file, fsync, rename, fsync of the folder. */
export class DiskStorage implements Storage {
  constructor(private readonly root: string) {
    privateDir(root);
  }

  private pathOf(key: string): string {
    if (!KEY_PATTERN.test(key) || key.includes('..')) throw new Error(`invalid storage key ${key}`);
    return path.join(this.root, key);
  }

  localPath(key: string): string {
    return this.pathOf(key);
  }

  async put(key: string, body: Readable, options: { contentType: string; maxBytes: number }): Promise<StoredObject> {
    const target = this.pathOf(key);
    const dir = path.dirname(target);
    await fsp.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    const temp = `${target}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    const measure = measuringStream(options.maxBytes);
    // A write stream that owns its descriptor: on Node 20 a pipeline into a FileHandle stream
    // with autoClose off never settles. The fsync happens on a second descriptor afterwards.
    const out = fs.createWriteStream(temp, { flags: 'wx', mode: 0o600 });
    try {
      await pipeline(body, measure.stream, out);
      const handle = await fsp.open(temp, 'r+');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fsp.rename(temp, target);
      const dirHandle = await fsp.open(dir, 'r');
      try {
        await dirHandle.sync();
      } finally {
        await dirHandle.close();
      }
    } catch (error) {
      // A refused upload can reject the pipeline while the file is still being opened: removing
      // it before the stream has closed would leave the file behind once the open completes.
      if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
      await fsp.rm(temp, { force: true });
      throw error;
    }
    return measure.result();
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    const file = this.pathOf(key);
    await fsp.access(file);
    return fs.createReadStream(file, range ? { start: range.start, end: range.end } : undefined);
  }

  async read(key: string, size?: number): Promise<Buffer> {
    if (size === undefined) return fsp.readFile(this.pathOf(key));
    // Open, one read of the known size, close: three trips to the thread pool where a stream or
    // readFile take five or six (stat, reads until the end is seen).
    const handle = await fsp.open(this.pathOf(key), 'r');
    try {
      // One byte more than expected: a longer file is seen as well as a shorter one.
      const buffer = Buffer.allocUnsafe(size + 1);
      const { bytesRead } = await handle.read(buffer, 0, size + 1, 0);
      if (bytesRead !== size) throw new Error(`stored file ${key} is ${bytesRead} bytes, not ${size}`);
      return buffer.subarray(0, size);
    } finally {
      await handle.close();
    }
  }

  async delete(key: string): Promise<void> {
    await fsp.rm(this.pathOf(key), { force: true });
  }

  async exists(key: string): Promise<boolean> {
    try {
      await fsp.access(this.pathOf(key));
      return true;
    } catch {
      return false;
    }
  }
}
