import fs from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import type { AppContext } from '../../context.js';
import { receiveHl7, refuseOversize } from './hl7.service.js';

/** MLLP framing: <VT> message <FS><CR>. */
export const VT = 0x0b;
export const FS = 0x1c;
export const CR = 0x0d;

export function frame(payload: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([VT]), payload, Buffer.from([FS, CR])]);
}

/**
 * Splits a byte stream into MLLP frames. Bytes outside a frame are dropped; a frame longer than
 * `maxBytes` is reported once (`onOversize`) and skipped to its end.
 */
export class MllpDecoder {
  private chunks: Buffer[] = [];
  private size = 0;
  private inFrame = false;
  private oversize = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onFrame: (payload: Buffer) => void,
    private readonly onOversize: () => void,
  ) {}

  push(data: Buffer): void {
    let start = 0;
    for (let i = 0; i < data.length; i++) {
      const byte = data[i]!;
      if (!this.inFrame) {
        if (byte === VT) {
          this.inFrame = true;
          this.oversize = false;
          this.chunks = [];
          this.size = 0;
          start = i + 1;
        }
        continue;
      }
      if (byte === FS && (i + 1 >= data.length || data[i + 1] === CR)) {
        this.append(data.subarray(start, i));
        this.inFrame = false;
        const payload = Buffer.concat(this.chunks);
        this.chunks = [];
        if (this.oversize) this.onOversize();
        else this.onFrame(payload);
        if (i + 1 < data.length) i++; // the CR
        start = i + 1;
      }
    }
    if (this.inFrame) this.append(data.subarray(start));
  }

  private append(piece: Buffer): void {
    if (this.oversize || piece.length === 0) return;
    this.size += piece.length;
    if (this.size > this.maxBytes) {
      this.oversize = true;
      this.chunks = [];
    } else {
      this.chunks.push(piece);
    }
  }
}

export interface MllpServer {
  /** The port listened on (the one asked, or the one given for port 0). */
  port: number;
  tls: boolean;
  /** Stops accepting, lets the messages being stored finish and answer, then closes the connections. */
  close(): Promise<void>;
}

/** A connection idle this long is closed (interface engines reconnect by themselves). */
const IDLE_MS = 10 * 60_000;
const MAX_CONNECTIONS = 200;

/** The names a verified client certificate carries: subject CN and DNS alternative names. */
function certificateNames(socket: tls.TLSSocket): string[] {
  const cert = socket.getPeerCertificate();
  if (!cert || Object.keys(cert).length === 0) return [];
  const names = new Set<string>();
  const cn = cert.subject?.CN;
  if (typeof cn === 'string') names.add(cn);
  for (const part of (cert.subjectaltname ?? '').split(',')) {
    const m = /^\s*DNS:(.+)$/.exec(part);
    if (m) names.add(m[1]!.trim());
  }
  return [...names];
}

/**
 * Contract 9: the MLLP listener. Frames of one connection are handled one after the other, so
 * ACKs come back in the order the messages were sent; each ACK is written only after the message
 * was stored (or refused).
 */
export async function startMllpServer(
  ctx: AppContext,
  options: { host: string; port: number; tls?: { certFile: string; keyFile: string; caFile?: string } },
): Promise<MllpServer> {
  const maxBytes = Math.ceil(ctx.config.ingestMaxBytes * 1.4) + 64 * 1024;
  const sockets = new Set<net.Socket>();
  const inFlight = new Set<Promise<void>>();
  let closing = false;

  const onConnection = (socket: net.Socket) => {
    sockets.add(socket);
    socket.setTimeout(IDLE_MS, () => socket.destroy());
    socket.setNoDelay(true);
    const isTls = socket instanceof tls.TLSSocket;
    const names = isTls ? certificateNames(socket) : undefined;
    let queue = Promise.resolve();
    const remoteAddress = socket.remoteAddress ?? null;
    const handle = (payload: Buffer | null) => {
      const work = queue.then(async () => {
        if (socket.destroyed) return;
        let answer: Buffer;
        if (payload === null) {
          answer = await refuseOversize(ctx, { transport: isTls ? 'MLLP_TLS' : 'MLLP', remoteAddress }, maxBytes);
        } else {
          answer = await receiveHl7(ctx, payload, {
            transport: isTls ? 'MLLP_TLS' : 'MLLP',
            remoteAddress,
            certificateNames: names,
          });
        }
        if (!socket.destroyed) socket.write(frame(answer));
      });
      queue = work.catch((error: unknown) => {
        ctx.log.error({ err: error }, 'MLLP message failed');
        socket.destroy();
      });
      const tracked = queue.then(() => undefined);
      inFlight.add(tracked);
      void tracked.finally(() => inFlight.delete(tracked));
    };
    const decoder = new MllpDecoder(
      maxBytes,
      (payload) => handle(payload),
      () => handle(null),
    );
    socket.on('data', (data: Buffer) => {
      if (!closing) decoder.push(data);
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => sockets.delete(socket));
  };

  let server: net.Server;
  if (options.tls) {
    server = tls.createServer(
      {
        cert: fs.readFileSync(options.tls.certFile),
        key: fs.readFileSync(options.tls.keyFile),
        ...(options.tls.caFile
          ? { ca: fs.readFileSync(options.tls.caFile), requestCert: true, rejectUnauthorized: true }
          : {}),
        minVersion: 'TLSv1.2',
      },
      onConnection,
    );
  } else {
    server = net.createServer(onConnection);
  }
  server.maxConnections = MAX_CONNECTIONS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as net.AddressInfo;
  ctx.log.info({ port: address.port, tls: !!options.tls }, 'HL7 MLLP listener started');
  return {
    port: address.port,
    tls: !!options.tls,
    close: async () => {
      closing = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
      for (const socket of sockets) socket.end();
      for (const socket of sockets) socket.destroy();
      await stopped;
    },
  };
}
