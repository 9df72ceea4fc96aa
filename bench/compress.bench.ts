/**
 * JSON answers compressed for a browser: @fastify/compress registered as the portal registers it,
 * once with the plugin's own limit for compressing in one call (8 KiB on two cores; larger answers
 * go through a brotli stream each) and once with every answer up to 256 KiB compressed in one
 * call, each beside the same answers sent uncompressed. The answers are list pages shaped as the
 * portal's (random ids, so they compress as real ones do): 3, 10 and 50 protocols.
 *
 *   node --import tsx bench/compress.bench.ts        (BENCH_SECONDS per row, default 10)
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import fastifyCompress from '@fastify/compress';
import Fastify from 'fastify';
import { ANSWER_ENCODINGS, BROTLI_OPTIONS, COMPRESSION_THRESHOLD } from '../apps/server/src/lib/json-answer.js';
import { BROWSER_ENCODINGS, load, SECONDS } from './clinic.js';

const NAMES = ['Hemograma', 'Glicemia', 'Raio X', 'Ultrassom', 'Colesterol total', 'TSH'];

/** A list page of `count` protocols of 5 exams each, as the portal's list items are written. */
function page(count: number): string {
  const institution = { id: randomUUID(), name: 'Clinica Exemplo', token: 'clinica-exemplo' };
  const items = Array.from({ length: count }, (_, i) => {
    const exams = Array.from({ length: 5 }, (_, j) => ({
      id: randomUUID(),
      description: NAMES[(i + j) % NAMES.length],
      statusCode: 'L',
      rectificationStatus: null,
      examRead: j % 2 === 0,
    }));
    return {
      requestId: randomUUID(),
      number: `B${String(100_000 + i * 37).padStart(8, '0')}`,
      requestedAt: new Date(Date.UTC(2026, 10, 20 - (i % 7), 11, i % 60)).toISOString(),
      requestedAtFormated: `${20 - (i % 7)}/11/2026`,
      institution,
      patient: {
        name: `paciente ${1000 + i * 13}`,
        patientId: `PID${1000 + i * 13}`,
        birthDate: '1980-01-01',
        gender: 'FEMALE',
        email: `patient${i}@example.test`,
        phone: null,
      },
      hasAtLeastOneRectification: false,
      hasExamStatusVisualizer: false,
      hasPatientUser: true,
      hasImageResolved: i % 3 === 0,
      showAllButton: true,
      showHistoricButton: false,
      protocolRead: false,
      allExamsRead: false,
      tagID: null,
      hasTag: false,
      institutionId: institution.id,
      examsIds: exams.map((e) => e.id),
      examList: exams,
    };
  });
  return JSON.stringify({ data: { items, total: count, page: 1, size: count } });
}

async function serve(syncThreshold: number | undefined, answers: Record<string, string>) {
  const app = Fastify();
  await app.register(fastifyCompress, {
    global: true,
    threshold: COMPRESSION_THRESHOLD,
    encodings: [...ANSWER_ENCODINGS],
    brotliOptions: BROTLI_OPTIONS,
    ...(syncThreshold === undefined ? {} : { syncThreshold }),
  });
  for (const [name, body] of Object.entries(answers)) {
    app.get(`/${name}`, async (_request, reply) => reply.type('application/json; charset=utf-8').send(body));
  }
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  return { address, close: () => app.close() };
}

async function main() {
  const answers = { protocols3: page(3), protocols10: page(10), protocols50: page(50) };
  const plugin = await serve(undefined, answers);
  const oneCall = await serve(256 * 1024, answers);
  console.log(
    `compress.bench: ${SECONDS} s a row, 50 connections, load average ${os.loadavg()[0]!.toFixed(1)}; req/s, p99 ms`,
  );
  const rows = ['| answer | as it is | brotli, plugin default | brotli, one call up to 256 KiB |', '|---|---|---|---|'];
  for (const [name, body] of Object.entries(answers)) {
    const plain = await load(`${plugin.address}/${name}`, {});
    const streamed = await load(`${plugin.address}/${name}`, { 'accept-encoding': BROWSER_ENCODINGS });
    const once = await load(`${oneCall.address}/${name}`, { 'accept-encoding': BROWSER_ENCODINGS });
    rows.push(
      `| ${name} (${(Buffer.byteLength(body) / 1024).toFixed(1)} KiB; ${(streamed.bytes / 1024).toFixed(1)} compressed) | ${plain.rps}, ${plain.p99} | ${streamed.rps}, ${streamed.p99} | ${once.rps}, ${once.p99} |`,
    );
  }
  console.log(rows.join('\n'));
  await plugin.close();
  await oneCall.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
