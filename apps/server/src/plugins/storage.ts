import type { Readable } from 'node:stream';
import type { AppContext } from '../context.js';

/** What storing a file produced; crc32 is kept so zips are written without re-reading files. */
export interface StoredObject {
  size: number;
  sha256: string;
  crc32: number;
}

export interface ByteRange {
  start: number;
  /** Inclusive. */
  end: number;
}

/** Result files behind one interface: disk by default, S3-compatible with STORAGE_URL. */
export interface Storage {
  /**
   * Writes a stream under a server-made key, atomically: readers see the whole file or nothing.
   * Throws (and leaves nothing) when the stream errors or exceeds `maxBytes`.
   */
  put(key: string, body: Readable, options: { contentType: string; maxBytes: number }): Promise<StoredObject>;
  get(key: string, range?: ByteRange): Promise<Readable>;
  /**
   * The whole file in memory, in one call: for files that are read whole anyway (merges, zips) and
   * small files sent whole. `size`, when the caller knows it (stored with the file), lets the disk
   * read it in one system call; a file of another size is refused.
   */
  read(key: string, size?: number): Promise<Buffer>;
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /** A local path for the file when the backend has one (lets tools read it directly). */
  localPath?(key: string): string;
}

/**
 * Deletes an object that no row points at any more (a replaced file, a refused upload). A failure
 * is logged, never thrown: a leftover object costs space, never correctness.
 */
export async function removeQuietly(ctx: Pick<AppContext, 'storage' | 'log'>, key: string): Promise<void> {
  try {
    await ctx.storage.delete(key);
  } catch (error) {
    ctx.log.warn({ err: error, key }, 'could not remove a stored object');
  }
}
