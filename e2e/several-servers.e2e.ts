import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureServerBuilt } from './support/build';
import { linkIn, type Mailbox, startMailbox } from './support/mailbox';
import { pdfWith } from './support/results-data';
import {
  type Database,
  freshDatabase,
  type Nginx,
  type PortalProcess,
  Ports,
  startNginx,
  startObjectStore,
  startPortalProcess,
} from './support/several-servers';

/*
 * Three portal processes on one PostgreSQL database and one S3 bucket (s3rver), behind Debian's
 * nginx running deploy/nginx/portal.conf. A mixed load runs for a bounded time through nginx:
 * sign-ins, lists, report views, ingests of new protocols, batch prints and shares that send mails
 * to a real SMTP server; one process is killed with SIGKILL half-way. Afterwards every
 * acknowledged ingest is there, every share's mail arrived once, no list missed a protocol
 * acknowledged before it was asked for, a lock held across the processes, and only requests in
 * flight on the killed process failed.
 */

const LOAD_MS = 30_000;
const KILL_AFTER_MS = 12_000;
const WORKERS = 10;
const PHYSICIANS = 3;
const PATIENTS = 3;
/** Shares per patient: under the 25 recipients an hour a patient may add. */
const SHARES_PER_PATIENT = 20;

interface Outcome {
  id: string;
  what: string;
  start: number;
  end: number;
  status: number;
  error?: string;
}

let db: Database;
let mailbox: Mailbox;
let store: { endpoint: string; stop(): Promise<void> };
let nginx: Nginx;
const portals: PortalProcess[] = [];
const admin = { email: 'admin@scale.test', password: `Adm-${randomBytes(6).toString('hex')}` };
let apiKey = '';

const physicians = Array.from({ length: PHYSICIANS }, (_, i) => ({
  email: `dr${i}@scale.test`,
  password: `Medico#${i}-forte`,
  crm: `77${i}01`,
  uf: 'SP',
  name: `Dra. Escala ${i}`,
  token: '',
}));
const patients = Array.from({ length: PATIENTS }, (_, i) => ({
  email: `paciente${i}@scale.test`,
  password: `Paciente#${i}-forte`,
  token: '',
  id: '',
  protocolId: '',
  shares: 0,
}));

const outcomes: Outcome[] = [];
let loadSeq = 0;

