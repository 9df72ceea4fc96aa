import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectAccessible,
  expectFitsNarrowPhone,
  launchBrowser,
  newContext,
  screenshotBothWidths,
} from './support/browser';
import { dismissScamWarning, openPage } from './support/pages';
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

/** A fresh browser context (no stored language, consent or session) on `path`. */
const open = (path: string): Promise<Page> => openPage(browser, portal.baseUrl, path);

describe('login screen', () => {
  it('warns against scams on the first visit, and the warning is accessible', async () => {
    const page = await open('/login');
    const dialog = page.getByRole('dialog', { name: 'Atenção a golpes' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('Não pague por exames entregues em casa');
    await expectAccessible(page, '/login with the scam warning');
    // The modal's own header is no second banner: the page keeps exactly one.
    expect(await page.getByRole('banner', { includeHidden: true }).count()).toBe(1);
    await screenshotBothWidths(page, 'login-scam-warning');
    await dismissScamWarning(page);
    // WCAG 2.5.3: the names of the logo link and of the language button start with what they show.
    const home = page.getByRole('banner').getByRole('link');
    expect(await home.getAttribute('aria-label')).toMatch(/^Entrega de Resultados\b/);
    expect(await home.textContent()).toBe('Entrega de Resultados');
    const language = page.getByRole('button', { name: /^PT-BR: idioma/ });
    expect((await language.textContent())?.trim()).toBe('PT-BR');
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Entrega de resultados' }).waitFor();
    expect(await page.getByRole('dialog').count()).toBe(0);
    await page.context().close();
  });

  it('shows a labelled form whose date of birth follows the kind of user name', async () => {
    const page = await open('/login');
    await dismissScamWarning(page);
    expect(await page.locator('html').getAttribute('lang')).toBe('pt-BR');
    expect(await page.title()).toContain('Entrega de Resultados');
    await page.getByRole('heading', { level: 1, name: 'Entrega de resultados' }).waitFor();

    const userName = page.getByRole('textbox', { name: /^Protocolo ou e-mail/ });
    const password = page.getByLabel(/^Senha/);
    const birthDate = page.getByLabel(/^Data de nascimento/);
    await userName.waitFor();
    await password.waitFor();
    expect(await page.getByRole('link', { name: 'Criar conta' }).getAttribute('href')).toBe('/patient/create');
    expect(await page.getByRole('link', { name: 'Sou médico' }).getAttribute('href')).toBe('/physician-info');

    await userName.fill('2026001234');
    await birthDate.waitFor();
    await birthDate.pressSequentially('31121980');
    expect(await birthDate.inputValue()).toBe('31/12/1980');

    await userName.fill('ana@example.com');
    await birthDate.waitFor({ state: 'detached' });

    await userName.fill('2026001234');
    await birthDate.waitFor();

    // The password can be shown and hidden again.
    await password.fill('segredo1');
    expect(await password.getAttribute('type')).toBe('password');
    // The toggle is reachable with the keyboard, right after the field.
    await password.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
      'Mostrar ou ocultar a senha',
    );
    await page.keyboard.press('Space');
    expect(await password.getAttribute('type')).toBe('text');

    // The consent banner is part of the first visit; accepting it is remembered.
    const consent = page.getByRole('region', { name: 'Aviso de cookies' });
    await consent.waitFor();
    await page.getByRole('button', { name: 'Aceitar e continuar' }).click();
    await consent.waitFor({ state: 'detached' });
    await page.reload();
    await userName.waitFor();
    expect(await page.getByRole('region', { name: 'Aviso de cookies' }).count()).toBe(0);

    await screenshotBothWidths(page, 'login');
    await expectFitsNarrowPhone(page, '/login');
    await expectAccessible(page, '/login');
    await page.context().close();
  });

  it('explains empty and malformed fields before calling the server', async () => {
    const page = await open('/login');
    await dismissScamWarning(page);
    await page.getByRole('button', { name: 'Entrar' }).click();
    expect(await page.getByText('Campo obrigatório').count()).toBe(2);

    await page.getByText('CPF', { exact: true }).click();
    const cpf = page.getByRole('textbox', { name: /^CPF/ });
    await cpf.waitFor();
    await cpf.pressSequentially('11111111111');
    expect(await cpf.inputValue()).toBe('111.111.111-11');
    await page.getByLabel(/^Senha/).fill('segredo1');
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByText('Preencha o campo CPF corretamente').waitFor();
    await expectAccessible(page, '/login in CPF mode with errors');
    await page.context().close();
  });

  it('shows the server refusal of an unknown account as a translated message', async () => {
    const page = await open('/login');
    await dismissScamWarning(page);
    await page.getByRole('textbox', { name: /^Protocolo ou e-mail/ }).fill('ninguem@example.com');
    await page.getByLabel(/^Senha/).fill('senha-errada');
    await page.getByRole('button', { name: 'Entrar' }).click();
    // Contract 8: an unknown e-mail is 404 'Protocol or e-mail does not exists!' (spec 8 text).
    await page.getByText('Acesso indisponível', { exact: false }).waitFor();
    expect(page.url()).toContain('/login');
    await page.context().close();
  });

  it('tells a time-out and a server failure apart', async () => {
    const page = await open('/login');
    await dismissScamWarning(page);
    // A gateway in front of the portal gives up (504), then the portal itself fails (500).
    let status = 504;
    await page.route('**/api/v2/auth/login', (route) =>
      route.fulfill({ status, contentType: 'application/json', body: '{"message":"Internal server error."}' }),
    );
    await page.getByRole('textbox', { name: /^Protocolo ou e-mail/ }).fill('ana@example.com');
    await page.getByLabel(/^Senha/).fill('qualquer');
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByText('O servidor demorou demais para responder', { exact: false }).waitFor();
    status = 500;
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByText('Não foi possível concluir o acesso. Entre em contato com o suporte.').first().waitFor();
    await page.context().close();
  });

  it('toggles the password recovery panel with the login panel', async () => {
    const page = await open('/login');
    await dismissScamWarning(page);
    await page.getByRole('button', { name: 'Esqueci minha senha' }).click();
    await page.getByRole('heading', { name: 'Recuperar senha' }).waitFor();
    await page.getByRole('button', { name: 'Enviar link' }).click();
    await page.getByText('Campo obrigatório').waitFor();
    await page.getByLabel(/^E-mail/).fill('nao-e-email');
    await page.getByRole('button', { name: 'Enviar link' }).click();
    await page.getByText('E-mail inválido').waitFor();
    await expectAccessible(page, '/login recovery panel');
    await page.getByRole('button', { name: 'Voltar ao acesso' }).click();
    await page.getByRole('textbox', { name: /^Protocolo ou e-mail/ }).waitFor();
    await page.context().close();
  });

  it('greets an activated account and warns about an expired activation link', async () => {
    const page = await open('/login');
    await dismissScamWarning(page);
    // A refusal toast that stays until closed is still on screen when the app moves to the
    // activated box: only the box may remain, never two messages that disagree.
    await page.getByRole('textbox', { name: /^Protocolo ou e-mail/ }).fill('ninguem@example.com');
    await page.getByLabel(/^Senha/).fill('senha-errada');
    await page.getByRole('button', { name: 'Entrar' }).click();
    const refusal = page.getByText('Acesso indisponível', { exact: false });
    await refusal.waitFor();
    await page.evaluate(() => {
      history.pushState(history.state, '', '/login?activeSuccess=true');
      dispatchEvent(new PopStateEvent('popstate', { state: history.state }));
    });
    await page.getByText('Conta ativada').waitFor();
    await refusal.waitFor({ state: 'detached' });
    expect(await page.locator('.mantine-Notification-root').count()).toBe(0);
    await screenshotBothWidths(page, 'login-activated');
    await expectAccessible(page, '/login?activeSuccess=true');
    await page.goto('/login?activeSuccess=false');
    await page.getByText('Não foi possível ativar a conta').waitFor();
    await expectAccessible(page, '/login?activeSuccess=false');
    await page.context().close();
  });
});

/**
 * A page whose scripts wait until `release()` is called: what a slow phone shows before the app's
 * code has arrived. Records script errors, console errors and whether a loader ever appeared.
 */
async function openBeforeCode(
  path: string,
  visit: (context: BrowserContext) => Promise<unknown> = async () => undefined,
) {
  const context = await newContext(browser, portal.baseUrl);
  await visit(context);
  await context.addInitScript(() => {
    const seen = window as unknown as { loaderShown: boolean };
    seen.loaderShown = false;
    new MutationObserver(() => {
      if (document.body?.textContent?.includes('Carregando…')) seen.loaderShown = true;
    }).observe(document, { childList: true, subtree: true, characterData: true });
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    // An answer's status (the sign-in refused with 404) is the browser's note, not the app's error.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
      errors.push(message.text());
  });
  let release = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/assets/*.js', async (route) => {
    await gate;
    await route.continue();
  });
  // The page's module scripts hold DOMContentLoaded back: waiting for the answer alone.
  await page.goto(path, { waitUntil: 'commit' });
  return { page, errors, release };
}

describe('sign-in screen drawn at build time', () => {
  it('shows a first visit the whole screen before any code arrives, then the app takes that very screen over', async () => {
    const { page, errors, release } = await openBeforeCode('/login');
    await page.getByRole('heading', { level: 1, name: 'Entrega de resultados' }).waitFor();
    // The warning and the cookie banner of a first visit are drawn too (the warning's name is set
    // by the app once running).
    const warning = page.getByRole('dialog');
    await warning.waitFor();
    expect(await warning.textContent()).toContain('Não pague por exames entregues em casa');
    await page.getByTestId('cookie-consent').waitFor();
    expect(await page.title()).toBe('Acesso | Entrega de Resultados');
    // Nothing can be sent before the app runs: a form sent by the browser would put the password
    // in the address.
    expect(await page.getByTestId('login-submit').isDisabled()).toBe(true);
    expect(await page.evaluate(() => document.querySelectorAll('script:not([src])').length)).toBe(0);
    await screenshotBothWidths(page, 'login-drawn-before-code');
    await page.evaluate(() => {
      (window as unknown as { drawnHeading: Element | null }).drawnHeading = document.querySelector('h1');
    });
    await page.getByTestId('login-username').fill('ninguem@example.com');
    await page.getByTestId('login-password').fill('senha-errada');

    release();
    await page.waitForFunction(() => !document.querySelector('[data-testid="login-submit"]')?.hasAttribute('disabled'));
    // The same heading element: the app took the drawn markup over instead of drawing it again.
    expect(
      await page.evaluate(
        () => (window as unknown as { drawnHeading: Element | null }).drawnHeading === document.querySelector('h1'),
      ),
    ).toBe(true);
    expect(await page.getByTestId('login-username').inputValue()).toBe('ninguem@example.com');
    expect(await page.getByTestId('login-password').inputValue()).toBe('senha-errada');
    await dismissScamWarning(page);
    await page.getByRole('button', { name: 'Aceitar e continuar' }).click();
    await page.getByTestId('cookie-consent').waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByText('Acesso indisponível', { exact: false }).waitFor();
    expect(errors).toEqual([]);
    expect(await page.evaluate(() => (window as unknown as { loaderShown: boolean }).loaderShown)).toBe(false);
    await page.context().close();
  });

  it('takes the drawing over in a year after the build, then shows the current year', async () => {
    const buildYear = new Date().getFullYear();
    const { page, errors, release } = await openBeforeCode('/login', (context) =>
      context.clock.install({ time: new Date(`${buildYear + 1}-01-05T12:00:00-03:00`) }),
    );
    const rights = page.locator('footer').getByText(/^© \d{4} Entrega de Resultados/);
    expect(await rights.textContent()).toContain(`© ${buildYear} `);
    await page.evaluate(() => {
      (window as unknown as { drawnHeading: Element | null }).drawnHeading = document.querySelector('h1');
    });
    release();
    await page.getByText(`© ${buildYear + 1} Entrega de Resultados`).waitFor();
    expect(
      await page.evaluate(
        () => (window as unknown as { drawnHeading: Element | null }).drawnHeading === document.querySelector('h1'),
      ),
    ).toBe(true);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('puts back into the form only what was typed into the drawing, never what another form held', async () => {
    // Straight to another form (index.html, nothing drawn), then to the login through the logo.
    for (const start of ['/patient/create', '/login']) {
      const page = await open(start);
      await dismissScamWarning(page);
      if (start === '/login') {
        await page.getByRole('link', { name: 'Criar conta' }).click();
      }
      await page.getByRole('heading', { level: 1, name: 'Criar conta de paciente' }).waitFor();
      await page
        .getByLabel(/^Senha/)
        .first()
        .fill('senha-do-cadastro');
      await page.getByRole('banner').getByRole('link').first().click();
      await page.getByRole('heading', { level: 1, name: 'Entrega de resultados' }).waitFor();
      expect(await page.getByTestId('login-password').inputValue(), start).toBe('');
      expect(await page.getByTestId('login-username').inputValue(), start).toBe('');
      await page.context().close();
    }
  });

  it('is not shown again over a notice the app left in the history entry', async () => {
    const page = await open('/login-cv');
    const notice = page.getByText('Você usou um endereço da versão antiga do portal', { exact: false });
    await notice.waitFor();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.reload();
    expect(await page.locator('html').getAttribute('data-visit')).toBe('other');
    await notice.waitFor();
    await page.getByRole('dialog', { name: 'Atenção a golpes' }).waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('leaves the cookie banner out for a visitor who accepted it on an earlier visit', async () => {
    const { page, errors, release } = await openBeforeCode('/login', (context) =>
      context.addInitScript(() => localStorage.setItem('portal.cookieConsent', JSON.stringify('accepted'))),
    );
    await page.getByRole('heading', { level: 1, name: 'Entrega de resultados' }).waitFor();
    await page.getByRole('dialog').waitFor();
    expect(await page.getByTestId('cookie-consent').isVisible()).toBe(false);
    release();
    await page.getByRole('dialog', { name: 'Atenção a golpes' }).waitFor();
    await page.getByTestId('cookie-consent').waitFor({ state: 'detached' });
    await dismissScamWarning(page);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('shows nothing drawn to a visit the drawing does not fit until the app draws its own screen', async () => {
    const visits: Array<[string, string, (context: BrowserContext) => Promise<unknown>, string]> = [
      [
        '/login',
        'pt-BR',
        (context) => context.addInitScript(() => sessionStorage.setItem('portal.scamWarningSeen', '1')),
        'Entrar',
      ],
      [
        '/login',
        'es',
        (context) => context.addInitScript(() => sessionStorage.setItem('portal.language', 'es')),
        'Ingresar',
      ],
      ['/login?activeSuccess=true', 'pt-BR', async () => {}, 'Entrar'],
    ];
    for (const [path, lang, visit, submit] of visits) {
      const { page, errors, release } = await openBeforeCode(path, visit);
      const drawn = page.locator('.drawn-screen');
      await drawn.waitFor({ state: 'attached' });
      expect(await drawn.evaluate((element) => getComputedStyle(element).visibility), path).toBe('hidden');
      release();
      await page.locator('.drawn-screen').waitFor({ state: 'detached' });
      await page.getByRole('button', { name: submit, exact: true }).waitFor();
      expect(await page.locator('html').getAttribute('lang')).toBe(lang);
      expect(errors).toEqual([]);
      await page.context().close();
    }
  });
});

describe('loading', () => {
  it('downloads only the login screen on /login, not the other screens', async () => {
    const context = await newContext(browser, portal.baseUrl);
    const page = await context.newPage();
    const scripts: string[] = [];
    page.on('request', (request) => {
      if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
    });
    await page.goto('/login');
    // The drawn "Entrar" is there at once; it is enabled once the app runs the form.
    await page.locator('[data-testid="login-submit"]:not([disabled])').waitFor();
    expect(scripts.some((s) => s.includes('login-page'))).toBe(true);
    const others = scripts.filter((s) =>
      /(patient-create|patient-edit|physician-|company-access|reset-password|dashboard|history|charts|recharts|jspdf|study-viewer|dwv|pdf-viewer|pdf\.worker)/.test(
        s,
      ),
    );
    expect(others).toEqual([]);
    await context.close();
  });

  it('receives the app brotli-compressed, its hashed files cached for good, and a robots file', async () => {
    const context = await newContext(browser, portal.baseUrl);
    const page = await context.newPage();
    const answers: Array<{ path: string; type: string; headers: Record<string, string> }> = [];
    page.on('response', (response) => {
      const type = response.request().resourceType();
      if (['document', 'script', 'stylesheet'].includes(type)) {
        answers.push({ path: new URL(response.url()).pathname, type, headers: response.headers() });
      }
    });
    await page.goto('/login');
    await page.getByRole('button', { name: 'Entrar' }).waitFor();
    const document = answers.find((a) => a.type === 'document');
    expect(document?.headers['content-encoding']).toBe('br');
    expect(document?.headers['cache-control']).toBe('no-cache');
    const assets = answers.filter((a) => a.path.startsWith('/assets/'));
    expect(assets.some((a) => a.type === 'stylesheet')).toBe(true);
    for (const asset of assets) {
      expect(asset.headers['content-encoding'], asset.path).toBe('br');
      expect(asset.headers.vary, asset.path).toMatch(/accept-encoding/i);
      expect(asset.headers['cache-control'], asset.path).toBe('public, max-age=31536000, immutable');
    }
    const robots = await page.goto('/robots.txt');
    expect(robots?.headers()['content-type']).toMatch(/^text\/plain/);
    const text = (await robots?.text()) ?? '';
    expect(text).toMatch(/^User-agent: \*$/m);
    for (const path of ['/api', '/dashboard/', '/viewprotocol', '/patient/', '/physician/', '/landing']) {
      expect(text).toContain(`Disallow: ${path}\n`);
    }
    expect(text).not.toContain('<html');
    await context.close();
  });
});

describe('/loading', () => {
  it('says what is loading under a level-one heading, at both widths', async () => {
    const page = await open('/loading');
    await dismissScamWarning(page);
    await page.getByRole('heading', { level: 1, name: 'Carregando, aguarde…' }).waitFor();
    expect(await page.getByRole('heading', { level: 1 }).count()).toBe(1);
    expect(await page.title()).toContain('Carregando');
    await screenshotBothWidths(page, 'loading');
    await expectAccessible(page, '/loading');
    await page.context().close();
  });
});

describe('not found', () => {
  it('shows the Not Found screen for unknown routes and bare institution paths', async () => {
    const page = await open('/pagina-que-nao-existe');
    await dismissScamWarning(page);
    await page.getByRole('heading', { level: 1, name: 'Página não encontrada' }).waitFor();
    await screenshotBothWidths(page, 'not-found');
    await expectAccessible(page, 'Not Found');
    for (const path of ['/not-found', '/instituicao/', '/instituicao/clinica/extra']) {
      await page.goto(path);
      await page.getByRole('heading', { level: 1, name: 'Página não encontrada' }).waitFor();
    }
    await page.getByRole('link', { name: 'Ir para o acesso' }).click();
    await page.waitForURL('**/login');
    await page.context().close();
  });

  it('keeps the header and offers a reload when a screen cannot be downloaded', async () => {
    const context = await newContext(browser, portal.baseUrl);
    // The connection drops exactly when the screen's code is fetched.
    await context.route('**/assets/terms-of-use-page-*.js', (route) => route.abort('internetdisconnected'));
    const page = await context.newPage();
    await page.goto('/termos-de-uso');
    await page.getByRole('heading', { level: 1, name: 'Não foi possível abrir esta tela' }).waitFor();
    await page.getByRole('button', { name: /^PT-BR: idioma/ }).waitFor();
    await page.getByRole('button', { name: 'Recarregar a página' }).waitFor();
    await context.close();
  });

  it('sends a visitor of a protected screen without a session to the login', async () => {
    const page = await open('/dashboard/patient/protocols');
    await page.waitForURL('**/login');
    await page.context().close();
  });
});

