import type { Browser, Page } from 'playwright-core';
import { newContext } from './browser';

/**
 * A fresh browser context on `path`. With `quiet`, the once-per-visit scam warning and the cookie
 * banner count as already seen (the login journey covers them), so other screens are seen alone.
 */
export async function openPage(browser: Browser, baseUrl: string, path: string, quiet = false): Promise<Page> {
  const context = await newContext(browser, baseUrl);
  if (quiet) {
    await context.addInitScript(() => {
      // Frames without storage (about:blank, a PDF viewer's) have nothing to remember.
      try {
        sessionStorage.setItem('portal.scamWarningSeen', '1');
        localStorage.setItem('portal.cookieConsent', JSON.stringify('accepted'));
      } catch {
        // nothing to mark in such a frame
      }
    });
  }
  const page = await context.newPage();
  // A script error in the app is printed with the journey's output, where a failure is read.
  page.on('pageerror', (error) => console.error(`page error on ${page.url()}: ${error.stack ?? error.message}`));
  await page.goto(path);
  return page;
}

export async function dismissScamWarning(page: Page): Promise<void> {
  const dialog = page.getByRole('dialog', { name: 'Atenção a golpes' });
  await dialog.waitFor();
  await dialog.getByRole('button', { name: 'Entendi' }).click();
  await dialog.waitFor({ state: 'hidden' });
}

/** Signs in through the login form; the caller waits for where the landing sends the user. */
export async function signIn(page: Page, userName: string, password: string): Promise<void> {
  await page.goto('/login');
  await page.getByRole('textbox', { name: /^Protocolo ou e-mail/ }).fill(userName);
  await page.getByLabel(/^Senha/).fill(password);
  await page.getByRole('button', { name: 'Entrar' }).click();
}

/**
 * Reloads `page` with the app's scripts held until `release()` is called: what a slow phone shows
 * before the app's code has arrived.
 */
export async function reloadBeforeCode(page: Page): Promise<{ release: () => void; errors: string[] }> {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  let release = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/assets/*.js', async (route) => {
    await gate;
    await route.continue();
  });
  // The page's module scripts hold DOMContentLoaded back: waiting for the answer alone.
  await page.reload({ waitUntil: 'commit' });
  return { release, errors };
}
