import http from 'node:http';
import net from 'node:net';

/** One answer of a real HTTP call, with the moment it arrived (to tell what overlapped). */
export interface HttpAnswer {
  status: number;
  retryAfter: number | undefined;
  message: string | undefined;
  body: unknown;
  arrivedAt: number;
}

export interface HttpCall {
  method?: 'GET' | 'POST';
  path: string;
  body?: unknown;
  token?: string;
  /** The client's own address: any of 127.0.0.0/8 on the loopback interface. */
  from?: string;
}

/**
 * A request over a fresh TCP connection (no agent, no pooling), so calls fired together are
 * really in flight together, each from the loopback address it names.
 */
export function httpCall(baseUrl: string, call: HttpCall, socket?: net.Socket): Promise<HttpAnswer> {
  const url = new URL(call.path, baseUrl);
  const payload = call.body === undefined ? undefined : JSON.stringify(call.body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: call.method ?? (payload === undefined ? 'GET' : 'POST'),
        localAddress: call.from ?? '127.0.0.1',
        agent: false,
        ...(socket ? { createConnection: () => socket } : {}),
        headers: {
          connection: 'close',
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
          ...(call.token ? { authorization: `Bearer ${call.token}` } : {}),
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          socket?.destroy();
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON: keep the text
          }
          const header = response.headers['retry-after'];
          resolve({
            status: response.statusCode ?? 0,
            retryAfter: header === undefined ? undefined : Number(header),
            message: (body as { message?: string } | null)?.message,
            body,
            arrivedAt: performance.now(),
          });
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

/**
 * Sends the calls at the same instant: every TCP connection is opened first, then all requests
 * are written in one go, so the server receives them together.
 */
export async function httpBurst(baseUrl: string, calls: HttpCall[]): Promise<HttpAnswer[]> {
  const { hostname, port } = new URL(baseUrl);
  const sockets = await Promise.all(
    calls.map(
      (call) =>
        new Promise<net.Socket>((resolve, reject) => {
          const socket = net.connect({ host: hostname, port: Number(port), localAddress: call.from ?? '127.0.0.1' });
          socket.once('connect', () => resolve(socket));
          socket.once('error', reject);
        }),
    ),
  );
  return Promise.all(calls.map((call, i) => httpCall(baseUrl, call, sockets[i])));
}
