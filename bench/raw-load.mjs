// A load generator that reads answers without decoding them, in a process of its own: autocannon
// appends every answer's body to a string, so a binary file (a PDF report) costs it a UTF-8
// decoding of its bytes and caps it near 900 answers a second here, whoever sends them. This one
// keeps `connections` keep-alive connections busy for `seconds`, one request at a time on each,
// finds each answer's end by its Content-Length, and skips the body's bytes unread.
//
// argv[2] is JSON: { url, connections, seconds, headers?, rotationFile? } (a rotation file as rotation.cjs
// reads it: each request is the next call's path and token). Prints JSON on stdout:
// { requests, rps, p50, p99, non2xx, errors }.
import fs from 'node:fs';
import net from 'node:net';

const options = JSON.parse(process.argv[2]);
const url = new URL(options.url);
const calls = options.rotationFile ? JSON.parse(fs.readFileSync(options.rotationFile, 'utf8')) : null;
let next = 0;

function request() {
  const call = calls ? calls[next++ % calls.length] : null;
  const target = call ? call.path : `${url.pathname}${url.search}`;
  const headers = { ...options.headers, ...(call ? { authorization: `Bearer ${call.token}` } : {}) };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `GET ${target} HTTP/1.1\r\nhost: ${url.host}\r\n${lines.join('')}\r\n`;
}

const latencies = [];
let non2xx = 0;
let errors = 0;
let stopping = false;
const started = performance.now();

function connection() {
  return new Promise((resolve) => {
    const socket = net.connect(Number(url.port), url.hostname);
    socket.setNoDelay(true);
    let head = null;
    let remaining = -1;
    let sentAt = 0;
    const send = () => {
      sentAt = performance.now();
      socket.write(request());
    };
    const fail = () => {
      errors++;
      socket.destroy();
    };
    socket.on('connect', send);
    socket.on('error', () => errors++);
    socket.on('close', () => resolve());
    socket.on('data', (data) => {
      let chunk = data;
      while (chunk.length > 0) {
        if (remaining < 0) {
          head = head ? Buffer.concat([head, chunk]) : chunk;
          const end = head.indexOf('\r\n\r\n');
          if (end < 0) return;
          const text = head.toString('latin1', 0, end);
          const length = /\r\ncontent-length:\s*(\d+)/i.exec(text);
          if (!length) return fail(); // chunked answers are not read here
          if (!text.startsWith('HTTP/1.1 2')) non2xx++;
          remaining = Number(length[1]);
          chunk = head.subarray(end + 4);
          head = null;
        }
        const taken = Math.min(remaining, chunk.length);
        remaining -= taken;
        chunk = chunk.subarray(taken);
        if (remaining > 0) return;
        remaining = -1;
        latencies.push(performance.now() - sentAt);
        if (stopping) return socket.end();
        send();
      }
    });
  });
}

setTimeout(() => (stopping = true), options.seconds * 1000);
await Promise.all(Array.from({ length: options.connections }, connection));
const elapsed = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const at = (q) =>
  latencies.length ? Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]) : 0;
process.stdout.write(
  JSON.stringify({
    requests: latencies.length,
    rps: Math.round(latencies.length / elapsed),
    p50: at(0.5),
    p99: at(0.99),
    non2xx,
    errors,
  }),
);
