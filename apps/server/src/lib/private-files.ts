import fs from 'node:fs';

/** Folders the portal writes under DATA_DIR: its owner alone may list or enter them. */
export const PRIVATE_DIR_MODE = 0o700;
/** Files the portal writes under DATA_DIR: its owner alone may read or write them. */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Makes `dir` (and the folders above it that it creates) private, and a folder that already exists
 * private too: a folder made by an earlier version with the default 0755 closes its contents.
 */
export function privateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  fs.chmodSync(dir, PRIVATE_DIR_MODE);
}

/** Creates `file` empty and private when missing; makes it private when it exists. */
export function privateFile(file: string): void {
  fs.closeSync(fs.openSync(file, 'a', PRIVATE_FILE_MODE));
  fs.chmodSync(file, PRIVATE_FILE_MODE);
}

/** Makes `file` private when it exists (SQLite's `-wal` and `-shm` files). */
export function privateIfPresent(file: string): void {
  try {
    fs.chmodSync(file, PRIVATE_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
