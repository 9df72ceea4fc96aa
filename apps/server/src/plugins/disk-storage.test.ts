import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DiskStorage } from './disk-storage.js';

describe('disk storage', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-disk-'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const filesUnder = (dir: string): string[] =>
    fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }) : [];

  it('stores a file whole and reads it back by range', async () => {
    const storage = new DiskStorage(root);
    const stored = await storage.put('results/a/b', Readable.from([Buffer.from('0123456789')]), {
      contentType: 'application/pdf',
      maxBytes: 100,
    });
    expect(stored.size).toBe(10);
    expect((await storage.read('results/a/b')).toString()).toBe('0123456789');
    const chunks: Buffer[] = [];
    for await (const chunk of await storage.get('results/a/b', { start: 2, end: 4 })) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('234');
  });

  it('leaves no file behind when the upload is refused at its first bytes', async () => {
    const storage = new DiskStorage(root);
    // Many refusals in a row: a refusal that arrives while the temporary file is still being
    // opened must not leave that file once the open completes.
    for (let i = 0; i < 200; i++) {
      const refused = Readable.from(
        (async function* () {
          if (i % 2) yield Buffer.from('GIF89a');
          throw new Error('not a PDF');
        })(),
      );
      await expect(
        storage.put(`results/x/${i}`, refused, { contentType: 'application/pdf', maxBytes: 100 }),
      ).rejects.toThrow('not a PDF');
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(filesUnder(path.join(root, 'results/x'))).toEqual([]);
  });

  it('refuses a file over the limit and keeps nothing', async () => {
    const storage = new DiskStorage(root);
    await expect(
      storage.put('results/y/1', Readable.from([Buffer.alloc(64), Buffer.alloc(64)]), {
        contentType: 'application/pdf',
        maxBytes: 100,
      }),
    ).rejects.toMatchObject({ statusCode: 413 });
    expect(filesUnder(path.join(root, 'results/y'))).toEqual([]);
  });
});
