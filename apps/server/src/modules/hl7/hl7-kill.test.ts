import { afterAll, describe, expect, it } from 'vitest';
import { freePort, freshDatabaseEnv, startTestPortal } from '../../test/helpers.js';
import { kill, killStartedServers, startServer } from '../../test/server-process.js';
import { createInstitution } from '../institutions/institution.service.js';
import { ackFields, MllpClient, reportPdf, utf8LabMessage } from './hl7.test-support.js';

/** How many ACKs the stream gets before the server is killed, with messages still in flight. */
const ACKS_BEFORE_KILL = 12;
const CONNECTIONS = 3;

describe('a killed server never acknowledges what it did not store', () => {
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await killStartedServers();
    await drop?.();
  });

  it('SIGKILL during a stream of MLLP messages: every AA is stored with its PDF; the rest arrive on resend', async () => {
    const database = await freshDatabaseEnv();
    drop = database.drop;
    const setup = await startTestPortal({ reuse: { env: database.env } });
    await createInstitution(setup.ctx, {
      code: 'KILLHL7',
      name: 'Laboratório do Teste',
      viewType: 2,
      hl7SendingFacilities: ['LABCENTRAL'],
    });
    await setup.close();

    const pdf = await reportPdf('Laudo do fluxo interrompido');
    const message = (id: string) => utf8LabMessage({ controlId: id, protocol: `P-${id}`, pdf, password: 'senha' });
    const mllpPort = await freePort();
    const env = { ...database.env, HL7_MLLP_PORT: String(mllpPort) };

    const first = await startServer(env);
    const acked: string[] = [];
    const sent: string[] = [];
    let killed = false;
    const stream = async (connection: number) => {
      const client = await MllpClient.connect(mllpPort);
      for (let i = 0; ; i++) {
        const id = `K${connection}-${i}`;
        sent.push(id);
        const pending = client.send(message(id));
        // The kill lands while this connection's message is on its way or being stored.
        if (!killed && acked.length >= ACKS_BEFORE_KILL) {
          killed = true;
          first.child.kill('SIGKILL');
        }
        const ack = await pending;
        if (!ack) return;
        const msa = ackFields(ack).MSA![0]!;
        expect(msa[2]).toBe(id);
        if (msa[1] === 'AA') acked.push(id);
      }
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, (_, c) => stream(c)));
    expect(killed).toBe(true);
    expect(acked.length).toBeGreaterThanOrEqual(ACKS_BEFORE_KILL);
    const unanswered = sent.filter((id) => !acked.includes(id));
    expect(unanswered.length).toBeGreaterThan(0);

    // After the restart, nothing acknowledged is missing: protocol, exams, values and the PDF.
    const check = await startTestPortal({ reuse: { env: database.env } });
    try {
      const db = check.ctx.db;
      for (const id of acked) {
        const stored = await db
          .selectFrom('hl7Messages')
          .select('outcome')
          .where('controlId', '=', id)
          .where('outcome', '=', 'STORED')
          .executeTakeFirst();
        expect(stored, id).toBeDefined();
        const exams = await db
          .selectFrom('exams as e')
          .innerJoin('protocols as p', 'p.id', 'e.protocolId')
          .select(['e.id', 'e.examKey'])
          .where('p.number', '=', `P-${id}`)
          .orderBy('e.examKey')
          .execute();
        expect(exams.map((e) => e.examKey)).toEqual(['GLI-1', 'HMG-1']);
        const analytes = await db
          .selectFrom('analytes')
          .select('code')
          .where(
            'examId',
            'in',
            exams.map((e) => e.id),
          )
          .execute();
        expect(analytes).toHaveLength(4);
        const file = await db
          .selectFrom('resources')
          .select('storageKey')
          .where('examId', '=', exams[0]!.id)
          .executeTakeFirstOrThrow();
        const chunks: Buffer[] = [];
        for await (const chunk of await check.ctx.storage.get(file.storageKey)) chunks.push(chunk as Buffer);
        expect(Buffer.compare(Buffer.concat(chunks), pdf), id).toBe(0);
      }
    } finally {
      await check.close();
    }

    // The sender sends again what got no ACK (and one that did): each is AA and stored once.
    const second = await startServer(env);
    const client = await MllpClient.connect(mllpPort);
    for (const id of [...unanswered, acked[0]!]) {
      const ack = await client.send(message(id));
      expect(ackFields(ack!).MSA![0]!.slice(1, 3)).toEqual(['AA', id]);
    }
    client.close();
    await kill(second.child);

    const last = await startTestPortal({ reuse: { env: database.env } });
    try {
      const rows = await last.ctx.db
        .selectFrom('hl7Messages')
        .select(['controlId'])
        .where('outcome', '=', 'STORED')
        .execute();
      const storedIds = rows.map((r) => r.controlId).sort();
      expect(storedIds).toEqual([...new Set(sent)].sort());
      const protocols = await last.ctx.db.selectFrom('protocols').select('number').execute();
      expect(protocols).toHaveLength(new Set(sent).size);
    } finally {
      await last.close();
    }
  }, 180_000);
});
