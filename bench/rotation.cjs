// autocannon's setupRequest in its worker thread: each request is the next call of the rotation
// the benchmark wrote to BENCH_ROTATION (a JSON array of { path, token }), shared by every
// connection of the worker, so consecutive requests come from different users.
'use strict';
// autocannon's worker loads this file with require(), so it is CommonJS.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const fs = require('node:fs');

const calls = JSON.parse(fs.readFileSync(process.env.BENCH_ROTATION, 'utf8'));
let next = 0;

module.exports = (request) => {
  const call = calls[next++ % calls.length];
  return { ...request, path: call.path, headers: { ...request.headers, authorization: `Bearer ${call.token}` } };
};
