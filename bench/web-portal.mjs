// The built portal the web benchmarks measure: the server on a free 127.0.0.1 port with a fresh
// DATA_DIR and a local SMTP sink (accounts are activated from their mails), and a patient and a
// physician with a list of protocols each. Builds nothing: expects apps/web/dist and
// apps/server/dist.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SERVER_ENTRY = path.join(ROOT, 'apps/server/dist/main.js');
export const WEB_DIST = path.resolve(process.env.WEB_DIST ?? path.join(ROOT, 'apps/web/dist'));

/** Chromium's flags of e2e/support/browser.ts. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Exits with a message when the server or the web app is not built. */
export function requireBuild() {
  for (const [what, file] of [
    ['server', SERVER_ENTRY],
    ['web app', path.join(WEB_DIST, 'index.html')],
  ]) {
    if (!fs.existsSync(file)) {
      console.error(
        `The ${what} is not built (${file} is missing). Build it first: ` +
          '"npx tsc -b packages/shared apps/server" and "cd apps/web && npx vite build".',
      );
      process.exit(1);
    }
  }
}

/**
 * Starts the portal and waits until it is ready; `root` runs another built checkout of the
 * portal instead (its server and its web app), to measure it beside this one.
 */
export async function startPortal(root = ROOT) {
  const serverEntry = root === ROOT ? SERVER_ENTRY : path.join(root, 'apps/server/dist/main.js');
  const webDist = root === ROOT ? WEB_DIST : path.join(root, 'apps/web/dist');
  // ---- a real SMTP sink, so the accounts can be activated from their mails ----

  const mails = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, done) {
      simpleParser(stream)
        .then((mail) => {
          mails.push(mail);
          done();
        })
        .catch(done);
    },
  });
  const smtpPort = await new Promise((resolve) =>
    smtp.listen(0, '127.0.0.1', () => resolve(smtp.server.address().port)),
  );

  async function mailLink(to, pathPart) {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      for (const mail of [...mails].reverse()) {
        const recipients = (Array.isArray(mail.to) ? mail.to : [mail.to]).flatMap((a) =>
          (a?.value ?? []).map((v) => v.address?.toLowerCase()),
        );
        if (!recipients.includes(to)) continue;
        const line = (mail.text ?? '')
          .split(/\r?\n/)
          .map((l) => l.trim())
          .find((l) => l.startsWith('http') && l.includes(pathPart));
        if (line) return line;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`no mail to ${to} with a ${pathPart} link arrived`);
  }

  // ---- the real server on a free port with a fresh data directory ----

  const port = await new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port: p } = probe.address();
      probe.close(() => resolve(p));
    });
  });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-web-bench-'));
  const admin = { email: 'admin@bench.example.com', password: `Adm-${randomBytes(6).toString('hex')}` };
  const base = `http://127.0.0.1:${port}`;
  let serverLog = '';
  const server = spawn(process.execPath, [serverEntry], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      WEB_DIST: webDist,
      JWT_SECRET: randomBytes(32).toString('hex'),
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
      DEMO_DATA: 'false',
      LOG_LEVEL: 'warn',
      OUTBOX_POLL_MS: '100',
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout.on('data', (chunk) => (serverLog += chunk));
  server.stderr.on('data', (chunk) => (serverLog += chunk));

  async function shutdown() {
    if (server.exitCode === null && server.signalCode === null) {
      server.kill('SIGTERM');
      await new Promise((resolve) => server.once('exit', resolve));
    }
    await new Promise((resolve) => smtp.close(resolve));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }

  async function call(method, urlPath, body, headers = {}) {
    const response = await fetch(`${base}${urlPath}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${urlPath} answered ${response.status}: ${text}`);
    return text ? JSON.parse(text).data : undefined;
  }
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`the server exited before it was ready:\n${serverLog}`);
    const ready = await fetch(`${base}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) throw new Error(`the server was not ready within 60 s:\n${serverLog}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { base, admin, call, mailLink, shutdown };
}

/**
 * Ingests `protocols` protocols for one patient (over the last 6 months, linked to her account)
 * and as many for one physician (last 7 days, as requester), and activates both accounts.
 */
