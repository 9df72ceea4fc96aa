import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminApi } from './support/admin-api';
import { ARTIFACTS, expectAccessible, launchBrowser, screenshotBothWidths } from './support/browser';
import { ROOT } from './support/build';
import { pdfOfPages, pngOfSize } from './support/files';
import { signIn } from './support/pages';
import { type RunningPortal, startPortal } from './support/portal';
import { daysAgo, ingest, upload } from './support/results-data';

// Reports and images as a patient sees them on a phone: pdf.js draws the report's pages (the
// phone's browser has no PDF viewer inside a page), with zoom, thumbnails and download; images fit
// the screen without being stretched past their pixels, and two fingers zoom and one pans.
const webDist = process.env.WEB_DIST ?? `${ROOT}/apps/web/dist`;

let portal: RunningPortal;
let browser: Browser;
const PROTOCOL = 'P-FONE';
const PASSWORD = 'senha-fone-2026';

beforeAll(async () => {
  portal = await startPortal({ WEB_DIST: webDist });
  browser = await launchBrowser();
  const base = portal.baseUrl;
  const admin = await AdminApi.signedIn(base, portal.admin);
  const institution = await admin.createInstitution({ code: 'FONE', name: 'Clínica Horizonte', viewType: 2 });
  const patient = { patientId: 'PF-1', name: 'Lúcia Amaral', birthDate: '1979-02-14', gender: 'FEMALE' };
  await ingest(base, institution.apiKey, PROTOCOL, {
    password: PASSWORD,
    requestedAt: daysAgo(2),
    patient,
    exams: [
      { key: 'RM1', description: 'Ressonância de joelho', modality: ['MR', 'Ressonância'], performedAt: daysAgo(2) },
      { key: 'RX2', description: 'Raio-X de mão', modality: ['CR', 'Radiografia'], performedAt: daysAgo(2) },
    ],
  });
  const resources = `${PROTOCOL}/exams`;
  await upload(
    base,
    institution.apiKey,
    `${resources}/RM1/resources/RM1-laudo?type=REPORT`,
    'application/pdf',
    pdfOfPages(['Laudo pagina 1: joelho', 'Laudo pagina 2: meniscos', 'Laudo pagina 3: conclusao']),
  );
  await upload(
    base,
    institution.apiKey,
    `${resources}/RM1/resources/RM1-img?type=IMAGE`,
    'image/png',
    pngOfSize(1600, 1200),
  );
  await upload(
    base,
    institution.apiKey,
    `${resources}/RX2/resources/RX2-img?type=IMAGE`,
    'image/png',
    pngOfSize(120, 80),
  );
});

afterAll(async () => {
  await browser?.close();
  await portal?.stop();
});

async function phone(): Promise<Page> {
  const context = await browser.newContext({
    baseURL: portal.baseUrl,
    locale: 'pt-BR',
    timezoneId: 'America/Sao_Paulo',
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    hasTouch: true,
    isMobile: true,
    reducedMotion: 'reduce',
  });
  await context.addInitScript(() => {
    try {
      sessionStorage.setItem('portal.scamWarningSeen', '1');
      localStorage.setItem('portal.cookieConsent', JSON.stringify('accepted'));
    } catch {
      // a frame without storage
    }
  });
  const page = await context.newPage();
  page.on('pageerror', (error) => console.error(`page error on ${page.url()}: ${error.stack ?? error.message}`));
  await signIn(page, PROTOCOL, PASSWORD);
  await page.waitForURL('**/viewprotocol');
  return page;
}

/** Two fingers on `selector`, `from` px apart and then `to` px apart, around a point `high` down its height. */
async function pinch(page: Page, selector: string, from: number, to: number, high = 0.5): Promise<void> {
  const box = await page.locator(selector).boundingBox();
  if (!box) throw new Error(`${selector} is not on screen`);
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height * high;
  const cdp = await page.context().newCDPSession(page);
  const fingers = (gap: number) => [
    { x: cx - gap / 2, y: cy, id: 1 },
    { x: cx + gap / 2, y: cy, id: 2 },
  ];
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: fingers(from) });
  for (let step = 1; step <= 8; step++) {
    await cdp.send('Input.dispatchTouchEvent', {
      type: 'touchMove',
      touchPoints: fingers(from + ((to - from) * step) / 8),
    });
  }
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}

