import type { Config } from '../config.js';
import { DiskStorage } from './disk-storage.js';
import type { Storage } from './storage.js';

export function createStorage(config: Config['storage']): Storage {
  if (config.kind === 'disk') return new DiskStorage(config.dir);
  // S3-compatible storage is added by the storage module.
  throw new Error('STORAGE_URL (S3) is not supported yet');
}
