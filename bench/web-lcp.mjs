// Web figures, printed only: largest contentful paint and gzipped JavaScript of /login (cold cache,
// several runs), then LCP and time to an interactive list of the patient and physician dashboards
// with 500 protocols each. Builds nothing: expects apps/web/dist and apps/server/dist.
// Usage: node --import tsx bench/web-lcp.mjs   (WEB_RUNS=5, WEB_PROTOCOLS=500, CHROMIUM_PATH=/usr/bin/chromium)
/* global window, document, getComputedStyle, requestAnimationFrame */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';

import { CHROMIUM_ARGS, CHROMIUM_PATH, WEB_DIST, requireBuild, seedDashboards, startPortal } from './web-portal.ts';

requireBuild();
const RUNS = Number(process.env.WEB_RUNS ?? 5);
const PROTOCOLS = Number(process.env.WEB_PROTOCOLS ?? 500);
const JS_BUDGET = 250 * 1024;

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

let browser;
const { base, call, admin, mailLink, shutdown: stopPortal } = await startPortal();
async function shutdown() {
  await browser?.close().catch(() => {});
  await stopPortal();
}

try {
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });

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

  const { patientUser, physicianUser, ingestSeconds } = await seedDashboards(
    { base, call, admin, mailLink },
    PROTOCOLS,
  );

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
          .getByText(/protocolos? encontrados?/)
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