/** One request through nginx, recorded with its times and outcome under a load id nginx logs. */
async function request(
  what: string,
  method: string,
  path: string,
  options: { body?: unknown; raw?: Buffer; type?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; json: () => unknown; bytes: Buffer; headers: Headers }> {
  const id = `L${++loadSeq}`;
  const start = Date.now();
  const headers: Record<string, string> = { 'x-load-id': id, ...options.headers };
  let body: BodyInit | undefined;
  if (options.raw) {
    headers['content-type'] = options.type ?? 'application/octet-stream';
    body = new Uint8Array(options.raw);
  } else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  try {
    const response = await fetch(`${nginx.url}${path}`, { method, headers, body });
    const bytes = Buffer.from(await response.arrayBuffer());
    outcomes.push({ id, what, start, end: Date.now(), status: response.status });
    return {
      status: response.status,
      bytes,
      headers: response.headers,
      json: () => JSON.parse(bytes.toString('utf8')) as unknown,
    };
  } catch (error) {
    outcomes.push({ id, what, start, end: Date.now(), status: 0, error: String(error) });
    return { status: 0, bytes: Buffer.alloc(0), headers: new Headers(), json: () => ({}) };
  }
}

async function must<T>(what: string, method: string, path: string, options: Parameters<typeof request>[3] = {}) {
  const res = await request(what, method, path, options);
  if (res.status < 200 || res.status >= 300) {
    throw new Error(`${method} ${path} answered ${res.status}: ${res.bytes.toString('utf8').slice(0, 300)}`);
  }
  return (res.json() as { data: T }).data;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function signIn(userName: string, password: string, appKey = 'login'): Promise<string> {
  const data = await must<{ accessToken: string }>('sign-in', 'POST', '/api/v2/auth/login', {
    body: { userName, password, appKey },
  });
  return data.accessToken;
}

/** A new protocol of one exam with a report, requested by `physician`; acknowledged when both PUTs answer 2xx. */
async function ingestProtocol(number: string, physician: (typeof physicians)[number], patientEmail?: string) {
  const put = await request('ingest', 'PUT', `/api/v2/delivery/ingest/protocols/${number}`, {
    headers: { 'x-api-key': apiKey },
    body: {
      password: `senha-${number}`,
      requestedAt: new Date().toISOString(),
      patient: {
        patientId: `PAT-${number}`,
        name: `Paciente ${number}`,
        birthDate: '1980-01-01',
        gender: 'F',
        email: patientEmail,
      },
      exams: [
        {
          examKey: 'E1',
          description: 'Hemograma completo',
          type: 'Hemograma completo',
          modalityCode: 'LAB',
          modalityName: 'Laboratório',
          requester: { identifier: physician.crm, name: physician.name, crm: physician.crm, uf: physician.uf },
          status: 'RELEASED',
          performedAt: new Date().toISOString(),
          deliveredAt: new Date().toISOString(),
        },
      ],
    },
  });
  if (put.status < 200 || put.status >= 300) return { protocolAt: undefined, reportAt: undefined };
  const protocolAt = Date.now();
  const report = await request(
    'ingest',
    'PUT',
    `/api/v2/delivery/ingest/protocols/${number}/exams/E1/resources/${number}-laudo?type=REPORT`,
    { headers: { 'x-api-key': apiKey }, raw: pdfWith(`Laudo ${number}`), type: 'application/pdf' },
  );
  return { protocolAt, reportAt: report.status >= 200 && report.status < 300 ? Date.now() : undefined };
}

beforeAll(async () => {
  ensureServerBuilt();
  const ports = new Ports();
  const nginxPort = await ports.take();
  const portalPorts = [await ports.take(), await ports.take(), await ports.take()];
  db = await freshDatabase();
  store = await startObjectStore(await ports.take());
  mailbox = await startMailbox(await ports.take());
  const env = {
    DATABASE_URL: db.url,
    STORAGE_URL: 's3://results/portal',
    S3_ENDPOINT: store.endpoint,
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    SMTP_URL: mailbox.url,
    PUBLIC_URL: `http://127.0.0.1:${nginxPort}`,
    JWT_SECRET: randomBytes(32).toString('hex'),
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
    TRUST_PROXY: '127.0.0.1',
    OUTBOX_POLL_MS: '200',
    // A mail held by the killed process is taken over 15 s later instead of 10 minutes.
    OUTBOX_LEASE_MS: '15000',
    DEMO_DATA: 'false',
    LOG_LEVEL: 'warn',
  };
  // All three start at once on the empty database: one migrates, the others wait for it.
  const started = portalPorts.map((port) => startPortalProcess(port, env));
  portals.push(...started.map((s) => s.process));
  await Promise.all(started.map((s) => s.ready));
  nginx = await startNginx(portalPorts, nginxPort);

  const adminToken = await signIn(admin.email, admin.password, 'admin');
  const institution = await must<{ id: string; apiKey: string }>('setup', 'POST', '/api/administrationbe/institution', {
    body: { code: 'ESCALA', name: 'Laboratório Escala', viewType: 2 },
    headers: bearer(adminToken),
  });
  apiKey = institution.apiKey;

  for (const physician of physicians) {
    await must('setup', 'POST', '/api/administrationbe/physician/invite', {
      headers: bearer(adminToken),
      body: {
        email: physician.email,
        name: physician.name,
        crm: physician.crm,
        uf: physician.uf,
        institutionId: institution.id,
        language: 'pt-br',
      },
    });
    const invite = new URL(linkIn(await mailbox.waitFor(physician.email), nginx.url, '/physician/create'));
    await must('setup', 'POST', '/api/v2/auth/physician/create', {
      body: {
        token: invite.searchParams.get('token'),
        fullName: physician.name,
        password: physician.password,
        confirmPassword: physician.password,
        language: 'pt-br',
      },
    });
    physician.token = await signIn(physician.email, physician.password);
  }

  for (const [i, patient] of patients.entries()) {
    await must('setup', 'POST', '/api/v2/auth/user/create', {
      body: {
        name: `Paciente Escala ${i}`,
        login: patient.email,
        confirmEmailAddress: patient.email,
        password: patient.password,
        confirmPassword: patient.password,
        dateOfBirth: '09/07/1984',
        language: 'pt-br',
        serviceTerms: true,
      },
    });
    const activation = await fetch(
      linkIn(await mailbox.waitFor(patient.email), nginx.url, '/api/v2/auth/user/registerValidate'),
      { redirect: 'manual' },
    );
    expect(activation.headers.get('location')).toContain('activeSuccess=true');
    const session = await must<{ accessToken: string; user: { identifier: string } }>(
      'setup',
      'POST',
      '/api/v2/auth/login',
      { body: { userName: patient.email, password: patient.password, appKey: 'login' } },
    );
    patient.token = session.accessToken;
    patient.id = session.user.identifier;
    const number = `PAC-${i}`;
    await ingestProtocol(number, physicians[i % PHYSICIANS]!, patient.email);
    await must('setup', 'POST', '/api/v2/auth/user/bindProtocol', {
      headers: bearer(patient.token),
      body: { protocol: number, password: `senha-${number}`, patientUserId: patient.id },
    });
  }
  // Protocols that guests sign in to.
  for (let i = 0; i < 6; i++) await ingestProtocol(`GUEST-${i}`, physicians[i % PHYSICIANS]!);
  outcomes.length = 0;
}, 300_000);

afterAll(async () => {
  await nginx?.stop();
  for (const portal of portals) await portal.stop();
  await mailbox?.close();
  await store?.stop();
  await db?.drop();
});

describe('three portal processes behind nginx on one PostgreSQL and one S3 bucket', () => {
  it('serve a mixed load through a SIGKILL of one of them without losing or repeating anything', async () => {
    const acknowledged: Array<{ number: string; physician: number; protocolAt: number; reportAt?: number }> = [];
    const stale: string[] = [];
    const shared: string[] = [];
    const wrongAnswers: string[] = [];
    let ingests = 0;
    let killAt = 0;
    let diedAt = 0;
    const started = Date.now();
    const until = started + LOAD_MS;

    const physicianRound = async (k: number) => {
      const physician = physicians[k]!;
      const asked = Date.now();
      // Every page of his list: a page holds at most PAGE_SIZE_MAX (100) protocols, and a quiet
      // machine ingests more than that for one physician within the load's 30 s.
      const items: Array<{ requestId: string; number: string }> = [];
      for (let page = 1; ; page += 1) {
        const list = await request(
          'list',
          'GET',
          `/api/delivery/persistence/protocols/physician?size=100&page=${page}`,
          {
            headers: bearer(physician.token),
          },
        );
        if (list.status !== 200) return;
        const got = (list.json() as { data: { items: Array<{ requestId: string; number: string }> } }).data.items;
        items.push(...got);
        if (got.length < 100) break;
      }
      const listed = new Set(items.map((p) => p.number));
      for (const a of acknowledged) {
        if (a.physician === k && a.protocolAt < asked && !listed.has(a.number)) stale.push(`${a.number} for dr${k}`);
      }
      const withReport = items.filter((p) => acknowledged.some((a) => a.number === p.number && a.reportAt));
      const pick = withReport[Math.floor(Math.random() * withReport.length)];
      if (!pick) return;
      const exams = await request(
        'detail',
        'GET',
        `/api/v2/delivery/dashboard/protocols/exams?requestId=${pick.requestId}`,
        {
          headers: bearer(physician.token),
        },
      );
      if (exams.status !== 200) return;
      const resources = (
        exams.json() as { data: Array<{ resources: Array<{ type: string; identifier: string }> }> }
      ).data
        .flatMap((e) => e.resources)
        .filter((r) => r.type === 'REPORT');
      const resource = resources[0];
      if (!resource) {
        wrongAnswers.push(`no report listed in ${pick.number}`);
        return;
      }
      const view = await request(
        'report view',
        'GET',
        `/api/v2/delivery/resource/report?resourceId=${resource.identifier}`,
        {
          headers: bearer(physician.token),
        },
      );
      if (view.status === 200 && !view.bytes.subarray(0, 5).equals(Buffer.from('%PDF-'))) {
        wrongAnswers.push(`report of ${pick.number} is not a PDF`);
      }
      if (Math.random() < 0.25) {
        const ids = withReport.slice(0, 3).map((p) => p.requestId);
        const print = await request('batch print', 'POST', '/api/v2/delivery/resource/batchPrinting', {
          headers: bearer(physician.token),
          body: { requestIds: ids },
        });
        if (print.status === 200 && !print.bytes.subarray(0, 5).equals(Buffer.from('%PDF-'))) {
          wrongAnswers.push('a batch print is not a PDF');
        }
      }
    };

    const guestRound = async () => {
      const number = `GUEST-${Math.floor(Math.random() * 6)}`;
      const res = await request('sign-in', 'POST', '/api/v2/auth/login', {
        body: { userName: number, password: `senha-${number}`, appKey: 'login' },
      });
      if (res.status !== 200) return;
      const token = (res.json() as { data: { accessToken: string } }).data.accessToken;
      await request('list', 'GET', '/api/v2/delivery/dashboard/protocols', { headers: bearer(token) });
    };

    const ingestRound = async (worker: number) => {
      const number = `LOAD-${worker}-${++ingests}`;
      const k = ingests % PHYSICIANS;
      const result = await ingestProtocol(number, physicians[k]!);
      if (result.protocolAt)
        acknowledged.push({ number, physician: k, protocolAt: result.protocolAt, reportAt: result.reportAt });
    };

    const shareRound = async () => {
      const patient = patients.find((p) => p.shares < SHARES_PER_PATIENT);
      if (!patient) return;
      patient.shares++;
      const email = `partilha-${patient.shares}-${patient.email}`;
      const res = await request('share', 'POST', '/api/auth/protocol/share', {
        headers: bearer(patient.token),
        body: { emails: [email], protocols: [patient.protocolId || (await protocolOf(patient))] },
      });
      if (res.status === 201) shared.push(email);
    };
    const protocolOf = async (patient: (typeof patients)[number]) => {
      const list = await must<{ items: Array<{ requestId: string }> }>(
        'list',
        'GET',
        '/api/v2/delivery/dashboard/protocols',
        {
          headers: bearer(patient.token),
        },
      );
      patient.protocolId = list.items[0]!.requestId;
      return patient.protocolId;
    };

    const worker = async (w: number) => {
      let round = 0;
      while (Date.now() < until) {
        round++;
        const r = (w + round) % 10;
        if (r < 4) await physicianRound((w + round) % PHYSICIANS);
        else if (r < 6) await ingestRound(w);
        else if (r < 8) await guestRound();
        else await shareRound();
      }
    };
    const killer = (async () => {
      await new Promise((resolve) => setTimeout(resolve, KILL_AFTER_MS));
      killAt = Date.now();
      await portals[1]!.kill();
      diedAt = Date.now();
    })();
    await Promise.all([...Array.from({ length: WORKERS }, (_, w) => worker(w)), killer]);

    // A lock held across the two processes left: 30 wrong passwords for one protocol at once.
    const burst = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        request('lock burst', 'POST', '/api/v2/auth/login', {
          body: { userName: 'GUEST-0', password: `errada-${i}`, appKey: 'login' },
        }),
      ),
    );
    const checked = burst.filter((r) => r.status === 401 || r.status === 400).length;
    expect(burst.every((r) => [400, 401, 429].includes(r.status))).toBe(true);
    // Five failures are free; the fifth sets the lock every other guess then meets, whichever process.
    expect(checked).toBeLessThanOrEqual(5);
    const lockedOut = await request('lock burst', 'POST', '/api/v2/auth/login', {
      body: { userName: 'GUEST-0', password: 'senha-GUEST-0', appKey: 'login' },
    });
    expect(lockedOut.status).toBe(429);

    // Every request that failed was in flight on the killed process when it died: sent to it
    // (nginx names it as the only upstream tried) between the kill and a moment after its exit
    // (a request nginx handed to a kept-alive connection to it as it died: the connection's
    // close reaches nginx just after, up to a second or two on a loaded machine).
    const failed = outcomes.filter(
      (o) => o.what !== 'lock burst' && (o.status === 0 || o.status >= 500 || (o.status >= 400 && o.status !== 429)),
    );
    const killedAddress = `127.0.0.1:${portals[1]!.port}`;
    const upstreamsOf = new Map(nginx.accessLog().map((l) => [l.id, l.upstreams]));
    for (const f of failed) {
      expect(
        f.end >= killAt && f.start <= diedAt + 2_000,
        `${f.what} ${f.id} (${f.status}) ran from ${f.start - killAt} to ${f.end - killAt} ms after the kill ` +
          `(the process was gone ${diedAt - killAt} ms after it)`,
      ).toBe(true);
      expect(upstreamsOf.get(f.id) ?? '', `${f.what} ${f.id}`).toBe(killedAddress);
    }
    // The 429s of the load are the share limit only.
    expect(outcomes.filter((o) => o.status === 429 && o.what !== 'lock burst' && o.what !== 'share')).toEqual([]);
    expect(stale).toEqual([]);
    expect(wrongAnswers).toEqual([]);

    // Every acknowledged ingest is there, with its report when that was acknowledged too.
    const stored = await db.query<{ number: string; reports: string }>(
      `select p.number, (select count(*) from resources r join exams e on e.id = r.exam_id
         where e.protocol_id = p.id and r.type = 'REPORT') as reports
       from protocols p where p.number like 'LOAD-%'`,
    );
    const byNumber = new Map(stored.map((r) => [r.number, Number(r.reports)]));
    for (const a of acknowledged) {
      expect(byNumber.has(a.number), a.number).toBe(true);
      if (a.reportAt) expect(byNumber.get(a.number), a.number).toBe(1);
    }

    // Every share's mail arrives once, the ones the killed process held included.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const waiting = (await db.query<{ n: string }>(`select count(*) as n from outbox where status = 'PENDING'`))[0]
        ?.n;
      if (Number(waiting) === 0) break;
      if (Date.now() > deadline) throw new Error(`${waiting} mails still waiting in the outbox`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const messageIds = new Map<string, number>();
    for (const mail of mailbox.mails)
      messageIds.set(mail.messageId ?? '', (messageIds.get(mail.messageId ?? '') ?? 0) + 1);
    for (const email of shared) {
      const mails = mailbox.mailsTo(email);
      expect(new Set(mails.map((m) => m.messageId)).size, email).toBe(1);
    }
    // A mail sent again is one the killed process had sent but not yet marked: at most the one it had in flight.
    const repeated = [...messageIds.values()].filter((n) => n > 1);
    expect(repeated.length).toBeLessThanOrEqual(1);
    expect(repeated.every((n) => n === 2)).toBe(true);
    // A conversation that ended badly can only be one the killed process had open.
    const cutOff = mailbox.errors.map((e) => (e as NodeJS.ErrnoException).code ?? e.message);
    expect(
      cutOff.every((code) => code === 'ECONNRESET' || code === 'EPIPE'),
      cutOff.join(', '),
    ).toBe(true);
    const sent = (await db.query<{ n: string }>(`select count(*) as n from outbox where status = 'SENT'`))[0]?.n;
    expect(Number(sent)).toBe(messageIds.size);

    const counts = new Map<string, number>();
    for (const o of outcomes) counts.set(o.what, (counts.get(o.what) ?? 0) + 1);
    console.log(
      `load of ${LOAD_MS / 1000} s through nginx: ${[...counts].map(([k, v]) => `${v} ${k}`).join(', ')}; ` +
        `${acknowledged.length} ingests acknowledged, ${shared.length} shares mailed, ${failed.length} requests ` +
        `failed (in flight on the killed process), ${repeated.length} mail sent again, ` +
        `${cutOff.length} mail conversation cut off by the kill`,
    );
    // The load did run on both sides of the kill (figures depend on the machine; these are floors).
    expect(acknowledged.filter((a) => a.protocolAt > killAt).length).toBeGreaterThan(2);
    expect(outcomes.filter((o) => o.start > killAt && o.status >= 200 && o.status < 300).length).toBeGreaterThan(20);
    expect(shared.length).toBeGreaterThan(2);
    expect(counts.get('batch print') ?? 0).toBeGreaterThan(0);
  }, 300_000);
});
