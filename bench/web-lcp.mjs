// Web figures, printed only: largest contentful paint and gzipped JavaScript of /login (cold cache,
// several runs), then LCP and time to an interactive list of the patient and physician dashboards
// with 500 protocols each. Builds nothing: expects apps/web/dist and apps/server/dist.
// Usage: node bench/web-lcp.mjs   (WEB_RUNS=5, WEB_PROTOCOLS=500, CHROMIUM_PATH=/usr/bin/chromium)
/* global window, document, getComputedStyle, requestAnimationFrame */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { simpleParser } from 'mailparser';
import { chromium } from 'playwright-core';
import { SMTPServer } from 'smtp-server';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SERVER_ENTRY = path.join(ROOT, 'apps/server/dist/main.js');
const WEB_DIST = path.resolve(process.env.WEB_DIST ?? path.join(ROOT, 'apps/web/dist'));
const RUNS = Number(process.env.WEB_RUNS ?? 5);
const PROTOCOLS = Number(process.env.WEB_PROTOCOLS ?? 500);
const JS_BUDGET = 250 * 1024;

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
const smtpPort = await new Promise((resolve) => smtp.listen(0, '127.0.0.1', () => resolve(smtp.server.address().port)));

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
const server = spawn(process.execPath, [SERVER_ENTRY], {
  cwd: ROOT,
  env: {
    PATH: process.env.PATH ?? '',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    WEB_DIST,
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

let browser;
async function shutdown() {
  await browser?.close().catch(() => {});
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

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const ms = (n) => `${Math.round(n)} ms`;
const kb = (n) => `${(n / 1024).toFixed(1)} kB`;

// Installed before any script of the page: the LCP entries, and the moment the first row of the
// list is on screen with its "open" link enabled and not covered by anything (a click would land).
function probes() {
  window.__lcp = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.__lcp = Math.max(window.__lcp, entry.startTime);
  }).observe({ type: 'largest-contentful-paint', buffered: true });
  window.__interactive = 0;
  const check = () => {
    const row = document.querySelector('[data-testid="protocol-row"]');
    const action = row?.querySelector('a[href]');
    if (action) {
      const box = action.getBoundingClientRect();
      const x = box.left + box.width / 2;
      const y = box.top + box.height / 2;
      const onScreen = box.width > 0 && box.height > 0 && y >= 0 && y <= window.innerHeight;
      const hit = onScreen ? document.elementFromPoint(x, y) : null;
      if (hit && action.contains(hit) && getComputedStyle(action).pointerEvents !== 'none') {
        window.__interactive = performance.now();
        return;
      }
    }
    requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
}

async function newContext() {
  const context = await browser.newContext({
    baseURL: base,
    locale: 'pt-BR',
    timezoneId: 'America/Sao_Paulo',
    viewport: { width: 1280, height: 900 },
  });
  // The once-per-visit scam warning and the cookie banner would cover the list.
  await context.addInitScript(() => {
    sessionStorage.setItem('portal.scamWarningSeen', '1');
    localStorage.setItem('portal.cookieConsent', JSON.stringify('accepted'));
  });
  await context.addInitScript(probes);
  return context;
}

/** LCP read after the page settles: the observer's last entry is the largest paint. */
async function lcpOf(page) {
  await page.waitForTimeout(300);
  return page.evaluate(() => window.__lcp);
}

try {
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

  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });

  // ---- /login, cold cache each run (a new context has an empty cache) ----
  const loginLcp = [];
  let loginJs = 0;
  let loginJsRaw = 0;
  let loginJsGzip = 0;
  let loginChunks = 0;
  for (let run = 0; run < RUNS; run++) {
    const context = await newContext();
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    const scripts = new Map();
    cdp.on('Network.responseReceived', (e) => {
      if (e.type === 'Script') scripts.set(e.requestId, { url: e.response.url, bytes: 0 });
    });
    cdp.on('Network.loadingFinished', (e) => {
      const script = scripts.get(e.requestId);
      if (script) script.bytes = e.encodedDataLength;
    });
    await page.goto('/login', { waitUntil: 'networkidle' });
    await page.getByRole('button', { name: 'Entrar' }).waitFor();
    loginLcp.push(await lcpOf(page));
    // Transferred bytes include the response headers, a few hundred bytes per chunk.
    loginJs = [...scripts.values()].reduce((sum, s) => sum + s.bytes, 0);
    loginChunks = scripts.size;
    // The same files gzipped here, so the budget holds whether or not the server compresses.
    const files = [...scripts.values()]
      .map((s) => path.join(WEB_DIST, new URL(s.url).pathname))
      .filter((file) => fs.existsSync(file))
      .map((file) => fs.readFileSync(file));
    loginJsRaw = files.reduce((sum, bytes) => sum + bytes.length, 0);
    loginJsGzip = files.reduce((sum, bytes) => sum + gzipSync(bytes, { level: 9 }).length, 0);
    if (process.env.WEB_LIST_CHUNKS && run === 0) {
      for (const s of scripts.values()) console.log(`  ${path.basename(new URL(s.url).pathname)} ${kb(s.bytes)}`);
    }
    await context.close();
  }

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
  for (let i = 0; i < PROTOCOLS; i++) {
    const number = `PB-${String(i).padStart(4, '0')}`;
    patientNumbers.push(number);
    await ingest(number, daysAgo((i * 175) / PROTOCOLS + 0.01), maria, `senha-${number}`);
  }
  // Physician: spread over the last 7 days, patients of their own (the default physician range).
  for (let i = 0; i < PROTOCOLS; i++) {
    const number = `MB-${String(i).padStart(4, '0')}`;
    await ingest(
      number,
      daysAgo((i * 6.5) / PROTOCOLS + 0.01),
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

  // ---- dashboards: sign in through the form, then a cold-cache navigation to the list ----
  const dashboards = [
    { label: 'patient', user: patientUser, target: '/dashboard/patient/protocols' },
    { label: 'physician', user: physicianUser, target: '/dashboard/physician/protocols' },
  ];
  const figures = [];
  for (const dashboard of dashboards) {
    const lcp = [];
    const interactive = [];
    let found = '';
    for (let run = 0; run < RUNS; run++) {
      const context = await newContext();
      const page = await context.newPage();
      await page.goto('/login');
      await page.getByRole('textbox', { name: /^Protocolo ou e-mail/ }).fill(dashboard.user.email);
      await page.getByLabel(/^Senha/).fill(dashboard.user.password);
      await page.getByRole('button', { name: 'Entrar' }).click();
      await page.waitForURL(`**${dashboard.target}`);
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.clearBrowserCache');
      await page.goto(dashboard.target);
      await page.waitForFunction(() => window.__interactive > 0, undefined, { timeout: 60_000 });
      interactive.push(await page.evaluate(() => window.__interactive));
      lcp.push(await lcpOf(page));
      found =
        (await page
          .getByText(/protocolo\(s\) encontrado\(s\)/)
          .first()
          .textContent()) ?? '';
      await context.close();
    }
    figures.push({ ...dashboard, lcp, interactive, found });
  }

  // ---- figures ----
  const load = os.loadavg().map((n) => n.toFixed(2));
  console.log(`Web figures, ${new Date().toISOString()}, ${os.cpus().length} cores, load average ${load.join(' ')}`);
  console.log(`runs per figure: ${RUNS} (cold cache each), median [min..max]`);
  const row = (label, values) =>
    console.log(
      `${label.padEnd(52)} ${ms(median(values)).padStart(8)}  [${ms(Math.min(...values))}..${ms(Math.max(...values))}]`,
    );
  row('/login largest contentful paint', loginLcp);
  console.log(`${'/login JavaScript transferred'.padEnd(52)} ${kb(loginJs).padStart(8)}  (${loginChunks} chunks)`);
  console.log(
    `${'/login JavaScript gzipped'.padEnd(52)} ${kb(loginJsGzip).padStart(8)}  (${kb(loginJsRaw)} raw; ` +
      `budget ${kb(JS_BUDGET)} gzipped: ${loginJsGzip <= JS_BUDGET ? 'met' : 'NOT met'})`,
  );
  console.log(`ingested ${PROTOCOLS * 2} protocols in ${ingestSeconds.toFixed(1)} s`);
  for (const f of figures) {
    console.log(`${f.label} dashboard says: ${f.found}`);
    row(`${f.label} dashboard, ${PROTOCOLS} protocols: LCP`, f.lcp);
    row(`${f.label} dashboard: time to an interactive list`, f.interactive);
  }
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await shutdown();
}
