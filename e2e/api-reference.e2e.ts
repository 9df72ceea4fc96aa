import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newContext, screenshotBothWidths } from './support/browser';
import { type RunningPortal, startPortal } from './support/portal';

let portal: RunningPortal;
let browser: Browser;

beforeAll(async () => {
  portal = await startPortal();
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await portal?.stop();
});

describe('API reference (contract 9)', () => {
  it('lists the operations by tag from files of the portal itself, and shows an example', async () => {
    const context = await newContext(browser, portal.baseUrl);
    const page = await context.newPage();
    const problems: string[] = [];
    const elsewhere: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.protocol !== 'data:' && url.origin !== portal.baseUrl) elsewhere.push(request.url());
    });

    await page.goto('/api/docs');
    expect(await page.title()).toBe('Results portal API reference');
    await page
      .getByRole('heading', { name: /Results portal API/ })
      .first()
      .waitFor();
    // Every tag of the document is listed, folded; a tag opens onto its operations.
    const tags = page.locator('.opblock-tag');
    await tags.first().waitFor();
    await expect.poll(() => tags.count(), { timeout: 20_000 }).toBeGreaterThanOrEqual(13);
    const operations = page.locator('.opblock');
    for (const tag of ['Ingest', 'HL7', 'FHIR R4', 'Sign-in', 'Results', 'Administration']) {
      const before = await operations.count();
      await page.locator(`.opblock-tag[data-tag="${tag}"]`).click();
      await expect.poll(() => operations.count(), { timeout: 10_000 }).toBeGreaterThan(before);
    }
    expect(await operations.count()).toBeGreaterThan(60);

    const login = page.locator('.opblock', { hasText: '/api/v2/auth/login' }).first();
    expect(await login.textContent()).toContain('Sign in (account e-mail, CPF or protocol number)');
    await login.locator('.opblock-summary').first().click();
    await login.getByText('maria.souza@example.com').first().waitFor();
    expect(await login.textContent()).toContain('Invalid username or password!');

    await screenshotBothWidths(page, 'api-reference');
    expect(problems).toEqual([]);
    expect(elsewhere).toEqual([]);
    await context.close();
  });
});