describe('language', () => {
  it('switches to Spanish with the header flags and keeps it across screens for the session', async () => {
    const page = await open('/login');
    await dismissScamWarning(page);
    // Accessible names start with the visible text (WCAG 2.5.3): "PT-BR", "Entrega de Resultados".
    await page.getByRole('link', { name: 'Entrega de Resultados, página inicial' }).waitFor();
    await page.getByRole('button', { name: /^PT-BR: idioma Português/ }).click();
    await page.getByRole('menuitem', { name: 'Español' }).click();
    await page.getByRole('button', { name: 'Ingresar' }).waitFor();
    expect(await page.locator('html').getAttribute('lang')).toBe('es');
    await page.getByLabel(/^Contraseña/).waitFor();

    await page.getByRole('link', { name: 'Soy médico' }).click();
    await page.waitForURL('**/physician-info');
    await page.getByRole('heading', { level: 1, name: 'Registro de médico' }).waitFor();

    // A full reload of another screen keeps the choice (session storage).
    await page.goto('/ruta-desconocida');
    await page.getByRole('heading', { level: 1, name: 'Página no encontrada' }).waitFor();
    await screenshotBothWidths(page, 'not-found-es');
    await page.goto('/login');
    await page.getByRole('button', { name: 'Ingresar' }).waitFor();
    await expectAccessible(page, '/login in Spanish');
    await page.context().close();
  });

  it('takes the language of a link (?language=es)', async () => {
    const page = await open('/login?language=ES');
    await page.getByRole('dialog', { name: 'Cuidado con las estafas' }).waitFor();
    await page.getByRole('button', { name: 'Entendido' }).click();
    await page.getByRole('button', { name: 'Ingresar' }).waitFor();
    await page.context().close();
  });
});