/** The share of a canvas's pixels that are not white: a drawn page has text and a band on it. */
async function inkOn(page: Page, selector: string): Promise<number> {
  return page.locator(selector).evaluate((canvas: HTMLCanvasElement) => {
    const context = canvas.getContext('2d');
    if (!context || canvas.width === 0) return 0;
    const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
    let ink = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i]! < 200 || data[i + 2]! < 200) ink++;
    return ink / (data.length / 4);
  });
}

describe('a report on a phone', () => {
  it('draws the pages with pdf.js, zooms by buttons and two fingers, jumps by thumbnails and downloads', async () => {
    const page = await phone();
    expect(await page.evaluate(() => matchMedia('(pointer: coarse)').matches)).toBe(true);
    // pdf.js is not part of the protocol screen: it arrives when a report opens.
    const scripts = () =>
      page.evaluate(() => performance.getEntriesByType('resource').map((entry) => entry.name.split('/').pop() ?? ''));
    expect((await scripts()).some((name) => /pdf/.test(name))).toBe(false);

    await page.getByRole('button', { name: 'Abrir o laudo de Ressonância de joelho' }).click();
    const viewer = page.getByRole('dialog', { name: 'Ressonância de joelho' });
    await viewer.waitFor();
    const first = '[data-testid="pdf-pages"] canvas[data-canvas-page="1"]';
    await page.locator(`${first}[data-drawn="true"]`).waitFor();
    expect((await scripts()).some((name) => /^pdf\.worker/.test(name))).toBe(true);
    // The page fills the phone's width, inside the screen; its band and text are drawn.
    const pageBox = (await page.locator(first).boundingBox())!;
    expect(pageBox.width).toBeGreaterThan(300);
    expect(pageBox.x + pageBox.width).toBeLessThanOrEqual(390);
    expect(await inkOn(page, first)).toBeGreaterThan(0.03);
    // Sharp on a 2x screen: the canvas has twice the CSS pixels.
    expect(await page.locator(first).evaluate((c: HTMLCanvasElement) => c.width)).toBeGreaterThanOrEqual(
      Math.floor(pageBox.width * 2) - 1,
    );
    await expect.poll(() => viewer.getByTestId('pdf-page-indicator').textContent()).toBe('Página 1 de 3');
    const thumbnails = viewer.getByRole('navigation', { name: 'Páginas do documento' });
    expect(await thumbnails.getByRole('button').count()).toBe(3);
    await page.screenshot({ path: `${ARTIFACTS}/viewer-pdf-phone-390.png` });
    await expectAccessible(page, 'PDF viewer on a phone');

    // Zoom by the buttons: the page grows by a step and is drawn again at the new size.
    await viewer.getByRole('button', { name: 'Ampliar' }).click();
    expect(await viewer.getByTestId('zoom-level').textContent()).toBe('125%');
    await expect
      .poll(async () => Math.round((await page.locator(first).boundingBox())!.width))
      .toBe(Math.round(pageBox.width * 1.25));
    await expect
      .poll(() => page.locator(first).evaluate((c: HTMLCanvasElement) => c.width))
      .toBeGreaterThanOrEqual(Math.floor(pageBox.width * 1.25 * 2) - 2);
    await viewer.getByRole('button', { name: 'Ajustar à largura' }).click();
    expect(await viewer.getByTestId('zoom-level').textContent()).toBe('100%');

    // Two fingers apart zoom the pages in, not the whole app.
    // Around the report's first line, which stays in view.
    await pinch(page, '[data-testid="pdf-pages"]', 80, 200, 0.25);
    const pinched = Number((await viewer.getByTestId('zoom-level').textContent())!.replace('%', ''));
    expect(pinched).toBeGreaterThan(180);
    expect(await page.evaluate(() => window.visualViewport?.scale ?? 1)).toBe(1);
    await expect
      .poll(() => page.locator(first).evaluate((c: HTMLCanvasElement) => c.width))
      .toBeGreaterThanOrEqual(Math.floor(((pageBox.width * pinched) / 100) * 2) - 2);
    expect(await inkOn(page, first)).toBeGreaterThan(0.03);
    await page.screenshot({ path: `${ARTIFACTS}/viewer-pdf-pinched-390.png` });
    await viewer.getByRole('button', { name: 'Ajustar à largura' }).click();

    // A thumbnail jumps to its page, which is drawn and read out as the page in view.
    await thumbnails.getByRole('button', { name: 'Ir para a página 3' }).click();
    await expect.poll(() => viewer.getByTestId('pdf-page-indicator').textContent()).toBe('Página 3 de 3');
    const third = '[data-testid="pdf-pages"] canvas[data-canvas-page="3"]';
    await page.locator(`${third}[data-drawn="true"]`).waitFor();
    expect(await inkOn(page, third)).toBeGreaterThan(0.03);
    expect(await thumbnails.getByRole('button', { name: 'Ir para a página 3' }).getAttribute('aria-current')).toBe(
      'page',
    );

    // Download hands over the file itself.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      viewer.getByRole('button', { name: 'Baixar' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/\.pdf$/);
    await screenshotBothWidths(page, 'viewer-pdf');
    await page.keyboard.press('Escape');
    await viewer.waitFor({ state: 'hidden' });
    await page.context().close();
  });
});

