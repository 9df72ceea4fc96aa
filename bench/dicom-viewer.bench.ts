// The DICOM viewer, figures only: for a 200-slice CT (256×256, 16 bits) sent by STOW-RS to the
// built portal on localhost, the time from pressing "Imagem" to the first rendered slice and to all
// slices loaded, and the slices per second while scrolling; beside them, in the same run, the
// time the same page takes to fetch the 200 files itself (network and server alone) and the
// page's idle frame rate (the ceiling of any scrolling). Several guests, each its own protocol.
// Usage: node --import tsx bench/dicom-viewer.bench.ts   (DICOM_RUNS=3, CHROMIUM_PATH=/usr/bin/chromium)
/* global window, document, requestAnimationFrame, KeyboardEvent, fetch, sessionStorage, localStorage */
import fs from 'node:fs';
import { chromium } from 'playwright-core';
import { fixtureDir, makeCtSeries, stowBody, testUid } from '../apps/server/src/test/dicom-fixtures.js';
import { ingest } from '../e2e/support/results-data.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH, requireBuild, startPortal } from './web-portal.js';

requireBuild();
const RUNS = Number(process.env.DICOM_RUNS ?? 3);
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

// The files are made before the portal starts: a minute of dcmtk between two calls would meet
// the server closing an idle keep-alive connection just as the next request is written.
const dir = fixtureDir();
const studies = Array.from({ length: RUNS }, (_, g) => {
  const studyUid = testUid();
  const ct = makeCtSeries(
    dir,
    { studyUid, accession: `ACC-${g + 1}`, patientName: `Bench^${g + 1}` },
    { count: 200, size: 256 },
  );
  return { studyUid, files: ct.files };
});
const portal = await startPortal();
try {
  const adminToken = (
    await portal.call<{ accessToken: string }>('POST', '/api/v2/auth/login', {
      userName: portal.admin.email,
      password: portal.admin.password,
      appKey: 'admin',
    })
  ).accessToken;
  const institution = await portal.call<{ apiKey: string }>(
    'POST',
    '/api/administrationbe/institution',
    { code: 'BENCHIMG', name: 'Imagem Bench', viewType: 2 },
    { authorization: `Bearer ${adminToken}` },
  );
  const guests: Array<{ number: string; password: string; studyUid: string }> = [];
  const made = Date.now();
  for (let g = 0; g < RUNS; g++) {
    const number = `CT-${g + 1}`;
    const { studyUid, files } = studies[g]!;
    const { body, contentType } = stowBody(files.map((f) => fs.readFileSync(f)));
    const stow = await fetch(`${portal.base}/api/dicomweb/studies`, {
      method: 'POST',
      headers: { 'x-api-key': institution.apiKey, 'content-type': contentType },
      body: body.buffer.slice(body.byteOffset, body.byteOffset + body.length) as ArrayBuffer,
    });
    if (stow.status !== 200) throw new Error(`STOW-RS answered ${stow.status}`);
    await ingest(portal.base, institution.apiKey, number, {
      password: `senha-${number}`,
      requestedAt: new Date().toISOString(),
      patient: { patientId: `B${g}`, name: `Paciente Bench ${g + 1}`, birthDate: '1970-01-01', gender: 'FEMALE' },
      exams: [
        {
          key: `ACC-${g + 1}`,
          description: 'Tomografia de tórax',
          type: 'TC',
          modality: ['CT', 'Tomografia'],
          performedAt: new Date().toISOString(),
        },
      ],
    });
    guests.push({ number, password: `senha-${number}`, studyUid });
  }
  console.log(`${RUNS} studies of 200 slices stored in ${Date.now() - made} ms`);

  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const rows: Array<Record<string, number>> = [];
  for (const guest of guests) {
    const context = await browser.newContext({
      baseURL: portal.base,
      locale: 'pt-BR',
      viewport: { width: 1280, height: 900 },
    });
    await context.addInitScript(() => {
      // tsx names the functions this script sends to the page through a helper of its own.
      (window as unknown as { __name: (f: unknown) => unknown }).__name = (f) => f;
      sessionStorage.setItem('portal.scamWarningSeen', '1');
      localStorage.setItem('portal.cookieConsent', JSON.stringify('accepted'));
    });
    const page = await context.newPage();
    await page.goto('/login');
    await page.getByRole('textbox', { name: /^Protocolo ou e-mail/ }).fill(guest.number);
    await page.getByLabel(/^Senha/).fill(guest.password);
    await page.getByRole('button', { name: 'Entrar' }).click();
    const open = page.getByTestId('open-study');
    await open.waitFor({ timeout: 60_000 });

    const clicked = Date.now();
    await open.click();
    await page.locator('[data-testid="viewport"][data-rendered="true"]').waitFor({ timeout: 120_000 });
    const firstSlice = Date.now() - clicked;
    await page.locator('[data-testid="viewport"][data-loaded="true"]').waitFor({ timeout: 300_000 });
    const allSlices = Date.now() - clicked;

    // Scrolling: 150 slices, each step waiting for the frame that paints it.
    const scroll = await page.evaluate(async () => {
      const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
      const viewport = document.querySelector('[data-testid="viewport"]')!;
      const start = performance.now();
      let steps = 0;
      for (let i = 0; i < 150; i++) {
        window.dispatchEvent(new KeyboardEvent('keydown', { key: i < 100 ? 'ArrowDown' : 'ArrowUp' }));
        await frame();
        steps++;
      }
      const elapsed = performance.now() - start;
      const idleStart = performance.now();
      for (let i = 0; i < 150; i++) await frame();
      const idle = performance.now() - idleStart;
      return {
        fps: (steps * 1000) / elapsed,
        idleFps: (150 * 1000) / idle,
        slice: viewport.getAttribute('data-slice'),
      };
    });

    // Reference: the same 200 files fetched by the page itself, 12 at a time (the viewer's batch).
    const fetchAll = await page.evaluate(async (studyUid) => {
      const token = JSON.parse(sessionStorage.getItem('portal.credentials') ?? '{}').token as string;
      const headers = { authorization: `Bearer ${token}`, accept: 'application/dicom+json' };
      const list = (await (await fetch(`/api/dicomweb/studies/${studyUid}/instances`, { headers })).json()) as Array<
        Record<string, { Value: string[] }>
      >;
      const urls = list.map((i) => i['00081190']!.Value[0]!.replace(/^https?:\/\/[^/]+/, ''));
      const start = performance.now();
      for (let i = 0; i < urls.length; i += 12) {
        await Promise.all(
          urls
            .slice(i, i + 12)
            .map((u) =>
              fetch(u, { headers: { ...headers, accept: 'application/dicom' } }).then((r) => r.arrayBuffer()),
            ),
        );
      }
      return performance.now() - start;
    }, guest.studyUid);
    rows.push({ firstSlice, allSlices, fps: scroll.fps, idleFps: scroll.idleFps, fetchAll });
    await context.close();
  }
  await browser.close();

  const f = (key: string) => median(rows.map((r) => r[key]!));
  console.log(
    `\nDICOM viewer, 200-slice CT (256×256×16 bit, ${(200 * 131).toLocaleString('en')} kB), median of ${RUNS} guests`,
  );
  console.log(`  click "Imagem" → first slice rendered   ${Math.round(f('firstSlice'))} ms`);
  console.log(`  click "Imagem" → all 200 slices loaded  ${Math.round(f('allSlices'))} ms`);
  console.log(`  reference: the page fetching the 200 files itself, 12 at a time   ${Math.round(f('fetchAll'))} ms`);
  console.log(`  scrolling: slices per second (one painted frame each)   ${f('fps').toFixed(1)}`);
  console.log(`  reference: idle frame rate of the same page              ${f('idleFps').toFixed(1)}`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
  await portal.shutdown();
}
