import type { Browser, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, expectFitsNarrowPhone, launchBrowser, screenshotBothWidths } from './support/browser';
import { linkIn, type Mailbox, startMailbox } from './support/mailbox';
import { openPage, signIn } from './support/pages';
import { type RunningPortal, startPortal } from './support/portal';
import { type SmsSink, startSmsSink } from './support/sms-sink';

/*
 * Passkeys in Chromium, answered by its virtual authenticator (DevTools protocol WebAuthn domain:
 * CTAP2, internal transport, resident keys, user verification done). Browsers refuse an IP
 * address as the relying party, so this portal is opened on localhost.
 */

let mailbox: Mailbox;
let sms: SmsSink;
let portal: RunningPortal;
let browser: Browser;
let origin: string;

const email = 'clara.passkey@example.com';
const password = 'Conta-2026-segura';

beforeAll(async () => {
  mailbox = await startMailbox();
  sms = await startSmsSink();
  portal = await startPortal({
    SMTP_URL: mailbox.url,
    SMS_WEBHOOK_URL: sms.url,
    PUBLIC_URL: 'http://localhost:{port}',
  });
  origin = portal.baseUrl.replace('127.0.0.1', 'localhost');
  browser = await launchBrowser();

  const created = await fetch(`${portal.baseUrl}/api/v2/auth/user/create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'Clara Mendes',
      login: email,
      confirmEmailAddress: email,
      password,
      confirmPassword: password,
      dateOfBirth: '03/04/1988',
      language: 'pt-br',
      serviceTerms: true,
    }),
  });
  if (created.status !== 201) throw new Error(`patient creation answered ${created.status}: ${await created.text()}`);
  const mail = await mailbox.waitFor(email);
  // The mail's links use the public URL (localhost); the server listens on 127.0.0.1.
  const link = linkIn(mail, origin, '/api/v2/auth/user/registerValidate').replace(origin, portal.baseUrl);
  const activation = await fetch(link, {
    redirect: 'manual',
  });
  if (!activation.headers.get('location')?.includes('activeSuccess=true')) throw new Error('activation failed');
});

afterAll(async () => {
  await browser?.close();
  await portal?.stop();
  await sms?.close();
  await mailbox?.close();
});

/** A platform authenticator with user verification, as a phone or laptop with a fingerprint reader has. */
async function addVirtualAuthenticator(page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, authenticatorId };
}

async function credentialsOn(cdp: CDPSession, authenticatorId: string) {
  return (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
}

/** Closes the toasts so the screenshot shows the screen under them. */
async function closeToasts(page: Page) {
  const close = page.locator('.mantine-Notification-closeButton');
  // A toast may close itself between the count and the click: the click then gives up and the
  // loop looks again, so a vanished toast never holds the journey.
  while ((await close.count()) > 0)
    await close
      .first()
      .click({ timeout: 2_000 })
      .catch(() => undefined);
}

async function signOut(page: Page) {
  await page.getByRole('button', { name: 'Sair' }).click();
  await page.waitForURL('**/login');
}

async function api<T>(path: string, token: string, body?: unknown): Promise<T> {
  const res = await fetch(`${portal.baseUrl}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { data: T }).data;
}

describe('passkeys: register on the account screen, sign in with one, use it as the second factor, remove it', () => {
  it('goes through the whole life of a passkey', async () => {
    const page = await openPage(browser, origin, '/login', true);
    const { cdp, authenticatorId } = await addVirtualAuthenticator(page);

    await page.getByRole('button', { name: 'Usar chave de acesso', exact: true }).waitFor();
    await screenshotBothWidths(page, 'passkeys-login');
    await expectAccessible(page, '/login with passkeys');
    await signIn(page, email, password);
    await page.waitForURL('**/dashboard/patient/protocols');
    await page.goto('/patient/edit');
    await page.getByRole('button', { name: 'Chaves de acesso' }).click();
    const panel = page.getByTestId('passkeys-panel');
    await panel.getByText('Você ainda não tem chaves de acesso.').waitFor();

    // Register: the browser creates the passkey, the screen proposes a name to change.
    await panel.getByRole('button', { name: 'Adicionar chave de acesso' }).click();
    const naming = page.getByRole('dialog', { name: 'Nome da chave de acesso' });
    await naming.waitFor();
    const nameInput = naming.getByRole('textbox', { name: /^Nome/ });
    expect(await nameInput.inputValue()).toMatch(/^Chave de acesso em Chrome/);
    expect(await credentialsOn(cdp, authenticatorId)).toHaveLength(1);
    await nameInput.fill('Notebook de casa');
    await naming.getByRole('button', { name: 'Salvar' }).click();
    await naming.waitFor({ state: 'hidden' });
    await panel.getByText('Notebook de casa').waitFor();
    await panel.getByText('Ainda não usada').waitFor();
    await closeToasts(page);
    await screenshotBothWidths(page, 'passkeys-account');
    await expectFitsNarrowPhone(page, '/patient/edit passkeys');
    await expectAccessible(page, '/patient/edit passkeys');

    // Rename it later from the list.
    await panel.getByRole('button', { name: 'Renomear a chave de acesso Notebook de casa' }).click();
    await naming.waitFor();
    await nameInput.fill('Celular da Clara');
    await expectAccessible(page, 'the rename dialog');
    await naming.getByRole('button', { name: 'Salvar' }).click();
    await panel.getByText('Celular da Clara').waitFor();

    // Sign out: the login form offers the passkey in the user name's autofill (conditional UI),
    // which the virtual authenticator answers at once, and the passkey alone signs in.
    await page.getByRole('button', { name: 'Sair' }).click();
    await page.waitForURL('**/dashboard/patient/protocols');
    const signedInAs = await page.evaluate(
      () =>
        (JSON.parse(sessionStorage.getItem('portal.credentials') ?? '{}') as { user?: { name?: string } }).user?.name,
    );
    expect(signedInAs).toBe('Clara Mendes');

    // Two-step verification on (through the API the MFA panel uses): the passkey replaces the code.
    const token = await page.evaluate(
      () => (JSON.parse(sessionStorage.getItem('portal.credentials') ?? '{}') as { token?: string }).token ?? null,
    );
    expect(token).toBeTruthy();
    const before = sms.messages.length;
    await api('/api/v2/auth/generateMFAToken', token!, { phoneNumber: '11987654321', channel: 'sms' });
    const code = await sms.waitForCode('5511987654321', before);
    await api('/api/v2/auth/activateMFAToken', token!, { phoneNumber: '11987654321', tokenValue: code });

    // The authenticator waits for a touch now, so the autofill offer stays pending: password first.
    await cdp.send('WebAuthn.setAutomaticPresenceSimulation', { authenticatorId, enabled: false });
    await signOut(page);
    await page.getByRole('textbox', { name: /^Protocolo ou e-mail/ }).fill(email);
    await page.getByLabel(/^Senha/).fill(password);
    await page.getByRole('button', { name: 'Entrar', exact: true }).click();
    const usePasskey = page.getByRole('button', { name: 'Usar chave de acesso em vez do código' });
    await usePasskey.waitFor();
    await screenshotBothWidths(page, 'passkeys-second-factor');
    await expectAccessible(page, '/login second factor');
    await cdp.send('WebAuthn.setAutomaticPresenceSimulation', { authenticatorId, enabled: true });
    await usePasskey.click();
    await page.waitForURL('**/dashboard/patient/protocols');

    // The list shows the use; removing the passkey leaves the password working.
    await page.goto('/patient/edit');
    await page.getByRole('button', { name: 'Chaves de acesso' }).click();
    await panel.getByText(/^Último uso em/).waitFor();
    await panel.getByRole('button', { name: 'Remover a chave de acesso Celular da Clara' }).click();
    const confirm = page.getByRole('dialog', { name: 'Remover a chave de acesso?' });
    await confirm.getByText('continua entrando com sua senha', { exact: false }).waitFor();
    await expectAccessible(page, 'the remove dialog');
    await confirm.getByRole('button', { name: 'Remover' }).click();
    await panel.getByText('Você ainda não tem chaves de acesso.').waitFor();
    await closeToasts(page);
    await screenshotBothWidths(page, 'passkeys-removed');

    // The device still holds it and offers it, but the portal no longer takes it.
    await signOut(page);
    await page.getByText('não está cadastrada no portal', { exact: false }).waitFor();
    expect(page.url()).toContain('/login');
    await page.context().close();
  }, 360_000);
});
