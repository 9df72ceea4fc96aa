import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';

/** `multipart/related; type="application/dicom"; boundary=abc` -> its parameters, names in lower case. */
export function mediaTypeParameters(header: string | undefined): { type: string; params: Record<string, string> } {
  const [type = '', ...rest] = (header ?? '').split(';');
  const params: Record<string, string> = {};
  for (const part of rest) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim().toLowerCase();
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    params[name] = value;
  }
  return { type: type.trim().toLowerCase(), params };
}

export interface Part {
  headers: Record<string, string>;
  body: Buffer;
}

/** A part larger than the limit: the reader skips its bytes and reports it in its place. */
export interface OversizedPart {
  headers: Record<string, string>;
  oversized: true;
  size: number;
}

export class MultipartError extends Error {}

function parseHeaders(block: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/**
 * Reads a multipart body one part at a time, as its bytes arrive: memory holds one part (at most
 * `maxPartBytes`; a larger part is drained and reported as oversized, so the rest still counts).
 * The delimiter is searched in a window of the last bytes only, so a part costs linear time.
 */
export async function* readParts(
  body: Readable,
  boundary: string,
  maxPartBytes: number,
): AsyncGenerator<Part | OversizedPart> {
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  // The body may start with the first delimiter at once (no preamble): a leading CRLF makes it uniform.
  let pending: Buffer = Buffer.from('\r\n');
  let state: 'preamble' | 'headers' | 'body' | 'done' = 'preamble';
  let headers: Record<string, string> = {};
  let chunks: Buffer[] = [];
  let size = 0;
  let oversized = false;

  const keep = (bytes: Buffer) => {
    size += bytes.length;
    if (size > maxPartBytes) {
      oversized = true;
      chunks = [];
    } else if (!oversized && bytes.length > 0) chunks.push(bytes);
  };

  for await (const raw of body) {
    const chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw as Uint8Array);
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    for (;;) {
      if (state === 'done') break;
      if (state === 'headers') {
        const end = pending.indexOf('\r\n\r\n');
        if (end < 0) {
          if (pending.length > 16 * 1024) throw new MultipartError('part headers are too long');
          break;
        }
        headers = parseHeaders(pending.subarray(0, end).toString('latin1'));
        pending = pending.subarray(end + 4);
        state = 'body';
        chunks = [];
        size = 0;
        oversized = false;
        continue;
      }
      const at = pending.indexOf(delimiter);
      if (at < 0) {
        // Everything but a possible start of the delimiter belongs to the current part.
        const safe = Math.max(0, pending.length - delimiter.length - 1);
        if (state === 'body') keep(pending.subarray(0, safe));
        pending = pending.subarray(safe);
        break;
      }
      // The two bytes after a delimiter: CRLF (another part) or "--" (the end).
      if (pending.length < at + delimiter.length + 2) break;
      if (state === 'body') {
        keep(pending.subarray(0, at));
        yield oversized ? { headers, oversized: true, size } : { headers, body: Buffer.concat(chunks, size) };
        chunks = [];
      }
      const after = pending.subarray(at + delimiter.length, at + delimiter.length + 2).toString('latin1');
      pending = pending.subarray(at + delimiter.length + 2);
      if (after === '--') state = 'done';
      else if (after === '\r\n') state = 'headers';
      else {
        // Transport padding (spaces) before the CRLF is allowed by RFC 2046.
        const lineEnd = pending.indexOf('\r\n');
        if (!/^[ \t]*$/.test(after + (lineEnd >= 0 ? pending.subarray(0, lineEnd).toString('latin1') : ''))) {
          throw new MultipartError('malformed multipart delimiter');
        }
        if (lineEnd < 0) break;
        pending = pending.subarray(lineEnd + 2);
        state = 'headers';
      }
    }
    if (state === 'done') break;
  }
  if (state !== 'done') throw new MultipartError('the multipart body ended before its closing delimiter');
}

/** A multipart/related answer: the boundary and the bytes of each part with its content type. */
export function multipartBody(parts: ReadonlyArray<{ contentType: string; body: Buffer; location?: string }>): {
  boundary: string;
  body: Buffer;
} {
  const boundary = `dicom-${randomBytes(12).toString('hex')}`;
  const pieces: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Type: ${part.contentType}\r\n`;
    if (part.location) head += `Content-Location: ${part.location}\r\n`;
    pieces.push(
      Buffer.from(`${head}Content-Length: ${part.body.length}\r\n\r\n`, 'latin1'),
      part.body,
      Buffer.from('\r\n'),
    );
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`, 'latin1'));
  return { boundary, body: Buffer.concat(pieces) };
}
