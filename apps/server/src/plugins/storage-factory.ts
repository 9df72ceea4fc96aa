import type { Config } from '../config.js';
import { DiskStorage } from './disk-storage.js';
import type { Storage } from './storage.js';

/**
 * Disk under DATA_DIR/files by default; an S3-compatible bucket when STORAGE_URL is set (the S3
 * client is loaded only then).
 */
export async function createStorage(config: Config['storage']): Promise<Storage> {
  if (config.kind === 'disk') return new DiskStorage(config.dir);
  const { S3Storage } = await import('./s3-storage.js');
  return new S3Storage(config);
}
