import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fixtureDir,
  makeCtSeries,
  makeUltrasoundClip,
  stowBody,
  testUid,
} from '../apps/server/src/test/dicom-fixtures';
import { ARTIFACTS, expectAccessible, expectFitsNarrowPhone, launchBrowser, WIDTHS } from './support/browser';
import { ROOT } from './support/build';
import { linkIn, type Mailbox, startMailbox } from './support/mailbox';
import { openPage, signIn } from './support/pages';
import { type RunningPortal, startPortal } from './support/portal';
import { call, daysAgo, ingest, registerPhysician, signInApi } from './support/results-data';

const webDist = process.env.WEB_DIST ?? `${ROOT}/apps/web/dist`;

let mailbox: Mailbox;
let portal: RunningPortal;
let browser: Browser;
let dir: string;
const email = 'rita.campos@example.com';
const password = 'Imagem-2026-conta';
const rita = { patientId: 'PAC-CT', name: 'Rita Campos', birthDate: '1966-03-14', gender: 'FEMALE', email };
const physician = { email: 'dra.lia@example.com', password: 'Laudos-2026-lia' };
const crm = { identifier: 'CRM-4455', name: 'Dra. Lia Prado', crm: '4455', uf: 'MG' };
const studyUid = testUid();

beforeAll(async () => {
  // Made first: a minute of dcmtk between two calls would meet the server closing an idle
  // keep-alive connection just as the next request is written.
  dir = fixtureDir();
  const ids = { studyUid, accession: 'TC-TORAX-1', patientName: 'Campos^Rita', patientId: 'PAC-CT' };
  const ct = makeCtSeries(dir, ids, { count: 200, size: 256 });
  const us = makeUltrasoundClip(dir, ids, 16);
  // A series in JPEG-LS, which the browser's decoder does not read: the server decodes it.
  const jls = makeCtSeries(dir, ids, { count: 10, size: 256, syntax: 'jpeg-ls' });
  mailbox = await startMailbox();
  portal = await startPortal({ SMTP_URL: mailbox.url, WEB_DIST: webDist });
  browser = await launchBrowser();
  const base = portal.baseUrl;
  const admin = await call<{ accessToken: string }>(base, 'POST', '/api/v2/auth/login', {
    userName: portal.admin.email,
    password: portal.admin.password,
    appKey: 'admin',
  });
  const institution = await call<{ id: string; apiKey: string }>(
    base,
    'POST',
    '/api/administrationbe/institution',
    { code: 'IMAGEM', name: 'Centro de Imagem Horizonte', viewType: 2 },
    { authorization: `Bearer ${admin.accessToken}` },
  );
  // The study arrives first (as PACS often send it), the protocol after; sent as a PACS
  // forwarder does, some instances per request.
  const files = [...ct.files, us.file, ...jls.files];
  for (let i = 0; i < files.length; i += 50) {
    const { body, contentType } = stowBody(files.slice(i, i + 50).map((f) => fs.readFileSync(f)));
    const stored = await fetch(`${base}/api/dicomweb/studies`, {
      method: 'POST',
      headers: { 'x-api-key': institution.apiKey, 'content-type': contentType },
      body: body.buffer.slice(body.byteOffset, body.byteOffset + body.length) as ArrayBuffer,
    }).catch((error: unknown) => {
      throw new Error(`STOW-RS failed: ${String(error)}\n${portal.output().slice(-4000)}`);
    });
    if (stored.status !== 200) throw new Error(`STOW-RS answered ${stored.status}: ${await stored.text()}`);
  }
  await ingest(base, institution.apiKey, 'IMG-100', {
    password: 'senha-IMG100',
    requestedAt: daysAgo(1),
    patient: rita,
    exams: [
      {
        key: 'TC-TORAX-1',
        description: 'Tomografia de tórax',
        type: 'TC',
        modality: ['CT', 'Tomografia'],
        requester: crm,
        performedAt: daysAgo(1),
      },
    ],
  });
  await call(base, 'POST', '/api/v2/auth/user/create', {
    name: rita.name,
    login: email,
    confirmEmailAddress: email,
    password,
    confirmPassword: password,
    dateOfBirth: '14/03/1966',
    language: 'pt-br',
    serviceTerms: true,
  });
  let mail;
  for (let tries = 0; tries < 200 && !mail; tries++) {
    mail = mailbox.mails.find((m) => (m.text ?? '').includes('/api/v2/auth/user/registerValidate'));
    if (!mail) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!mail) throw new Error('no activation mail arrived');
  await fetch(linkIn(mail, base, '/api/v2/auth/user/registerValidate'), { redirect: 'manual' });
  // The physician who asked for the CT, invited by the institution.
  await registerPhysician(
    base,
    mailbox,
    { authorization: `Bearer ${admin.accessToken}` },
    institution.id,
    physician,
    crm,
  );
  await signInApi(base, physician.email, physician.password); // accepts the terms a first sign-in asks for
  const patient = await signInApi(base, email, password);
  await call(
    base,
    'POST',
    '/api/v2/auth/user/bindProtocol',
    { protocol: 'IMG-100', password: 'senha-IMG100', patientUserId: patient.id },
    { authorization: `Bearer ${patient.token}` },
  );
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await portal?.stop();
  await mailbox?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const viewport = (page: Page) => page.getByTestId('viewport');
const state = async (page: Page) =>
  viewport(page).evaluate((el) => ({
    slice: Number(el.getAttribute('data-slice')),
    count: Number(el.getAttribute('data-count')),
    window: el.getAttribute('data-window'),
    zoom: Number(el.getAttribute('data-zoom')),
    centre: (el.getAttribute('data-centre') ?? '').split(',').map(Number),
  }));
const patient = { email, password, list: '/dashboard/patient/protocols' };
const doctor = { ...physician, list: '/dashboard/physician/protocols' };

/** The way to the CT: sign in, open the protocol, press "Imagem" on the exam. */
async function openStudy(page: Page, user: { email: string; password: string; list: string }): Promise<void> {
  await signIn(page, user.email, user.password);
  await page.waitForURL(`**${user.list}`);
  await page.getByRole('link', { name: 'Abrir o protocolo IMG-100' }).click();
  await page.waitForURL('**/showprotocol?id=*');
  await page.getByRole('img', { name: 'Imagem-chave de Tomografia de tórax' }).waitFor();
  await page.getByTestId('open-study').click();
  await page.waitForURL(`**/study/${studyUid}**`);
  await loaded(page, 200);
}

async function loaded(page: Page, count: number): Promise<void> {
  await page
    .locator(`[data-testid="viewport"][data-loaded="true"][data-count="${count}"]`)
    .waitFor({ timeout: 120_000 });
}

/** The shown image is an image: a spread of grey levels at the centre of the view, not a blank canvas. */
async function greyLevels(page: Page): Promise<number> {
  return viewport(page).evaluate((el) => {
    const canvas = el.querySelector('canvas')!;
    const ctx = canvas.getContext('2d')!;
    const { data } = ctx.getImageData(canvas.width / 4, canvas.height / 4, canvas.width / 2, canvas.height / 2);
    const levels = new Set<number>();
    for (let i = 0; i < data.length; i += 4) levels.add(data[i]!);
    return levels.size;
  });
}

/**
 * What the canvas draws along its middle row and middle column: the places where the grey level
 * jumps (the image's own edges against the black around it, a rib, the lungs' border), in canvas
 * pixels, read from the pixels themselves rather than from dwv's idea of where it drew.
 */
async function edgesThroughCentre(page: Page) {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  return viewport(page).evaluate((el) => {
    const canvas = el.querySelector('canvas')!;
    const ctx = canvas.getContext('2d')!;
    const jumps = (grey: number[]) => {
      const found: number[] = [];
      for (let i = 1; i < grey.length; i++) {
        if (Math.abs(grey[i]! - grey[i - 1]!) >= 30 && found.at(-1) !== i - 1) found.push(i);
      }
      return found;
    };
    const row = ctx.getImageData(0, Math.floor(canvas.height / 2), canvas.width, 1).data;
    const column = ctx.getImageData(Math.floor(canvas.width / 2), 0, 1, canvas.height).data;
    return {
      width: canvas.width,
      height: canvas.height,
      row: jumps(Array.from({ length: canvas.width }, (_, i) => row[i * 4]!)),
      column: jumps(Array.from({ length: canvas.height }, (_, i) => column[i * 4]!)),
    };
  });
}

/**
 * Zoomed by `factor` about the centre of the view: every edge seen before, at a distance d from
 * the centre, is now at factor × d (and every edge seen now came from one seen before). A zoom
 * about any other point moves them all by (factor − 1) × that point's distance from the centre.
 */
function expectZoomedAboutCentre(
  before: Awaited<ReturnType<typeof edgesThroughCentre>>,
  after: Awaited<ReturnType<typeof edgesThroughCentre>>,
  factor: number,
  axes: Array<'row' | 'column'> = ['row', 'column'],
) {
  for (const axis of axes) {
    const size = axis === 'row' ? before.width : before.height;
    const centre = size / 2;
    const inside = (x: number) => x > 6 && x < size - 6;
    const near = (list: number[], x: number) => list.some((e) => Math.abs(e - x) <= 4);
    const forward = before[axis].map((e) => centre + (e - centre) * factor).filter(inside);
    const backward = after[axis].map((e) => centre + (e - centre) / factor).filter(inside);
    const missed = forward.filter((x) => !near(after[axis], x));
    const strays = backward.filter((x) => !near(before[axis], x));
    expect({ axis, missed, strays }).toEqual({ axis, missed: [], strays: [] });
    // Enough edges on either side of the centre for the comparison to mean something.
    expect(forward.filter((x) => x < centre).length).toBeGreaterThanOrEqual(1);
    expect(forward.filter((x) => x > centre).length).toBeGreaterThanOrEqual(1);
  }
}

/** Touch points through the DevTools protocol, as a phone's screen sends them. */
async function touch(
  session: CDPSession,
  type: 'touchStart' | 'touchMove' | 'touchEnd',
  points: Array<[number, number]>,
) {
  await session.send('Input.dispatchTouchEvent', {
    type,
    touchPoints: points.map(([x, y], id) => ({ x, y, id, radiusX: 4, radiusY: 4, force: 1 })),
  });
}

/** Moves fingers from `from` to `to` in steps, as a gesture does. */
async function gesture(session: CDPSession, from: Array<[number, number]>, to: Array<[number, number]>) {
  await touch(session, 'touchStart', from);
  for (let step = 1; step <= 12; step++) {
    await touch(
      session,
      'touchMove',
      from.map(([x, y], i) => [x + ((to[i]![0] - x) * step) / 12, y + ((to[i]![1] - y) * step) / 12]),
    );
  }
  await touch(session, 'touchEnd', []);
}

describe('the DICOM viewer', () => {
  it('opens the CT from the exam, goes to slice 100, applies the lung window and zooms on the centre', async () => {
    const page = await openPage(browser, portal.baseUrl, '/login', true);
    await openStudy(page, patient);
    expect(await state(page)).toMatchObject({ count: 200, window: '400/40' });
    await page.getByTestId('overlay').getByText('Campos Rita').waitFor();
    expect(await greyLevels(page)).toBeGreaterThan(3);

    await page.keyboard.press('Home');
    expect((await state(page)).slice).toBe(1);
    for (let i = 1; i < 100; i++) await page.keyboard.press('ArrowDown');
    expect((await state(page)).slice).toBe(100);
    await page.getByTestId('slice-label').getByText('Imagem 100 de 200').waitFor();

    // The mouse wheel over the image: five notches towards the user are the next five images
    // (as ↓ goes on), five away come back.
    const box = (await viewport(page).boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    for (let i = 0; i < 5; i++) await page.mouse.wheel(0, 120);
    await page.getByTestId('slice-label').getByText('Imagem 105 de 200').waitFor();
    expect((await state(page)).slice).toBe(105);
    for (let i = 0; i < 2; i++) await page.mouse.wheel(0, -120);
    await page.getByTestId('slice-label').getByText('Imagem 103 de 200').waitFor();
    for (let i = 0; i < 3; i++) await page.mouse.wheel(0, -120);
    await page.getByTestId('slice-label').getByText('Imagem 100 de 200').waitFor();
    expect((await state(page)).slice).toBe(100);

    await page.getByTestId('presets').click();
    await page.getByRole('menuitem', { name: /Pulmão/ }).click();
    expect((await state(page)).window).toBe('1500/-600');

    // Zooming keeps the image pixel at the centre of the view where it was: by dwv's account
    // (the image pixel under the centre) and by what the canvas draws (its edges move away from
    // the centre in proportion, the centre itself stays put).
    const before = await state(page);
    expect(before.centre).toHaveLength(2);
    const edgesBefore = await edgesThroughCentre(page);
    await page.getByRole('button', { name: 'Aproximar' }).click();
    await page.getByRole('button', { name: 'Aproximar' }).click();
    const zoomed = await state(page);
    expect(zoomed.zoom).toBeGreaterThan(1.4);
    expect(Math.abs(zoomed.centre[0]! - before.centre[0]!)).toBeLessThanOrEqual(2);
    expect(Math.abs(zoomed.centre[1]! - before.centre[1]!)).toBeLessThanOrEqual(2);
    const edgesZoomed = await edgesThroughCentre(page);
    expectZoomedAboutCentre(edgesBefore, edgesZoomed, zoomed.zoom / before.zoom);
    await page
      .getByTestId('study-viewer')
      .getByText(`Zoom: ${zoomed.zoom.toFixed(2)}×`)
      .waitFor();
    await page.screenshot({ path: `${ROOT}/e2e/artifacts/dicom-viewer-ct-1280.png` });
    // The keyboard's + and − zoom about the centre too.
    await page.keyboard.press('+');
    await expect.poll(async () => (await state(page)).zoom).toBeGreaterThan(zoomed.zoom);
    const plus = await state(page);
    const edgesPlus = await edgesThroughCentre(page);
    expectZoomedAboutCentre(edgesZoomed, edgesPlus, plus.zoom / zoomed.zoom);
    await page.screenshot({ path: `${ROOT}/e2e/artifacts/dicom-viewer-ct-zoom-key-1280.png` });
    await page.keyboard.press('-');
    await page.keyboard.press('-');
    await page.keyboard.press('-');
    await expect.poll(async () => (await state(page)).zoom).toBeLessThan(1);
    const minus = await state(page);
    expectZoomedAboutCentre(edgesPlus, await edgesThroughCentre(page), minus.zoom / plus.zoom);
    expect(Math.abs(minus.centre[0]! - before.centre[0]!)).toBeLessThanOrEqual(2);
    expect(Math.abs(minus.centre[1]! - before.centre[1]!)).toBeLessThanOrEqual(2);
    await page.screenshot({ path: `${ROOT}/e2e/artifacts/dicom-viewer-ct-zoom-out-1280.png` });

    // Keyboard: the next slice and the bone window; the overlay hides and shows again.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('3');
    expect(await state(page)).toMatchObject({ slice: 101, window: '1800/400' });
    await page.keyboard.press('o');
    expect(await page.getByTestId('overlay').count()).toBe(0);
    await page.keyboard.press('o');
    await page.getByTestId('overlay').waitFor();
    await expectAccessible(page, 'DICOM viewer');

    // The JPEG-LS series: decoded by the server, windowed in the browser like any other.
    await page.getByRole('listitem', { name: 'Série 1 CT, 10 imagens' }).click();
    await loaded(page, 10);
    await page.keyboard.press('2');
    expect((await state(page)).window).toBe('1500/-600');
    expect(await greyLevels(page)).toBeGreaterThan(3);
    await page.screenshot({ path: `${ROOT}/e2e/artifacts/dicom-viewer-jpegls-1280.png` });

    await page.context().close();
  }, 300_000);

  it('plays the ultrasound clip frame by frame and pauses it', async () => {
    const page = await openPage(browser, portal.baseUrl, '/login', true);
    await openStudy(page, patient);
    // One instance of 16 frames (JPEG, decoded in the browser): the frames are what scrolls and plays.
    await page.getByRole('listitem', { name: /US, 1 image/ }).click();
    await loaded(page, 16);
    expect(await greyLevels(page)).toBeGreaterThan(3);
    await page.keyboard.press('End');
    expect((await state(page)).slice).toBe(16);
    await page.keyboard.press('Home');
    await page.getByTestId('slice-label').getByText('Imagem 1 de 16').waitFor();
    // The frame as the user reads it, and a print of the picture drawn (a row through the middle).
    const shownFrame = async () =>
      Number(/Imagem (\d+) de 16/.exec(await page.getByTestId('slice-label').innerText())?.[1]);
    const picture = () =>
      viewport(page).evaluate((el) => {
        const canvas = el.querySelector('canvas')!;
        const row = canvas.getContext('2d')!.getImageData(0, Math.floor(canvas.height / 2), canvas.width, 1).data;
        return Array.from({ length: canvas.width / 4 }, (_, i) => row[i * 16]).join(',');
      });

    // Cine: the frames go on by themselves, forwards (starting again after the last), and the
    // picture changes with them. Every frame the label shows is recorded in the page as it
    // changes: samples taken from here could be far apart on a loaded machine.
    await page.getByTestId('slice-label').evaluate((label) => {
      const seen: number[] = [];
      Object.assign(window, { framesSeen: seen });
      new MutationObserver(() => {
        const frame = Number(/Imagem (\d+) de 16/.exec(label.textContent ?? '')?.[1]);
        if (frame && frame !== seen.at(-1)) seen.push(frame);
      }).observe(label, { subtree: true, childList: true, characterData: true });
    });
    const framesSeen = () => page.evaluate(() => (window as unknown as { framesSeen: number[] }).framesSeen);
    await page.getByRole('button', { name: 'Reproduzir' }).click();
    await page.getByRole('button', { name: 'Pausar', pressed: true }).waitFor();
    const pictures = new Set<string>();
    for (let i = 0; i < 30 && (new Set(await framesSeen()).size < 5 || pictures.size < 3); i++) {
      pictures.add(await picture());
      await page.waitForTimeout(150);
    }
    const frames = await framesSeen();
    expect(new Set(frames).size).toBeGreaterThanOrEqual(5);
    expect(pictures.size).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < frames.length; i++) expect((frames[i]! - frames[i - 1]! + 16) % 16).toBeLessThan(8);
    await page.screenshot({ path: `${ROOT}/e2e/artifacts/dicom-viewer-us-cine-1280.png` });

    // Paused: the same frame and the same picture stay on screen.
    await page.getByRole('button', { name: 'Pausar' }).click();
    await page.getByRole('button', { name: 'Reproduzir', pressed: false }).waitFor();
    const paused = await shownFrame();
    const still = await picture();
    await page.waitForTimeout(1000);
    expect(await shownFrame()).toBe(paused);
    expect(await picture()).toBe(still);
    expect((await state(page)).slice).toBe(paused);
    await page.getByRole('button', { name: 'Reproduzir' }).waitFor();
    await page.context().close();
  }, 300_000);

  it('inverts, measures, drags through slices, resets, goes full screen and downloads the study', async () => {
    const page = await openPage(browser, portal.baseUrl, '/login', true);
    await openStudy(page, patient);
    const centrePixel = () =>
      viewport(page).evaluate((el) => {
        const canvas = el.querySelector('canvas')!;
        return canvas.getContext('2d')!.getImageData(canvas.width / 2, canvas.height / 2, 1, 1).data[0]!;
      });
    const grey = await centrePixel();
    await page.getByRole('button', { name: 'Inverter' }).click();
    await expect.poll(async () => Math.abs((await centrePixel()) - (255 - grey))).toBeLessThanOrEqual(8);
    await page.getByRole('button', { name: 'Inverter' }).click();
    await expect.poll(centrePixel).toBe(grey);

    // The scroll tool: dragging the mouse goes through the slices.
    const box = (await viewport(page).boundingBox())!;
    const cx = box.x + box.width / 2;
    const cy = box.y + box.height / 2;
    await page.keyboard.press('Home');
    for (let i = 0; i < 10; i++) await page.keyboard.press('PageDown');
    expect((await state(page)).slice).toBe(101);
    await page.mouse.move(cx, cy - 80);
    await page.mouse.down();
    for (let step = 1; step <= 16; step++) await page.mouse.move(cx, cy - 80 + step * 10);
    await page.mouse.up();
    expect(Math.abs((await state(page)).slice - 101)).toBeGreaterThan(3);

    // Reset: zoom, window and inversion back to how the series opened.
    await page.getByTestId('presets').click();
    await page.getByRole('menuitem', { name: /Pulmão/ }).click();
    await page.getByRole('button', { name: 'Aproximar' }).click();
    await page.getByRole('button', { name: 'Inverter' }).click();
    await expect.poll(async () => (await state(page)).window).toBe('1500/-600');
    expect((await state(page)).zoom).toBeGreaterThan(1.2);
    await page.getByRole('button', { name: 'Restaurar' }).click();
    expect(await state(page)).toMatchObject({ window: '400/40', zoom: 1 });
    await page.getByRole('button', { name: 'Inverter', pressed: false }).waitFor();

    // The ruler: a line drawn by the mouse, its length written beside it.
    const drawn = () =>
      viewport(page).evaluate((el) => {
        let count = 0;
        for (const canvas of Array.from(el.querySelectorAll('canvas')).slice(1)) {
          const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
          for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) count++;
        }
        return count;
      });
    expect(await drawn()).toBe(0);
    await page.getByText('Medir', { exact: true }).click();
    await page.mouse.move(cx - 80, cy);
    await page.mouse.down();
    for (let step = 1; step <= 16; step++) await page.mouse.move(cx - 80 + step * 10, cy + step * 2);
    await page.mouse.up();
    await expect.poll(drawn).toBeGreaterThan(100);
    await page.screenshot({ path: `${ROOT}/e2e/artifacts/dicom-viewer-ruler-1280.png` });
    await page.getByText('Navegar', { exact: true }).click();

    // With the ruler drawn, window and zoom still act on the image; a shortcut works while
    // the tool selector keeps the focus the mouse gave it.
    await page.keyboard.press('3');
    await expect.poll(async () => (await state(page)).window).toBe('1800/400');
    await page.getByTestId('presets').click();
    await page.getByRole('menuitem', { name: /Pulmão/ }).click();
    await expect.poll(async () => (await state(page)).window).toBe('1500/-600');
    await page.getByRole('button', { name: 'Aproximar' }).click();
    await expect.poll(async () => (await state(page)).zoom).toBeGreaterThan(1.2);
    expect(await drawn()).toBeGreaterThan(100);

    await page.getByRole('button', { name: 'Tela cheia' }).click();
    await expect
      .poll(() =>
        page.evaluate(
          () => document.fullscreenElement?.contains(document.querySelector('[data-testid="viewport"]')) ?? false,
        ),
      )
      .toBe(true);
    await page.screenshot({ path: `${ROOT}/e2e/artifacts/dicom-viewer-fullscreen-1280.png` });
    await page.keyboard.press('f');
    await expect.poll(() => page.evaluate(() => document.fullscreenElement === null)).toBe(true);

    // The whole study as a zip: a DICOMDIR and every instance.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Baixar estudo (DICOM)' }).click(),
    ]);
    const zip = `${dir}/estudo.zip`;
    await download.saveAs(zip);
    const listing = execFileSync('unzip', ['-l', zip], { encoding: 'utf8' });
    expect(listing).toMatch(/\bDICOMDIR\b/);
    expect(Number(/(\d+) files/.exec(listing)?.[1])).toBe(200 + 1 + 10 + 1);
    await page.context().close();
  }, 300_000);

  it('the requesting physician opens the same CT at 1280 px', async () => {
    const page = await openPage(browser, portal.baseUrl, '/login', true);
    await openStudy(page, doctor);
    await page.keyboard.press('End');
    expect((await state(page)).slice).toBe(200);
    await page.screenshot({ path: `${ROOT}/e2e/artifacts/dicom-viewer-physician-1280.png` });
    await expectAccessible(page, 'DICOM viewer (physician)');
    await page.context().close();
  }, 300_000);

  for (const user of [patient, doctor]) {
    it(`on a 390 px phone (${user === patient ? 'patient' : 'physician'}): a swipe scrolls, a pinch zooms, two fingers pan`, async () => {
      const phone = await browser.newContext({
        baseURL: portal.baseUrl,
        locale: 'pt-BR',
        timezoneId: 'America/Sao_Paulo',
        viewport: { width: WIDTHS.phone, height: 844 },
        hasTouch: true,
        isMobile: true,
        reducedMotion: 'reduce',
      });
      await phone.addInitScript(() => {
        sessionStorage.setItem('portal.scamWarningSeen', '1');
        localStorage.setItem('portal.cookieConsent', JSON.stringify('accepted'));
      });
      const page = await phone.newPage();
      await page.goto('/login');
      await openStudy(page, user);
      // Nothing wider than the phone: the header keeps its download within the screen.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(WIDTHS.phone);
      const download = page.getByRole('button', { name: 'Baixar estudo (DICOM)' });
      const downloadBox = (await download.boundingBox())!;
      expect(downloadBox.x + downloadBox.width).toBeLessThanOrEqual(WIDTHS.phone);
      const box = (await viewport(page).boundingBox())!;
      expect(box.width).toBeLessThanOrEqual(WIDTHS.phone);
      const cx = box.x + box.width / 2;
      const cy = box.y + box.height / 2;
      const session = await phone.newCDPSession(page);

      // One finger up 120 px: ten slices on.
      const start = (await state(page)).slice;
      await gesture(session, [[cx, cy + 60]], [[cx, cy - 60]]);
      await page
        .getByTestId('slice-label')
        .getByText(`Imagem ${start + 10} de 200`)
        .waitFor();
      expect((await state(page)).slice).toBe(start + 10);
      // And down again: back.
      await gesture(session, [[cx, cy - 60]], [[cx, cy + 60]]);
      await page.getByTestId('slice-label').getByText(`Imagem ${start} de 200`).waitFor();
      expect((await state(page)).slice).toBe(start);

      // The lung window, chosen with a tap, shows the air around the body as grey, not black.
      await page.getByTestId('presets').tap();
      await page.getByRole('menuitem', { name: /Pulmão/ }).tap();
      await expect.poll(async () => (await state(page)).window).toBe('1500/-600');

      // Two fingers apart: the zoom grows about the point between them (here the centre), as
      // the zoom reads under the image and as the picture's edges show.
      const before = await state(page);
      const edgesBefore = await edgesThroughCentre(page);
      await gesture(
        session,
        [
          [cx - 30, cy],
          [cx + 30, cy],
        ],
        [
          [cx - 90, cy],
          [cx + 90, cy],
        ],
      );
      const pinched = await state(page);
      expect(pinched.zoom).toBeGreaterThan(2.5);
      await page
        .getByTestId('study-viewer')
        .getByText(`Zoom: ${pinched.zoom.toFixed(2)}×`)
        .waitFor();
      // Along the middle column only: the phantom's middle row has no edge close enough to the
      // centre to stay in view at this zoom; across, dwv's account of the centre pixel answers.
      expectZoomedAboutCentre(edgesBefore, await edgesThroughCentre(page), pinched.zoom / before.zoom, ['column']);
      expect(Math.abs(pinched.centre[0]! - before.centre[0]!)).toBeLessThanOrEqual(3);
      expect(Math.abs(pinched.centre[1]! - before.centre[1]!)).toBeLessThanOrEqual(3);
      expect(pinched.slice).toBe(before.slice);

      // Two fingers dragged together: the image moves with them, the zoom stays.
      await gesture(
        session,
        [
          [cx - 40, cy],
          [cx + 40, cy],
        ],
        [
          [cx + 20, cy + 40],
          [cx + 100, cy + 40],
        ],
      );
      const panned = await state(page);
      expect(panned.zoom).toBeCloseTo(pinched.zoom, 1);
      // The image moved right and down: the pixel now at the centre lies up and left of the last one.
      expect(panned.centre[0]!).toBeLessThan(pinched.centre[0]! - 10);
      expect(panned.centre[1]!).toBeLessThan(pinched.centre[1]! - 5);
      expect(panned.slice).toBe(before.slice);

      const name = user === patient ? 'ct' : 'physician';
      await page.screenshot({ path: `${ROOT}/e2e/artifacts/dicom-viewer-${name}-390.png` });
      await expectAccessible(page, `DICOM viewer on a phone (${name})`);

      // A 360 px phone: nothing scrolls sideways, and the header's back button, title and
      // download (an icon with its name) all sit within the screen.
      await expectFitsNarrowPhone(page, `the DICOM viewer (${name})`);
      await page.setViewportSize({ width: 360, height: 740 });
      const title = page.getByRole('heading', { level: 1, name: 'Tomografia de tórax' });
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      const back = (await page.getByRole('button', { name: 'Voltar', exact: true }).boundingBox())!;
      const titleBox = (await title.boundingBox())!;
      const narrowDownload = (await download.boundingBox())!;
      expect(back.x).toBeGreaterThanOrEqual(0);
      expect(narrowDownload.x + narrowDownload.width).toBeLessThanOrEqual(360);
      expect(titleBox.x).toBeGreaterThanOrEqual(back.x + back.width);
      expect(titleBox.x + titleBox.width).toBeLessThanOrEqual(narrowDownload.x);
      // The whole title is read, not cut short with an ellipsis.
      expect(await title.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
      // The header is one row: the download sits beside the title, not below it.
      expect(Math.abs(narrowDownload.y + narrowDownload.height / 2 - (titleBox.y + titleBox.height / 2))).toBeLessThan(
        8,
      );
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await page.screenshot({ path: `${ARTIFACTS}/dicom-viewer-${name}-360.png` });
      await page.setViewportSize({ width: WIDTHS.phone, height: 844 });
      await phone.close();
    }, 300_000);
  }
});
