// Where a dashboard's load spends the main thread: a CPU profile of one patient's or physician's
// dashboard opened right after sign-in (the browser cache cleared), with the CPU 4 times slower as
// Lighthouse's mobile settings simulate, summed by function (self time) and by script, and the
// page's tasks over 50 ms with the frames they spent most in, its long tasks and its largest
// contentful paints (time, size, element). Printed only. Best on an unminified build
// (`vite build --minify false`) for names: WEB_PROFILE_ROOT=<a checkout holding that build>
// (default: this one). PROFILE_TRACE=<file> also writes a Chromium trace of the load.
// Usage: PROFILE_PAGE=patient|physician node --import tsx bench/web-profile.mjs
/* global document, window */
import puppeteer from 'puppeteer-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH, seedDashboards, signInThroughForm, startPortal } from './web-portal.ts';

const PAGE = process.env.PROFILE_PAGE ?? 'patient';
const TOP = Number(process.env.PROFILE_TOP ?? 30);
const portal = await startPortal(process.env.WEB_PROFILE_ROOT);
const browser = await puppeteer.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
try {
  const users = await seedDashboards(portal, Number(process.env.WEB_PROTOCOLS ?? 100));
  const user = PAGE === 'patient' ? users.patientUser : users.physicianUser;
  const target = `/dashboard/${PAGE}/protocols`;
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.evaluateOnNewDocument(() => {
    sessionStorage.setItem('portal.scamWarningSeen', '1');
    localStorage.setItem('portal.cookieConsent', JSON.stringify('accepted'));
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push([Math.round(e.startTime), Math.round(e.duration)]);
    }).observe({ type: 'longtask', buffered: true });
    window.__paints = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const el = e.element;
        const what = el
          ? `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} "${(el.textContent ?? '').slice(0, 40)}"`
          : '(removed)';
        window.__paints.push(`${Math.round(e.startTime)} ms, ${e.size} px: ${what}`);
      }
    }).observe({ type: 'largest-contentful-paint', buffered: true });
  });
  await signInThroughForm(page, portal.base, user, target);

  const cdp = await page.createCDPSession();
  await cdp.send('Network.clearBrowserCache');
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  if (process.env.PROFILE_TRACE)
    await page.tracing.start({
      path: process.env.PROFILE_TRACE,
      categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'],
    });
  await page.goto(`${portal.base}${target}`);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid^="protocol-"], tbody tr').length > 3, {
    timeout: 60_000,
  });
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const { profile } = await cdp.send('Profiler.stop');
  if (process.env.PROFILE_TRACE) await page.tracing.stop();
  const longTasks = await page.evaluate(() => window.__longTasks);
  console.log(`largest contentful paints:\n  ${(await page.evaluate(() => window.__paints)).join('\n  ')}`);

  // Self time per function and per script, from the samples' time deltas.
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]);
    self.set(node.id, (self.get(node.id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const byFunction = new Map();
  const byScript = new Map();
  for (const [id, micros] of self) {
    const { callFrame } = byId.get(id);
    const file = callFrame.url.replace(/^.*\//, '') || '(native)';
    const name = `${callFrame.functionName || '(anonymous)'} ${file}:${callFrame.lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
    byScript.set(file, (byScript.get(file) ?? 0) + micros);
  }
  const print = (title, map, top) => {
    console.log(title);
    for (const [name, micros] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top))
      console.log(`  ${(micros / 1000).toFixed(1).padStart(8)} ms  ${name}`);
  };
  // The profile's tasks: runs of samples between idle ones, each longer than 50 ms told with the
  // frames it spent most in (inclusive, React's and the browser's own left out) and its first stack.
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const frameName = (n) => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\//, '')}`;
  const tasks = [];
  let task = null;
  let at = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    const node = byId.get(profile.samples[i]);
    if (node.callFrame.functionName === '(idle)') {
      if (task) tasks.push(task);
      task = null;
      continue;
    }
    task ??= { start: at, micros: 0, inclusive: new Map() };
    task.micros += delta;
    const seen = new Set();
    for (let id = node.id; id !== undefined; id = parent.get(id)) {
      const n = byId.get(id);
      if (!n.callFrame.url || /react-|pptr:/.test(n.callFrame.url)) continue;
      const name = frameName(n);
      if (seen.has(name)) continue;
      seen.add(name);
      task.inclusive.set(name, (task.inclusive.get(name) ?? 0) + delta);
    }
  }
  if (task) tasks.push(task);
  console.log('tasks over 50 ms (profile time, CPU 4x slower):');
  for (const t of tasks.filter((x) => x.micros > 50_000)) {
    const top = [...t.inclusive]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([name, micros]) => `${name} ${(micros / 1000).toFixed(0)}`);
    console.log(`  at ${(t.start / 1000).toFixed(0)} ms: ${(t.micros / 1000).toFixed(0)} ms; ${top.join(' | ')}`);
  }
  const busy = [...byFunction].filter(([name]) => !name.startsWith('(idle)')).reduce((sum, [, m]) => sum + m, 0);
  const js = [...byScript].filter(([file]) => file !== '(native)').reduce((sum, [, m]) => sum + m, 0);
  console.log(`main thread busy ${(busy / 1000).toFixed(0)} ms, of which scripts ${(js / 1000).toFixed(0)} ms`);
  print('self time by script (CPU 4x slower):', byScript, 15);
  print(`self time by function, top ${TOP}:`, byFunction, TOP);
  console.log(`long tasks [start, duration] ms: ${JSON.stringify(longTasks)}`);
  console.log(`blocking beyond 50 ms each: ${longTasks.reduce((s, [, d]) => s + Math.max(0, d - 50), 0)} ms`);
} finally {
  await browser.close();
  await portal.shutdown();
}
