import type { Readable } from 'node:stream';
import { AppError } from '../../lib/errors.js';
import { ServerMessage } from '@portal/shared/errors';
import { pdfLib } from '../../lib/pdf-lib.js';

/** The leading bytes each declared type must start with (a mislabelled file is refused). */
const SIGNATURES: Record<string, { bytes: Buffer; label: string }> = {
  'application/pdf': { bytes: Buffer.from('%PDF-', 'latin1'), label: '%PDF-' },
  'image/jpeg': { bytes: Buffer.from([0xff, 0xd8, 0xff]), label: 'FF D8 FF' },
  'image/png': { bytes: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), label: 'the PNG signature' },
};

const contentMismatch = (contentType: string, label: string) =>
  new AppError(400, ServerMessage.validation, [
    { field: 'body', message: `a file declared as ${contentType} must start with ${label}` },
  ]);

/** `application/PDF; foo=bar` -> `application/pdf` */
export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

// Page objects of a classic PDF; `/Pages` (the tree nodes) must not count.
const PAGE_OBJECT = /\/Type\s*\/Page(?![A-Za-z])/g;
const SCAN_TAIL = 64;

export interface ContentInspection {
  /** Page objects seen in the raw bytes (0 when they hide in compressed object streams). */
  pageObjects(): number;
}

/**
 * Passes the upload through unchanged while checking its leading bytes against the declared type
 * and counting PDF page objects. Throws 400 (ending the upload) on a mismatch or an empty body.
 */
export function inspectContent(
  source: Readable,
  contentType: string,
): { stream: AsyncIterable<Buffer> } & ContentInspection {
  const signature = SIGNATURES[contentType];
  const isPdf = contentType === 'application/pdf';
  let pages = 0;
  async function* run(): AsyncGenerator<Buffer> {
    let head = Buffer.alloc(0);
    let checked = !signature;
    let total = 0;
    let tail = '';
    // Absolute offset in the file up to which page matches have been counted (by match end).
    let counted = 0;
    for await (const raw of source) {
      const chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw as Uint8Array);
      if (!checked && signature) {
        head = Buffer.concat([head, chunk.subarray(0, signature.bytes.length)]).subarray(0, signature.bytes.length);
        if (head.length >= signature.bytes.length) {
          if (!head.equals(signature.bytes)) throw contentMismatch(contentType, signature.label);
          checked = true;
        } else if (!signature.bytes.subarray(0, head.length).equals(head)) {
          throw contentMismatch(contentType, signature.label);
        }
      }
      if (isPdf) {
        const text = tail + chunk.toString('latin1');
        const start = total - tail.length;
        const end = total + chunk.length;
        for (const m of text.matchAll(PAGE_OBJECT)) {
          const matchEnd = start + m.index + m[0].length;
          // A match touching the end is decided with the next chunk (it may be "/Pages").
          if (matchEnd > counted && matchEnd < end) pages++;
        }
        counted = end - 1;
        tail = text.slice(-SCAN_TAIL);
      }
      total += chunk.length;
      yield chunk;
    }
    if (total === 0) {
      throw new AppError(400, ServerMessage.validation, [{ field: 'body', message: 'the file is empty' }]);
    }
    if (!checked && signature) throw contentMismatch(contentType, signature.label);
    if (isPdf) {
      const start = total - tail.length;
      for (const m of tail.matchAll(PAGE_OBJECT)) {
        if (start + m.index + m[0].length > counted) pages++;
      }
    }
  }
  return { stream: run(), pageObjects: () => pages };
}

/** Beyond this size a PDF whose pages hide in object streams is not parsed just to count them. */
export const PAGE_COUNT_PARSE_MAX_BYTES = 32 * 1024 * 1024;

/** Counts pages by parsing the document (for PDFs written with compressed object streams). */
export async function countPdfPages(source: Readable): Promise<number | null> {
  const chunks: Buffer[] = [];
  for await (const chunk of source) chunks.push(chunk as Buffer);
  try {
    const { PDFDocument } = await pdfLib();
    const doc = await PDFDocument.load(Buffer.concat(chunks), {
      ignoreEncryption: true,
      updateMetadata: false,
      throwOnInvalidObject: false,
    });
    return doc.getPageCount();
  } catch {
    return null;
  }
}
