import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fixtureDir,
  makeCtSeries,
  makeUltrasoundClip,
  stowBody,
  testUid,
} from '../apps/server/src/test/dicom-fixtures';
import { expectAccessible, launchBrowser, WIDTHS } from './support/browser';
import { ROOT } from './support/build';
import { linkIn, type Mailbox, startMailbox } from './support/mailbox';
import { openPage, signIn } from './support/pages';
import { type RunningPortal, startPortal } from './support/portal';
import { call, daysAgo, ingest, signInApi } from './support/results-data';

const webDist = process.env.WEB_DIST ?? `${ROOT}/apps/web/dist`;

let mailbox: Mailbox;
let portal: RunningPortal;
let browser: Browser;
let dir: string;
const email = 'rita.campos@example.com';
const password = 'Imagem-2026-conta';
const rita = { patientId: 'PAC-CT', name: 'Rita Campos', birthDate: '1966-03-14', gender: 'FEMALE', email };
const studyUid = testUid();

beforeAll(async () => {
  // Made first: a minute of dcmtk between two calls would meet the server closing an idle
  // keep-alive connection just as the next request is written.
  dir = fixtureDir();
  const ids = { studyUid, accession: 'TC-TORAX-1', patientName: 'Campos^Rita', patientId: 'PAC-CT' };
  const ct = makeCtSeries(dir, ids, { count: 200, size: 256 });
  const us = makeUltrasoundClip(dir, ids, 16);
  mailbox = await startMailbox();
  portal = await startPortal({ SMTP_URL: mailbox.url, WEB_DIST: webDist });
  browser = await launchBrowser();
  const base = portal.baseUrl;
  const admin = await call<{ accessToken: string }>(base, 'POST', '/api/v2/auth/login', {
    userName: portal.admin.email,
    password: portal.admin.password,
    appKey: 'admin',
  });
  const institution = await call<{ apiKey: string }>(
    base,
    'POST',
    '/api/administrationbe/institution',
    { code: 'IMAGEM', name: 'Centro de Imagem Horizonte', viewType: 2 },
    { authorization: `Bearer ${admin.accessToken}` },
  );
  // The study arrives first (as PACS often send it), the protocol after; sent as a PACS
  // forwarder does, some instances per request.
  const files = [...ct.files, us.file];
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
  }));

/** The patient's way to the CT: sign in, open the protocol, press "Imagem" on the exam. */
async function openStudy(page: Page): Promise<void> {
  await signIn(page, email, password);
  await page.waitForURL('**/dashboard/patient/protocols');
  await page.getByRole('link', { name: 'Abrir o protocolo IMG-100' }).click();
  await page.waitForURL('**/dashboard/patient/showprotocol?id=*');
  await page.getByRole('img', { name: 'Imagem-chave de Tomografia de tórax' }).waitFor();
  await page.getByTestId('open-study').click();
  await page.waitForURL(`**/study/${studyUid}**`);
  await page.locator('[data-testid="viewport"][data-loaded="true"]').waitFor({ timeout: 120_000 });
}

describe('the DICOM viewer', () => {
  it('opens the CT from the exam, goes to slice 100, applies the lung window and zooms', async () => {
    const page = await openPage(browser, portal.baseUrl, '/login', true);
    await openStudy(page);
    expect(await state(page)).toMatchObject({ count: 200, window: '400/40' });
    await page.getByTestId('overlay').getByText('Campos Rita').waitFor();

    await page.keyboard.press('Home');
    expect((await state(page)).slice).toBe(1);
    for (let i = 1; i < 100; i++) await page.keyboard.press('ArrowDown');
    expect((await state(page)).slice).toBe(100);
    await page.getByTestId('slice-label').getByText('Imagem 100 de 200').waitFor();

    await page.getByTestId('presets').click();
    await page.getByRole('menuitem', { name: /Pulmão/ }).click();
    expect((await state(page)).window).toBe('1500/-600');

    await page.getByRole('button', { name: 'Aproximar' }).click();
    await page.getByRole('button', { name: 'Aproximar' }).click();
    expect((await state(page)).zoom).toBeGreaterThan(1.4);
    await page.screenshot({ path: `${ROOT}/e2e/artifacts/dicom-viewer-ct-1280.png` });

    // Keyboard: the next slice and the bone window; the overlay hides and shows again.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('3');
    expect(await state(page)).toMatchObject({ slice: 101, window: '1800/400' });
    await page.keyboard.press('o');
    expect(await page.getByTestId('overlay').count()).toBe(0);
    await page.keyboard.press('o');
    await page.getByTestId('overlay').waitFor();
    await expectAccessible(page, 'DICOM viewer');
  }, 300_000);

  it('opens on a 390 px phone with touch, and the lung window is a tap away', async () => {
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
    await openStudy(page);
    expect((await state(page)).count).toBe(200);
    await page.getByTestId('presets').tap();
    await page.getByRole('menuitem', { name: /Pulmão/ }).tap();
    expect((await state(page)).window).toBe('1500/-600');
    await page.getByRole('button', { name: 'Aproximar' }).tap();
    expect((await state(page)).zoom).toBeGreaterThan(1.1);
    const box = await viewport(page).boundingBox();
    expect(box!.width).toBeLessThanOrEqual(WIDTHS.phone);
    await page.screenshot({ path: `${ROOT}/e2e/artifacts/dicom-viewer-ct-390.png` });
    await phone.close();
  }, 300_000);
});
