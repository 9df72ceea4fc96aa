import type { Readable } from 'node:stream';
import type { ByteSink } from './pdf-merge.js';

/** One stored file whose CRC-32 and size were measured when it arrived, so no byte is read twice. */
export interface ZipEntry {
  name: string;
  size: number;
  crc32: number;
  /** The file's bytes: whole when already read, or a stream. */
  open(): Promise<Readable | Uint8Array>;
}

const MAX32 = 0xffffffff;
const MAX16 = 0xffff;

function dosDateTime(date: Date): { time: number; date: number } {
  const year = Math.max(1980, date.getUTCFullYear());
  return {
    time: (date.getUTCHours() << 11) | (date.getUTCMinutes() << 5) | Math.floor(date.getUTCSeconds() / 2),
    date: ((year - 1980) << 9) | ((date.getUTCMonth() + 1) << 5) | date.getUTCDate(),
  };
}

/** The exact byte length `writeZip` will produce, known before a byte is read (Content-Length). */
export function zipLength(entries: ReadonlyArray<Pick<ZipEntry, 'name' | 'size'>>): number {
  let offset = 0;
  let central = 0;
  for (const entry of entries) {
    const name = Buffer.byteLength(entry.name, 'utf8');
    const zip64 = entry.size >= MAX32 || offset >= MAX32;
    offset += 30 + name + (zip64 ? 20 : 0) + entry.size;
    central += 46 + name + (zip64 ? 28 : 0);
  }
  const needs64 = entries.length >= MAX16 || offset >= MAX32 || central >= MAX32;
  return offset + central + (needs64 ? 76 : 0) + 22;
}

/**
 * Writes a zip of stored (uncompressed) entries straight from their streams: reports are already
 * compressed PDFs, so deflating again costs time for nothing. ZIP64 records are added only when
 * a size, an offset or the entry count needs them.
 */
export async function writeZip(entries: readonly ZipEntry[], sink: ByteSink, modified: Date): Promise<void> {
  const { time, date } = dosDateTime(modified);
  let offset = 0;
  const write = async (chunk: Uint8Array) => {
    offset += chunk.length;
    await sink(chunk);
  };
  const central: Buffer[] = [];
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const headerOffset = offset;
    const zip64 = entry.size >= MAX32 || headerOffset >= MAX32;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(zip64 ? 45 : 20, 4);
    local.writeUInt16LE(0x0800, 6); // names are UTF-8
    local.writeUInt16LE(0, 8); // stored
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    local.writeUInt32LE(entry.crc32 >>> 0, 14);
    local.writeUInt32LE(zip64 ? MAX32 : entry.size, 18);
    local.writeUInt32LE(zip64 ? MAX32 : entry.size, 22);
    local.writeUInt16LE(name.length, 26);
    const localExtra = zip64 ? Buffer.alloc(20) : Buffer.alloc(0);
    if (zip64) {
      localExtra.writeUInt16LE(0x0001, 0);
      localExtra.writeUInt16LE(16, 2);
      localExtra.writeBigUInt64LE(BigInt(entry.size), 4);
      localExtra.writeBigUInt64LE(BigInt(entry.size), 12);
    }
    local.writeUInt16LE(localExtra.length, 28);
    await write(local);
    await write(name);
    if (localExtra.length) await write(localExtra);
    let written = 0;
    const body = await entry.open();
    if (body instanceof Uint8Array) {
      written = body.length;
      await write(body);
    } else {
      for await (const chunk of body) {
        written += (chunk as Buffer).length;
        await write(chunk as Buffer);
      }
    }
    if (written !== entry.size) throw new Error(`stored size of ${entry.name} changed (${written} != ${entry.size})`);

    const cdExtra = zip64 ? Buffer.alloc(28) : Buffer.alloc(0);
    if (zip64) {
      cdExtra.writeUInt16LE(0x0001, 0);
      cdExtra.writeUInt16LE(24, 2);
      cdExtra.writeBigUInt64LE(BigInt(entry.size), 4);
      cdExtra.writeBigUInt64LE(BigInt(entry.size), 12);
      cdExtra.writeBigUInt64LE(BigInt(headerOffset), 20);
    }
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0);
    cd.writeUInt16LE((3 << 8) | 45, 4);
    cd.writeUInt16LE(zip64 ? 45 : 20, 6);
    cd.writeUInt16LE(0x0800, 8);
    cd.writeUInt16LE(0, 10);
    cd.writeUInt16LE(time, 12);
    cd.writeUInt16LE(date, 14);
    cd.writeUInt32LE(entry.crc32 >>> 0, 16);
    cd.writeUInt32LE(zip64 ? MAX32 : entry.size, 20);
    cd.writeUInt32LE(zip64 ? MAX32 : entry.size, 24);
    cd.writeUInt16LE(name.length, 28);
    cd.writeUInt16LE(cdExtra.length, 30);
    cd.writeUInt16LE(0, 32);
    cd.writeUInt16LE(0, 34);
    cd.writeUInt16LE(0, 36);
    cd.writeUInt32LE((0o100644 << 16) >>> 0, 38);
    cd.writeUInt32LE(zip64 ? MAX32 : headerOffset, 42);
    central.push(cd, name, cdExtra);
  }
  const cdOffset = offset;
  for (const part of central) await write(part);
  const cdSize = offset - cdOffset;
  const needs64 = entries.length >= MAX16 || cdOffset >= MAX32 || cdSize >= MAX32;
  if (needs64) {
    const eocd64At = offset;
    const rec = Buffer.alloc(56);
    rec.writeUInt32LE(0x06064b50, 0);
    rec.writeBigUInt64LE(44n, 4);
    rec.writeUInt16LE((3 << 8) | 45, 12);
    rec.writeUInt16LE(45, 14);
    rec.writeUInt32LE(0, 16);
    rec.writeUInt32LE(0, 20);
    rec.writeBigUInt64LE(BigInt(entries.length), 24);
    rec.writeBigUInt64LE(BigInt(entries.length), 32);
    rec.writeBigUInt64LE(BigInt(cdSize), 40);
    rec.writeBigUInt64LE(BigInt(cdOffset), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeUInt32LE(0, 4);
    locator.writeBigUInt64LE(BigInt(eocd64At), 8);
    locator.writeUInt32LE(1, 16);
    await write(rec);
    await write(locator);
  }
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(0, 4);
  eocd.writeUInt16LE(0, 6);
  eocd.writeUInt16LE(Math.min(entries.length, MAX16), 8);
  eocd.writeUInt16LE(Math.min(entries.length, MAX16), 10);
  eocd.writeUInt32LE(Math.min(cdSize, MAX32), 12);
  eocd.writeUInt32LE(Math.min(cdOffset, MAX32), 16);
  eocd.writeUInt16LE(0, 20);
  await write(eocd);
}
