import type { Page } from 'playwright-core';
import { expectAccessible, expectFitsNarrowPhone, screenshotBothWidths } from './browser';

/** Signs in to the administration console (`/admin/login`) and waits for its dashboard. */
export async function consoleSignIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/admin/login');
  await page.getByRole('textbox', { name: /^E-mail/ }).fill(email);
  await page.getByLabel(/^Senha/).fill(password);
  await page.getByRole('button', { name: 'Entrar' }).click();
  await page.waitForURL('**/admin/dashboard');
}

/** Follows a link of the console's menu; on a phone it opens the menu first. */
export async function nav(page: Page, name: string): Promise<void> {
  const link = page.getByRole('navigation', { name: 'Menu da administração' }).getByRole('link', { name });
  const burger = page.getByRole('button', { name: 'Abrir ou fechar o menu' });
  // The screen may still be drawing: wait for the menu's link or, on a phone, its button.
  await link.or(burger).first().waitFor();
  if (!(await link.isVisible())) await burger.click();
  await link.click();
}

/** Screenshots at both widths, axe, and no sideways scroll at 360 px: every console screen passes. */
export async function checkScreen(page: Page, name: string): Promise<void> {
  await screenshotBothWidths(page, name);
  await expectAccessible(page, name);
  await expectFitsNarrowPhone(page, name);
}

/** The console's session token, as the app keeps it in the tab. */
export function tokenOf(page: Page): Promise<string> {
  return page.evaluate(
    () => (JSON.parse(sessionStorage.getItem('admin.credentials') ?? '{}') as { token: string }).token,
  );
}

/** The path and query of a mailed link, to open on the portal under test. */
export const pathOf = (link: string): string => {
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
};
