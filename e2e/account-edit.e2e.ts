import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, expectFitsNarrowPhone, launchBrowser, screenshotBothWidths } from './support/browser';
import { linkIn, type Mailbox, startMailbox } from './support/mailbox';
import { openPage, reloadBeforeCode, signIn } from './support/pages';
import { type RunningPortal, startPortal } from './support/portal';
import { type SmsSink, startSmsSink } from './support/sms-sink';

let mailbox: Mailbox;
let sms: SmsSink;
let portal: RunningPortal;
let browser: Browser;

const email = 'bruno.alves@example.com';
let password = 'Conta-2026-segura';

beforeAll(async () => {
  mailbox = await startMailbox();
  sms = await startSmsSink();
  portal = await startPortal({ SMTP_URL: mailbox.url, SMS_WEBHOOK_URL: sms.url });
  browser = await launchBrowser();

  // A registered and activated patient, through the public API the registration screen uses.
  const created = await fetch(`${portal.baseUrl}/api/v2/auth/user/create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'Bruno Alves',
      login: email,
      confirmEmailAddress: email,
      password,
      confirmPassword: password,
      dateOfBirth: '02/02/1990',
      language: 'pt-br',
      serviceTerms: true,
    }),
  });
  if (created.status !== 201) throw new Error(`patient creation answered ${created.status}: ${await created.text()}`);
  const mail = await mailbox.waitFor(email);
  const activation = await fetch(linkIn(mail, portal.baseUrl, '/api/v2/auth/user/registerValidate'), {
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

async function signedIn(): Promise<Page> {
  const page = await openPage(browser, portal.baseUrl, '/login', true);
  await signIn(page, email, password);
  await page.waitForURL('**/dashboard/patient/protocols');
  return page;
}

describe('patient account screen', () => {
  it('flags the incomplete registration and saves the personal data', async () => {
    const page = await signedIn();
    await page.getByRole('button', { name: /^Minha conta/ }).click();
    await page.getByRole('menuitem', { name: 'Minha conta' }).click();
    await page.waitForURL('**/patient/edit');
    await page.getByRole('heading', { level: 1, name: 'Minha conta' }).waitFor();
    await page.getByText('Cadastro incompleto').waitFor();
    // The session keeps in mind that her profile is incomplete (the dashboard draws its prompt).
    expect(await page.evaluate(() => sessionStorage.getItem('portal.profileIncomplete'))).toBe('1');
    const save = page.getByRole('button', { name: 'Salvar', exact: true });
    expect(await save.isDisabled()).toBe(true);
    await screenshotBothWidths(page, 'patient-edit-incomplete');
    await expectFitsNarrowPhone(page, '/patient/edit');
    await expectAccessible(page, '/patient/edit');

    expect(await page.getByLabel(/^Nome completo/).inputValue()).toBe('Bruno Alves');
    expect(await page.getByLabel(/^Data de nascimento/).inputValue()).toBe('02/02/1990');
    await page.getByLabel(/^CPF/).pressSequentially('52998224725');
    await page.getByLabel(/^Celular( \*)?$/).pressSequentially('11987654321');
    expect(await page.getByLabel(/^Celular( \*)?$/).inputValue()).toBe('(11) 98765-4321');
    await page.getByRole('radio', { name: 'Masculino' }).check();
    await save.waitFor();
    await page.waitForFunction(() => {
      const button = Array.from(document.querySelectorAll('button')).find((b) => b.textContent === 'Salvar');
      return button && !button.disabled;
    });
    await save.click();
    await page.getByText('Dados salvos.').waitFor();
    await page.getByText('Cadastro incompleto').waitFor({ state: 'detached' });
    expect(await page.evaluate(() => sessionStorage.getItem('portal.profileIncomplete'))).toBeNull();

    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Minha conta' }).waitFor();
    expect(await page.getByLabel(/^CPF/).inputValue()).toBe('529.982.247-25');
    expect(await page.getByText('Cadastro incompleto').count()).toBe(0);

    // Back on her dashboard, opened afresh: no prompt in the page drawn before the code, none after.
    await page.goto('/dashboard/patient/protocols');
    await page.getByRole('heading', { level: 1, name: 'Meus protocolos' }).waitFor();
    await page.locator('.drawn-screen').waitFor({ state: 'detached' });
    const fresh = await reloadBeforeCode(page);
    await page.locator('.drawn-screen h1').waitFor();
    expect(await page.locator('.drawn-screen').getByTestId('profile-prompt').isHidden()).toBe(true);
    fresh.release();
    await page.locator('.drawn-screen').waitFor({ state: 'detached' });
    // The list (or its empty state) shows once her record is known.
    await page
      .getByTestId('list-empty')
      .or(page.getByText(/protocolos? encontrados?$/))
      .waitFor();
    expect(await page.getByTestId('profile-prompt').count()).toBe(0);
    expect(fresh.errors).toEqual([]);
    await page.unrouteAll();
    await page.context().close();
  });

  it('changes the password from the access data section', async () => {
    const page = await signedIn();
    await page.goto('/patient/edit');
    await page.getByRole('button', { name: 'Dados de acesso' }).click();
    await page.getByRole('checkbox', { name: 'Alterar senha' }).check();
    await page.getByLabel(/^Senha atual/).fill('senha-errada');
    await page.getByLabel(/^Nova senha/).fill('Nova-conta-2027');
    await page.getByLabel(/^Confirme a nova senha/).fill('Nova-conta-2027');
    await page.getByRole('button', { name: 'Salvar nova senha' }).click();
    await page.getByText('A senha atual está incorreta.').waitFor();
    expect(page.url()).toContain('/patient/edit');

    await page.getByLabel(/^Senha atual/).fill(password);
    await page.getByRole('button', { name: 'Salvar nova senha' }).click();
    await page.getByText('Senha alterada.').waitFor();
    password = 'Nova-conta-2027';
    await page.context().close();

    // The new password signs in.
    const again = await signedIn();
    await again.context().close();
  });

  it('sends a patient away from the physician and external user screens', async () => {
    const page = await signedIn();
    for (const path of ['/physician/edit', '/external-user/edit']) {
      await page.goto(path);
      await page.waitForURL('**/dashboard/patient/protocols');
    }
    await page.context().close();
  });

  it('signs in by CPF, remembers it on this browser and forgets it on request', async () => {
    const page = await openPage(browser, portal.baseUrl, '/login', true);
    await page.getByText('CPF', { exact: true }).click();
    await page.getByRole('textbox', { name: /^CPF/ }).pressSequentially('52998224725');
    await page.getByLabel(/^Senha/).fill(password);
    await page.getByRole('checkbox', { name: 'Lembrar meu CPF neste aparelho' }).check();
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.waitForURL('**/dashboard/patient/protocols');
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'remember')?.value).toBe('52998224725');
    expect(cookies.find((c) => c.name === 'hint')?.value).toBe(encodeURIComponent('529.***.**7-25'));

    await page.getByRole('button', { name: 'Sair' }).click();
    await page.waitForURL('**/login');
    // The remembered CPF opens the CPF mode, filled in.
    const cpf = page.getByRole('textbox', { name: /^CPF/ });
    expect(await cpf.inputValue()).toBe('529.982.247-25');
    await page.getByRole('button', { name: 'Esquecer CPF' }).click();
    expect(await cpf.inputValue()).toBe('');
    expect((await page.context().cookies()).some((c) => c.name === 'remember')).toBe(false);
    await page.context().close();
  });

  it('turns on two-step verification with a code sent to the phone, and the login then asks for it', async () => {
    const page = await signedIn();
    await page.goto('/patient/edit');
    await page.getByRole('button', { name: 'Verificação em duas etapas' }).click();
    const phone = page.getByLabel(/^Celular para receber o código/);
    await phone.pressSequentially('1198765');
    await page.getByRole('button', { name: 'Enviar código' }).click();
    await page.getByText('Telefone preenchido incorretamente', { exact: false }).waitFor();
    await phone.fill('');
    await phone.pressSequentially('11987654321');
    const before = sms.messages.length;
    await page.getByRole('button', { name: 'Enviar código' }).click();
    const code = await sms.waitForCode('5511987654321', before);

    await page.getByRole('button', { name: 'Validar' }).click();
    await page.getByText('Digite o código enviado para validar o telefone.').waitFor();
    await page.getByLabel(/^Código/).pressSequentially(code);
    await page.getByRole('button', { name: 'Validar' }).click();
    await page.getByText('Verificação em duas etapas ativada.').waitFor();
    await page.getByText('Ativada', { exact: true }).waitFor();
    await expectAccessible(page, '/patient/edit with MFA on');

    // Sign out and in again: the login asks for the code sent to the phone (spec 2.4, 4.3).
    await page.getByRole('button', { name: 'Sair' }).click();
    await page.waitForURL('**/login');
    const beforeLogin = sms.messages.length;
    await page.getByRole('textbox', { name: /^Protocolo ou e-mail/ }).fill(email);
    await page.getByLabel(/^Senha/).fill(password);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByText('Conta com token ativado', { exact: false }).waitFor();
    const token = page.getByLabel(/^Código de verificação/);
    await token.waitFor();
    const loginCode = await sms.waitForCode('5511987654321', beforeLogin);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByText('Digite o código enviado ao seu telefone').first().waitFor();
    await token.pressSequentially(loginCode);
    await screenshotBothWidths(page, 'login-mfa');
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.waitForURL('**/dashboard/patient/protocols');
    await page.context().close();
  });
});