describe('an image on a phone', () => {
  it('fits the screen, never beyond its pixels, and zooms with two fingers and pans with one', async () => {
    const page = await phone();
    await page.getByRole('button', { name: 'Abrir a imagem de Ressonância de joelho' }).click();
    const viewer = page.getByRole('dialog', { name: 'Ressonância de joelho' });
    const image = viewer.getByTestId('viewer-image');
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1600);
    const frame = (await viewer.getByTestId('image-frame').boundingBox())!;
    let box = (await image.boundingBox())!;
    // 1600 x 1200 on a 390 px screen: the whole image, its width filling the frame, proportions kept.
    expect(box.width).toBeLessThanOrEqual(frame.width + 0.5);
    expect(box.height).toBeLessThanOrEqual(frame.height + 0.5);
    expect(Math.abs(box.width - frame.width) < 1 || Math.abs(box.height - frame.height) < 1).toBe(true);
    expect(box.width / box.height).toBeCloseTo(4 / 3, 2);
    await page.screenshot({ path: `${ARTIFACTS}/viewer-image-fit-390.png` });
    await expectAccessible(page, 'image viewer on a phone');

    await pinch(page, '[data-testid="image-frame"]', 60, 180);
    await expect.poll(async () => (await image.boundingBox())!.width).toBeGreaterThan(box.width * 2.5);
    expect(await page.evaluate(() => window.visualViewport?.scale ?? 1)).toBe(1);
    const zoomed = (await image.boundingBox())!;
    // One finger moves the zoomed image; it never leaves a gap at the frame's edge.
    const cdp = await page.context().newCDPSession(page);
    const at = (x: number) => [{ x, y: frame.y + frame.height / 2, id: 1 }];
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: at(frame.x + 100) });
    for (let x = 120; x <= 300; x += 30)
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: at(frame.x + x) });
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    await cdp.detach();
    const panned = (await image.boundingBox())!;
    expect(panned.x).toBeGreaterThan(zoomed.x + 50);
    expect(panned.x).toBeLessThanOrEqual(frame.x + 0.5);
    await page.screenshot({ path: `${ARTIFACTS}/viewer-image-zoomed-390.png` });
    await viewer.getByRole('button', { name: 'Fechar' }).click();
    await viewer.waitFor({ state: 'hidden' });

    // A small image is shown at its own size, not stretched to the screen.
    await page.getByRole('button', { name: 'Abrir a imagem de Raio-X de mão' }).click();
    const small = page.getByRole('dialog', { name: 'Raio-X de mão' }).getByTestId('viewer-image');
    await expect.poll(() => small.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(120);
    box = (await small.boundingBox())!;
    expect(Math.round(box.width)).toBe(120);
    expect(Math.round(box.height)).toBe(80);
    await screenshotBothWidths(page, 'viewer-image-small');
    await page.context().close();
  });
});
