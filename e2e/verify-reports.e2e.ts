import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, expectFitsNarrowPhone, launchBrowser, screenshotBothWidths } from './support/browser';
import { ROOT } from './support/build';
import { openPage, signIn } from './support/pages';
import { type RunningPortal, startPortal } from './support/portal';
import { pdfWith, signInApi } from './support/results-data';

/**
 * Reports anyone can verify: a guest of the demo clinic opens the signature window of a signed
 * report and reads, in plain words, that the signature is valid, who signed (name, CRM, masked
 * CPF), when, and that the certificate chains up to a trusted root, with the report's
 * verification code; then anyone, signed out, checks the downloaded report on `/validar` with
 * that code, and a changed file and an unknown code are told apart.
 */

const webDist = process.env.WEB_DIST ?? `${ROOT}/apps/web/dist`;
let portal: RunningPortal;
let browser: Browser;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'verify-e2e-'));
const guest = { protocol: '70000401', password: 'demo1234' };
let code = '';
let reportFile = '';

beforeAll(async () => {
  portal = await startPortal({ WEB_DIST: webDist, DEMO_DATA: 'true' });
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await portal?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function waitForDemo(): Promise<void> {
  // The demo loads after the server answers; its guest can sign in once it is there.
  for (let i = 0; i < 240; i++) {
    try {
      await signInApi(portal.baseUrl, guest.protocol, guest.password);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  throw new Error('the demo data did not load');
}

describe('reports anyone can verify', () => {
  it('shows the signature of a signed report in plain words', async () => {
    await waitForDemo();
    const page = await openPage(browser, portal.baseUrl, '/login', true);
    await signIn(page, guest.protocol, guest.password);
    // Listen before the click: the answer can come back before a listener set up after it.
    const verification = page.waitForResponse((r) => r.url().includes('/resource/signature/verification'));
    await page.getByRole('button', { name: 'Verificar assinatura digital' }).click();
    const dialog = page.getByRole('dialog', { name: 'Verificar assinatura digital' });
    const answer = (await (await verification).json()) as { data: { resourceId: string; verificationCode: string } };
    await expect.poll(() => dialog.getByText('Assinatura válida').count()).toBeGreaterThan(0);
    await expect.poll(() => dialog.getByText('Assinado por: FERNANDA LOPES').count()).toBeGreaterThan(0);
    expect(await dialog.getByText('Registro: CRM 98765/SP').count()).toBeGreaterThan(0);
    expect(await dialog.getByText('CPF: ***.533.447-**').count()).toBeGreaterThan(0);
    expect(await dialog.getByText('Certificado de uma autoridade certificadora confiável.').count()).toBeGreaterThan(0);
    expect(await dialog.getByText(/^Data da assinatura: \d{2}\/\d{2}\/\d{4}/).count()).toBeGreaterThan(0);
    code = answer.data.verificationCode;
    expect(code).toMatch(/^[2-9A-Z]{5}-[2-9A-Z]{5}$/);
    expect(await dialog.getByText(code).count()).toBeGreaterThan(0);
    await screenshotBothWidths(page, 'verify-signature-modal');
    await expectAccessible(page, 'the signature window');

    // The report as the guest downloads it.
    const { token } = await signInApi(portal.baseUrl, guest.protocol, guest.password);
    const report = await fetch(
      `${portal.baseUrl}/api/v2/delivery/resource/report?resourceId=${answer.data.resourceId}`,
      {
        headers: { authorization: `Bearer ${token}` },
      },
    );
    expect(report.status).toBe(200);
    reportFile = path.join(tmp, 'laudo.pdf');
    fs.writeFileSync(reportFile, Buffer.from(await report.arrayBuffer()));
    await page.context().close();
  }, 240_000);

  async function check(page: Page, file: string): Promise<void> {
    expect(file, 'the first test downloads the report').not.toBe('');
    await page.locator('input[type="file"]').setInputFiles(file);
    await page.getByRole('button', { name: 'Verificar', exact: true }).click();
  }

  it('lets anyone check the report with its code on /validar, without signing in', async () => {
    const page = await openPage(browser, portal.baseUrl, `/validar?code=${code}`, true);
    await page.getByRole('heading', { name: 'Verificar um laudo', level: 1 }).waitFor();
    expect(await page.getByLabel('Código de verificação').inputValue()).toBe(code);
    await check(page, reportFile);
    await page.getByText('Laudo autêntico').waitFor();
    expect(
      await page.getByText(/^Laudo entregue por Clínica Demonstração em \d{2}\/\d{2}\/\d{4} \(paciente C\. /).count(),
    ).toBe(1);
    expect(await page.getByText('Este arquivo é exatamente o laudo entregue.').count()).toBe(1);
    expect(await page.getByText('Assinatura válida').count()).toBe(1);
    // Initials only: no full patient name on the page.
    expect(await page.locator('body').innerText()).not.toMatch(/Carlos/);
    await screenshotBothWidths(page, 'verify-validar-match');
    await expectAccessible(page, '/validar with an authentic report');
    await expectFitsNarrowPhone(page, '/validar');

    const changed = path.join(tmp, 'alterado.pdf');
    fs.writeFileSync(changed, pdfWith('Laudo alterado'));
    await check(page, changed);
    await page.getByText('O arquivo não é o laudo entregue').waitFor();
    expect(await page.getByText('Laudo autêntico').count()).toBe(0);

    await page.getByLabel('Código de verificação').fill('ZZZZZ-ZZZZZ');
    await check(page, reportFile);
    await page.getByText('Código não encontrado').waitFor();
    await screenshotBothWidths(page, 'verify-validar-unknown');
    await expectAccessible(page, '/validar with an unknown code');
    await page.context().close();
  }, 120_000);

  it('speaks Spanish and English too', async () => {
    const page = await openPage(browser, portal.baseUrl, `/validar?language=es&code=${code}`, true);
    await page.getByRole('heading', { name: 'Verificar un informe', level: 1 }).waitFor();
    await check2(page, 'Archivo del informe', 'Verificar');
    await page.getByText('Informe auténtico').waitFor();
    await page.goto(`/validar?language=en&code=${code}`);
    await page.getByRole('heading', { name: 'Verify a report', level: 1 }).waitFor();
    await check2(page, 'Report file', 'Verify');
    await page.getByText('Authentic report').waitFor();
    expect(await page.getByText('Valid signature').count()).toBe(1);
    await page.context().close();
  }, 60_000);
});

async function check2(page: Page, fileLabel: string, button: string): Promise<void> {
  expect(await page.getByText(fileLabel).count()).toBeGreaterThan(0);
  expect(reportFile, 'the first test downloads the report').not.toBe('');
  await page.locator('input[type="file"]').setInputFiles(reportFile);
  await page.getByRole('button', { name: button, exact: true }).click();
}
