import type { Config } from '../config.js';
import { DiskStorage } from './disk-storage.js';
import { S3Storage } from './s3-storage.js';
import type { Storage } from './storage.js';

/** Disk under DATA_DIR/files by default; an S3-compatible bucket when STORAGE_URL is set. */
export function createStorage(config: Config['storage']): Storage {
  if (config.kind === 'disk') return new DiskStorage(config.dir);
  return new S3Storage(config);
}