export async function seedDashboards({ call, admin, mailLink }, protocols) {
  // ---- 500 protocols for one patient and for one physician ----
  const adminToken = (
    await call('POST', '/api/v2/auth/login', { userName: admin.email, password: admin.password, appKey: 'admin' })
  ).accessToken;
  const institution = await call(
    'POST',
    '/api/administrationbe/institution',
    { code: 'BENCH', name: 'Clínica Bench', viewType: 2 },
    { authorization: `Bearer ${adminToken}` },
  );
  const asInstitution = { 'x-api-key': institution.apiKey };
  const patientUser = { email: 'paciente@bench.example.com', password: 'Bench-2026-paciente' };
  const physicianUser = { email: 'medico@bench.example.com', password: 'Bench-2026-medico' };
  const doctor = { identifier: 'MED-1', name: 'Dra. Bench', crm: '77777', uf: 'SP' };
  const daysAgo = (days) => new Date(Date.now() - days * 24 * 3600_000).toISOString();
  const ingest = (number, requestedAt, patient, password) =>
    call(
      'PUT',
      `/api/v2/delivery/ingest/protocols/${number}`,
      {
        password,
        requestedAt,
        patient,
        exams: [1, 2].map((k) => ({
          examKey: `${number}-${k}`,
          description: k === 1 ? 'Hemograma completo' : 'Glicemia de jejum',
          type: k === 1 ? 'HEMOGRAMA' : 'GLI',
          modalityCode: 'LAB',
          modalityName: 'Laboratório',
          requester: doctor,
          status: 'RELEASED',
          performedAt: requestedAt,
          deliveredAt: requestedAt,
        })),
      },
      asInstitution,
    );
  const maria = {
    patientId: 'PAC-BENCH',
    name: 'Maria Bench',
    birthDate: '1984-07-09',
    gender: 'FEMALE',
    email: patientUser.email,
  };
  const started = Date.now();
  const patientNumbers = [];
  // Patient: spread over the last 6 months (the default range of the patient dashboard).
  for (let i = 0; i < protocols; i++) {
    const number = `PB-${String(i).padStart(4, '0')}`;
    patientNumbers.push(number);
    await ingest(number, daysAgo((i * 175) / protocols + 0.01), maria, `senha-${number}`);
  }
  // Physician: spread over the last 7 days, patients of their own (the default physician range).
  for (let i = 0; i < protocols; i++) {
    const number = `MB-${String(i).padStart(4, '0')}`;
    await ingest(
      number,
      daysAgo((i * 6.5) / protocols + 0.01),
      { patientId: `PM-${i % 50}`, name: `Paciente ${i % 50}`, birthDate: '1970-01-20', gender: 'MALE' },
      `senha-${number}`,
    );
  }
  const ingestSeconds = (Date.now() - started) / 1000;

  // The patient's account, activated from its mail, with every protocol linked.
  await call('POST', '/api/v2/auth/user/create', {
    name: maria.name,
    login: patientUser.email,
    confirmEmailAddress: patientUser.email,
    password: patientUser.password,
    confirmPassword: patientUser.password,
    dateOfBirth: '09/07/1984',
    language: 'pt-br',
    serviceTerms: true,
  });
  await fetch(await mailLink(patientUser.email, '/api/v2/auth/user/registerValidate'), { redirect: 'manual' });
  const signInApi = async (user) => {
    const result = await call('POST', '/api/v2/auth/login', {
      userName: user.email,
      password: user.password,
      appKey: 'login',
    });
    const auth = { authorization: `Bearer ${result.accessToken}` };
    // Pending terms would open their acceptance modal over the list.
    const pending = await call('GET', '/api/v2/delivery/term/user', undefined, auth);
    const ids = pending.filter((t) => t.newTerm).map((t) => t.id);
    if (ids.length > 0) await call('POST', '/api/v2/delivery/term/user', { termIds: ids }, auth);
    return { auth, id: result.user.identifier };
  };
  const patientSession = await signInApi(patientUser);
  for (const number of patientNumbers) {
    await call(
      'POST',
      '/api/v2/auth/user/bindProtocol',
      { protocol: number, password: `senha-${number}`, patientUserId: patientSession.id },
      patientSession.auth,
    );
  }
  await call(
    'POST',
    '/api/administrationbe/physician/invite',
    {
      email: physicianUser.email,
      name: doctor.name,
      crm: doctor.crm,
      uf: doctor.uf,
      institutionId: institution.id,
      language: 'pt-br',
    },
    { authorization: `Bearer ${adminToken}` },
  );
  const invite = new URL(await mailLink(physicianUser.email, '/physician/create'));
  await call('POST', '/api/v2/auth/physician/create', {
    token: invite.searchParams.get('token'),
    fullName: doctor.name,
    password: physicianUser.password,
    confirmPassword: physicianUser.password,
    language: 'pt-br',
  });
  await signInApi(physicianUser);
  return { patientUser, physicianUser, ingestSeconds };
}
