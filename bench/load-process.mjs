// autocannon in a process of its own, so the process measured serves calls and does nothing else.
// Reads its options as JSON from argv[2] ({ url, connections, amount, rotationFile? }) and prints
// { requests, non2xx, errors, p99 } as JSON on stdout.
import autocannon from 'autocannon';

const options = JSON.parse(process.argv[2]);
if (options.rotationFile) process.env.BENCH_ROTATION = options.rotationFile;
const rotation = options.rotationFile ? (await import('./rotation.cjs')).default : undefined;
const result = await autocannon({
  url: options.url,
  connections: options.connections,
  amount: options.amount,
  ...(rotation ? { requests: [{ method: 'GET', setupRequest: rotation }] } : {}),
});
process.stdout.write(
  JSON.stringify({
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    p99: result.latency.p99,
  }),
);
