import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

export interface BackupResult {
  file: string;
  bytes: number;
  pages: number;
  /** How often SQLite restarted the copy because a write landed between two of its steps. */
  restarts: number;
}

/**
 * An online backup of the portal's SQLite file with SQLite's backup API, while the portal keeps
 * serving and writing: the copy is one consistent snapshot (WAL lets writers go on meanwhile).
 * It is written beside `target` under a temporary name, checked (`PRAGMA integrity_check`) and
 * only then renamed into place, so a backup that fails half-way never looks like a good one.
 */
export async function backupSqlite(source: string, target: string): Promise<BackupResult> {
  if (!fs.existsSync(source)) throw new Error(`There is no database at ${source}.`);
  const out = path.resolve(target);
  if (fs.existsSync(out)) throw new Error(`${out} exists already: name a new file.`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const partial = `${out}.partial-${process.pid}`;
  const db = new Database(source, { readonly: true, fileMustExist: true });
  let restarts = 0;
  let lastRemaining = Number.POSITIVE_INFINITY;
  try {
    db.pragma('busy_timeout = 10000');
    const { totalPages } = await db.backup(partial, {
      // Each step copies what is left in one go: a write that lands between two steps restarts the
      // copy, and one step holds one read snapshot, so the copy ends under any write load.
      progress: ({ totalPages: total, remainingPages }) => {
        if (remainingPages > lastRemaining) restarts += 1;
        lastRemaining = remainingPages;
        return Math.max(total, 100);
      },
    });
    const check = new Database(partial, { readonly: true });
    try {
      const result = check.pragma('integrity_check', { simple: true });
      if (result !== 'ok') throw new Error(`The backup failed its integrity check: ${String(result)}`);
    } finally {
      check.close();
    }
    fs.chmodSync(partial, 0o600);
    fs.renameSync(partial, out);
    return { file: out, bytes: fs.statSync(out).size, pages: totalPages, restarts };
  } catch (error) {
    fs.rmSync(partial, { force: true });
    throw error;
  } finally {
    db.close();
  }
}
