import zlib from 'node:zlib';
import negotiate from '@fastify/accept-negotiator';

/** The encodings API answers are compressed with, the client's preference first among them. */
export const ANSWER_ENCODINGS = ['br', 'gzip', 'deflate'] as const;
export type AnswerEncoding = (typeof ANSWER_ENCODINGS)[number];

/** Answers under this many bytes go as they are: they would gain less than the headers add. */
export const COMPRESSION_THRESHOLD = 1024;

/** Brotli for JSON and text, at quality 4: what every compressed API answer uses (app.ts). */
export const BROTLI_OPTIONS: zlib.BrotliOptions = {
  params: {
    [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
    [zlib.constants.BROTLI_PARAM_QUALITY]: 4,
  },
};

const COMPRESS: Record<AnswerEncoding, (bytes: Buffer) => Buffer> = {
  br: (bytes) => zlib.brotliCompressSync(bytes, BROTLI_OPTIONS),
  gzip: (bytes) => zlib.gzipSync(bytes),
  deflate: (bytes) => zlib.deflateSync(bytes),
};

/**
 * A JSON answer as its text and, once a client asked for one, as the bytes of each encoding: an
 * answer sent many times (a kept list answer) is compressed once per encoding, not once per call.
 */
export class JsonAnswer {
  /** The answer's length in UTF-8 bytes. */
  readonly bytes: number;
  private readonly encoded = new Map<AnswerEncoding, Buffer>();

  constructor(readonly body: string) {
    this.bytes = Buffer.byteLength(body);
  }

  /** The answer compressed with `encoding`, compressed on the first call only. */
  encodedAs(encoding: AnswerEncoding): Buffer {
    let compressed = this.encoded.get(encoding);
    if (!compressed) {
      compressed = COMPRESS[encoding](Buffer.from(this.body));
      this.encoded.set(encoding, compressed);
    }
    return compressed;
  }
}

/**
 * The encoding to send an answer of COMPRESSION_THRESHOLD bytes or more in, as @fastify/compress
 * chooses it for every other answer: the client's preferred one of ANSWER_ENCODINGS (`*` and
 * `x-gzip` read as gzip), none for a client that accepts none of them or asks `x-no-compression`.
 */
export function answerEncoding(
  headers: Readonly<Record<string, string | string[] | undefined>>,
): AnswerEncoding | null {
  const accepted = headers['accept-encoding'];
  if (typeof accepted !== 'string' || headers['x-no-compression'] !== undefined) return null;
  const header = accepted.toLowerCase().replace(/\*|x-gzip/g, 'gzip');
  return negotiate(header, [...ANSWER_ENCODINGS]);
}
