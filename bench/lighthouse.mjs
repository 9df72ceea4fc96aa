// Lighthouse's mobile performance figures (its default mobile settings: a Moto G Power sized
// screen, slow 4G and a 4x slower CPU, simulated) for /login and the patient and physician
// dashboards with a list of protocols each, on the built portal and Debian's Chromium. Printed
// only. Builds nothing: expects apps/web/dist and apps/server/dist.
// Usage: node --import tsx bench/lighthouse.mjs   (LH_RUNS=3, WEB_PROTOCOLS=100, CHROMIUM_PATH=/usr/bin/chromium;
// LH_DETAILS=1 also prints each layout shift's element and the scripts' main-thread time;
// LH_REFERENCE=<another built checkout> measures it too, its runs taking turns with this one's;
// LH_PAGES=login,patient,physician picks the pages)
import os from 'node:os';
import lighthouse from 'lighthouse';
import puppeteer from 'puppeteer-core';
import {
  CHROMIUM_ARGS,
  CHROMIUM_PATH,
  requireBuild,
  seedDashboards,
  signInThroughForm,
  startPortal,
} from './web-portal.ts';

requireBuild();
const RUNS = Number(process.env.LH_RUNS ?? 3);
const PROTOCOLS = Number(process.env.WEB_PROTOCOLS ?? 100);

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

let browser;
const builds = [{ label: '', portal: await startPortal() }];
if (process.env.LH_REFERENCE) {
  builds.unshift({ label: ' (reference)', portal: await startPortal(process.env.LH_REFERENCE) });
}

/** One Lighthouse run on `page`, which stays open (and keeps its session storage). */
async function audit(page, url, keepStorage) {
  const cdp = await page.createCDPSession();
  await cdp.send('Network.clearBrowserCache');
  await cdp.detach();
  const result = await lighthouse(
    url,
    { output: 'json', logLevel: 'error', onlyCategories: ['performance'], disableStorageReset: keepStorage },
    undefined,
    page,
  );
  const { audits, categories, runtimeError } = result.lhr;
  if (runtimeError || categories.performance.score === null) {
    console.log(`  ${url}: run dropped, Lighthouse said ${runtimeError?.code ?? 'no score'}`);
    return null;
  }
  if (process.env.LH_DETAILS) {
    // What moved and what blocked: the elements of each layout shift and the longest tasks.
    for (const item of audits['layout-shifts']?.details?.items ?? []) {
      console.log(`  ${url} shift ${item.score.toFixed(3)}: ${item.node?.selector ?? '?'} ${item.node?.snippet ?? ''}`);
    }
    for (const item of (audits['bootup-time']?.details?.items ?? []).slice(0, 5)) {
      console.log(`  ${url} script ${item.url}: ${Math.round(item.total)} ms`);
    }
    // Where the main thread went (script, style and layout, parsing...) and each long task.
    const work = (audits['mainthread-work-breakdown']?.details?.items ?? []).map(
      (item) => `${item.groupLabel ?? item.group} ${Math.round(item.duration)}`,
    );
    console.log(`  ${url} main thread ms: ${work.join(', ')}`);
    for (const item of audits['long-tasks']?.details?.items ?? []) {
      console.log(
        `  ${url} long task at ${Math.round(item.startTime)} ms: ${Math.round(item.duration)} ms, ${item.url}`,
      );
    }
    // The element Lighthouse took for the largest paint (its audit fails on some Chromium builds).
    const lcpAudit = audits['largest-contentful-paint-element'];
    const lcpItems = lcpAudit?.details?.items ?? [];
    const lcpNode = lcpItems[0]?.items?.[0]?.node ?? lcpItems[0]?.node;
    if (lcpNode) console.log(`  ${url} largest paint: ${lcpNode.selector ?? '?'} ${lcpNode.snippet ?? ''}`);
    else console.log(`  ${url} largest paint: not known (${lcpAudit?.errorMessage?.slice(0, 120) ?? 'no audit'})`);
  }
  return {
    score: Math.round(categories.performance.score * 100),
    fcp: audits['first-contentful-paint'].numericValue,
    lcp: audits['largest-contentful-paint'].numericValue,
    tbt: audits['total-blocking-time'].numericValue,
    cls: audits['cumulative-layout-shift'].numericValue,
    si: audits['speed-index'].numericValue,
    bytes: audits['total-byte-weight'].numericValue,
  };
}

/** A fresh page that has seen the once-per-visit scam warning and the cookie banner. */
async function quietPage() {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.evaluateOnNewDocument(() => {
    sessionStorage.setItem('portal.scamWarningSeen', '1');
    localStorage.setItem('portal.cookieConsent', JSON.stringify('accepted'));
  });
  return { context, page };
}

try {
  browser = await puppeteer.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
  for (const build of builds) build.users = await seedDashboards(build.portal, PROTOCOLS);

  const targets = [
    { key: 'login', label: '/login', path: '/login' },
    { key: 'patient', label: 'patient dashboard', path: '/dashboard/patient/protocols', user: 'patientUser' },
    { key: 'physician', label: 'physician dashboard', path: '/dashboard/physician/protocols', user: 'physicianUser' },
  ].filter((target) => !process.env.LH_PAGES || process.env.LH_PAGES.split(',').includes(target.key));
  const figures = [];
  for (const target of targets) {
    const runs = builds.map(() => []);
    for (let run = 0; run < RUNS; run++) {
      // The builds take turns, so a change in the machine's load weighs on both alike.
      for (const [index, build] of builds.entries()) {
        const url = `${build.portal.base}${target.path}`;
        if (!target.user) {
          // A first visit: Lighthouse clears the origin's storage and cache itself.
          const context = await browser.createBrowserContext();
          const page = await context.newPage();
          const measured = await audit(page, url, false);
          if (measured) runs[index].push(measured);
          await context.close();
          continue;
        }
        const user = build.users[target.user];
        const { context, page } = await quietPage();
        await signInThroughForm(page, build.portal.base, user, target.path);
        const measured = await audit(page, url, true);
        if (measured) runs[index].push(measured);
        await context.close();
      }
    }
    for (const [index, build] of builds.entries())
      figures.push({ label: `${target.label}${build.label}`, runs: runs[index] });
  }

  const load = os.loadavg().map((n) => n.toFixed(2));
  console.log(
    `Lighthouse mobile, ${new Date().toISOString()}, ${os.cpus().length} cores, load average ${load.join(' ')}`,
  );
  console.log(`${RUNS} runs per page, median (min..max); ${PROTOCOLS} protocols in each dashboard's list`);
  const pick = (runs, key) => runs.map((r) => r[key]);
  const cell = (values, format) =>
    `${format(median(values))} (${format(Math.min(...values))}..${format(Math.max(...values))})`;
  const msf = (n) => `${Math.round(n)} ms`;
  console.log('| page | Performance | FCP | LCP | TBT | CLS | Speed Index | bytes |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const { label, runs } of figures) {
    if (runs.length === 0) {
      console.log(`| ${label} | no run completed |`);
      continue;
    }
    console.log(
      `| ${label} | ${cell(pick(runs, 'score'), String)} | ${cell(pick(runs, 'fcp'), msf)} | ` +
        `${cell(pick(runs, 'lcp'), msf)} | ${cell(pick(runs, 'tbt'), msf)} | ` +
        `${cell(pick(runs, 'cls'), (n) => n.toFixed(3))} | ${cell(pick(runs, 'si'), msf)} | ` +
        `${Math.round(median(pick(runs, 'bytes')) / 1024)} KiB |`,
    );
  }
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await browser?.close().catch(() => {});
  for (const build of builds) await build.portal.shutdown();
}
