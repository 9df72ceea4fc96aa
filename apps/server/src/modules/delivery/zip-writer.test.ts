import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { writeZip, type ZipEntry, zipLength } from './zip-writer.js';

const entryOf = (name: string, bytes: Buffer): ZipEntry => ({
  name,
  size: bytes.length,
  crc32: zlib.crc32(bytes) >>> 0,
  open: async () => Readable.from([bytes]),
});

async function zipToFile(entries: ZipEntry[], dir: string): Promise<string> {
  const chunks: Uint8Array[] = [];
  await writeZip(entries, async (c) => void chunks.push(c), new Date('2026-11-20T12:34:56Z'));
  const file = path.join(dir, 'x.zip');
  const bytes = Buffer.concat(chunks);
  expect(bytes.length).toBe(zipLength(entries));
  fs.writeFileSync(file, bytes);
  return file;
}

describe('zip writer', () => {
  it('writes stored entries that unzip checks and extracts byte for byte, with UTF-8 names', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zipw-'));
    try {
      const a = Buffer.from('%PDF-1.7 first');
      const b = Buffer.alloc(200_000, 7);
      const file = await zipToFile([entryOf('P1/Laudo ção.pdf', a), entryOf('P2/b.pdf', b)], dir);
      expect(execFileSync('unzip', ['-tq', file]).toString()).toContain('No errors detected');
      expect(execFileSync('unzip', ['-p', file, 'P2/b.pdf']).equals(b)).toBe(true);
      expect(execFileSync('unzip', ['-Z1', file]).toString()).toContain('P1/Laudo ção.pdf');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('adds the ZIP64 end records when the entry count needs them', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zipw-'));
    try {
      const empty = Buffer.alloc(0);
      const entries = Array.from({ length: 65_536 }, (_, i) => entryOf(`f/${i}`, empty));
      const file = await zipToFile(entries, dir);
      const listing = execFileSync('unzip', ['-Z1', file], { maxBuffer: 1 << 24 })
        .toString()
        .trim()
        .split('\n');
      expect(listing).toHaveLength(65_536);
      expect(fs.readFileSync(file).includes(Buffer.from([0x50, 0x4b, 0x06, 0x06]))).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a stored file whose size changed since it was measured', async () => {
    const bytes = Buffer.from('abc');
    const wrong = { ...entryOf('x', bytes), size: 4 };
    await expect(writeZip([wrong], async () => {}, new Date())).rejects.toThrow(/changed/);
  });
});
