/**
 * HL7 v2 benchmark: ORU^R01 messages per second through MLLP on one connection and on ten,
 * beside the JSON ingest of the same content (contract 5: the protocol PUT and its PDF PUT) as
 * the reference, in the same run, on the same portal. Prints figures; asserts nothing.
 *
 *   node --import tsx bench/hl7.bench.ts     (BENCH_HL7_MESSAGES, BENCH_DB=postgres)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../apps/server/src/config.js';
import { createPortal } from '../apps/server/src/server.js';
import { createPgDatabase } from '../apps/server/src/test/pg-database.js';
import { createInstitution } from '../apps/server/src/modules/institutions/institution.service.js';
import { MllpClient, ackFields, reportPdf, utf8LabMessage } from '../apps/server/src/modules/hl7/hl7.test-support.js';

const MESSAGES = Number(process.env.BENCH_HL7_MESSAGES ?? 400);
const DIALECT = process.env.BENCH_DB === 'postgres' ? 'postgres' : 'sqlite';

async function database(): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-bench-hl7-'));
  if (DIALECT === 'sqlite') {
    return { env: { DATA_DIR: dataDir }, drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
  }
  const pgDatabase = await createPgDatabase('portal_bench_hl7');
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: pgDatabase.url },
    drop: async () => {
      await pgDatabase.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The JSON ingest body with the same content as `utf8LabMessage` (see the HL7 comparison test). */
function jsonBody() {
  const requester = { identifier: 'CRM-SP-12345', name: 'Dra. Ana Silva', crm: '12345', uf: 'SP' };
  const lab = { modalityCode: 'LAB', modalityName: 'Laboratório', requester, status: 'RELEASED' };
  const when = { performedAt: '2026-11-18T09:00:00-03:00', deliveredAt: '2026-11-18T10:30:00-03:00' };
  return JSON.stringify({
    password: 'senha-bench',
    requestedAt: '2026-11-18T09:00:00-03:00',
    patient: {
      patientId: '77001',
      name: 'João Batista Conceição',
      birthDate: '1980-04-12',
      gender: 'MALE',
      email: 'joao.conceicao@example.com',
      phone: '11987654321',
      cpf: '52998224725',
    },
    exams: [
      {
        examKey: 'HMG-1',
        description: 'Hemograma completo',
        type: 'HMG',
        ...lab,
        ...when,
        analytes: [
          { code: 'HB', name: 'Hemoglobina', unit: 'g/dL', value: 13.5, referenceMin: 12, referenceMax: 16 },
          { code: 'HT', name: 'Hematócrito', unit: '%', value: '47,9', referenceMin: 36, referenceMax: 46 },
          { code: 'LEUCO', name: 'Leucócitos', unit: '/mm3', value: 3200, referenceMin: 4000, referenceMax: 11000 },
        ],
      },
      {
        examKey: 'GLI-1',
        description: 'Glicose',
        type: 'GLI',
        ...lab,
        ...when,
        analytes: [{ code: 'GLI', name: 'Glicose', unit: 'mg/dL', value: 92, referenceMin: 70, referenceMax: 99 }],
      },
    ],
  });
}

interface Row {
  way: string;
  connections: number;
  messages: number;
  seconds: number;
}

/** Runs `count` jobs over `connections` workers; each worker takes the next job when done. */
async function spread(count: number, connections: number, worker: () => Promise<(i: number) => Promise<void>>) {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      const job = await worker();
      for (let i = next++; i < count; i = next++) await job(i);
    }),
  );
  return Number(process.hrtime.bigint() - started) / 1e9;
}

async function main(): Promise<void> {
  const db = await database();
  const config = loadConfig({
    ...db.env,
    HOST: '127.0.0.1',
    PORT: '0',
    HL7_MLLP_PORT: '0',
    LOG_LEVEL: 'warn',
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-00',
  });
  const portal = await createPortal(config, { outbox: false });
  try {
    await portal.app.listen({ host: '127.0.0.1', port: 0 });
    const http = portal.app.server.address() as { port: number };
    const mllp = (await portal.startMllp())!;
    const { apiKey } = await createInstitution(portal.ctx, {
      code: 'BENCHLAB',
      name: 'Laboratório Bench',
      viewType: 2,
      hl7SendingFacilities: ['LABCENTRAL'],
    });
    const pdf = await reportPdf('Glicose 92 mg/dL - bench');
    const body = jsonBody();
    const rows: Row[] = [];

    for (const connections of [1, 10]) {
      const tag = `${connections}`;
      // HL7: one ORU^R01 per protocol (two OBR groups, four values, a base64 PDF), AA awaited each time.
      const hl7Seconds = await spread(MESSAGES, connections, async () => {
        const client = await MllpClient.connect(mllp.port);
        return async (i) => {
          const id = `B${tag}-${i}`;
          const ack = await client.send(utf8LabMessage({ controlId: id, protocol: `H${tag}-${i}`, pdf }));
          if (!ack || ackFields(ack).MSA![0]![1] !== 'AA') throw new Error(`message ${id} was not stored`);
        };
      });
      rows.push({ way: 'HL7 v2 over MLLP (ORU^R01 with PDF)', connections, messages: MESSAGES, seconds: hl7Seconds });

      // Reference: the same content through contract 5, the protocol PUT then the PDF PUT.
      const base = `http://127.0.0.1:${http.port}/api/v2/delivery/ingest/protocols`;
      const jsonSeconds = await spread(MESSAGES, connections, async () => async (i) => {
        const number = `J${tag}-${i}`;
        const protocol = await fetch(`${base}/${number}`, {
          method: 'PUT',
          headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
          body,
        });
        await protocol.arrayBuffer();
        const file = await fetch(`${base}/${number}/exams/GLI-1/resources/GLI-1-PDF?type=REPORT`, {
          method: 'PUT',
          headers: { 'x-api-key': apiKey, 'content-type': 'application/pdf' },
          body: new Uint8Array(pdf),
        });
        await file.arrayBuffer();
        if (protocol.status !== 201 || file.status !== 201) throw new Error(`JSON ingest ${number} failed`);
      });
      rows.push({ way: 'JSON ingest (PUT protocol + PUT PDF)', connections, messages: MESSAGES, seconds: jsonSeconds });
    }

    console.log(
      `\nHL7 v2 ingest, ${DIALECT}, ${MESSAGES} protocols per row, Node ${process.version}, ${os.cpus().length} CPUs`,
    );
    console.log('| way in | connections | protocols | seconds | protocols/s |');
    console.log('|---|---:|---:|---:|---:|');
    for (const r of rows) {
      console.log(
        `| ${r.way} | ${r.connections} | ${r.messages} | ${r.seconds.toFixed(2)} | ${(r.messages / r.seconds).toFixed(1)} |`,
      );
    }
  } finally {
    await portal.close();
    await db.drop();
  }
}

await main();
