import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminApi } from './support/admin-api';
import {
  drawnContrastOf,
  expectAccessible,
  expectFitsNarrowPhone,
  launchBrowser,
  screenshotBothWidths,
} from './support/browser';
import { linkIn, type Mailbox, startMailbox } from './support/mailbox';
import { openPage, signIn } from './support/pages';
import { type RunningPortal, startPortal } from './support/portal';

let mailbox: Mailbox;
let portal: RunningPortal;
let browser: Browser;
let admin: AdminApi;
let institutionId = '';

beforeAll(async () => {
  mailbox = await startMailbox();
  portal = await startPortal({ SMTP_URL: mailbox.url });
  browser = await launchBrowser();
  admin = new AdminApi(portal.baseUrl, portal.admin);
  await admin.signIn();
  const institution = await admin.createInstitution({
    code: 'CLINVIDA',
    name: 'Clínica Vida',
    viewType: 2,
    supportEmail: 'suporte@clinicavida.example.com',
    // As an institution's system may send them: bare digits, or with the country code.
    supportPhoneNumber: '1133334444',
    supportWhatsAppNumber: '+55 11 988887777',
  });
  institutionId = institution.id;
  await admin.createInstitution({
    code: 'IMAGEMAR',
    name: 'Imagem Mar',
    viewType: 1,
    logoPath: `data:image/svg+xml;base64,${Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 40"><rect width="120" height="40" fill="#0a3766"/><text x="10" y="26" fill="#fff" font-size="16">Imagem Mar</text></svg>',
    ).toString('base64')}`,
  });
});

afterAll(async () => {
  await browser?.close();
  await portal?.stop();
  await mailbox?.close();
});

const open = (path: string): Promise<Page> => openPage(browser, portal.baseUrl, path, true);

/** The path and query of a mailed link, to open it on the test server. */
function pathOf(link: string): string {
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
}

async function fillPatientForm(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel(/^Nome completo/).fill('Ana Souza');
  await page.getByLabel(/^Data de nascimento/).pressSequentially('15031985');
  await page.getByLabel(/^E-mail/).fill(email);
  await page.getByLabel(/^Confirme o e-mail/).fill(email);
  await page
    .getByLabel(/^Senha/, { exact: false })
    .first()
    .fill(password);
  await page.getByLabel(/^Confirme a senha/).fill(password);
  await page.getByTestId('terms-checkbox').check();
}

describe('patient self-registration', () => {
  it('creates an account, activates it from the mail and signs in', async () => {
    const email = 'ana.souza@example.com';
    const password = 'Vida-2026-segura';
    const page = await open('/patient/create');
    await page.getByRole('heading', { level: 1, name: 'Criar conta de paciente' }).waitFor();
    const submit = page.getByTestId('patient-create-submit');
    expect(await submit.isDisabled()).toBe(true);
    await screenshotBothWidths(page, 'patient-create');
    await expectFitsNarrowPhone(page, '/patient/create');
    await expectAccessible(page, '/patient/create');

    // The service terms open in a modal with the server's current text.
    await page.getByRole('button', { name: 'Ler os termos de serviço' }).click();
    const terms = page.getByRole('dialog', { name: 'Termos de serviço' });
    await terms.getByText('Marco Civil', { exact: false }).waitFor();
    await expectAccessible(page, 'terms modal');
    await terms.getByRole('button', { name: 'Fechar' }).last().click();
    await terms.waitFor({ state: 'hidden' });

    await fillPatientForm(page, email, password);
    await page.getByLabel(/^Confirme a senha/).fill('outra-senha');
    await page.getByLabel(/^Confirme a senha/).blur();
    await page.getByText('As senhas não conferem').waitFor();
    expect(await submit.isDisabled()).toBe(true);
    await page.getByLabel(/^Confirme a senha/).fill(password);
    await page.getByLabel(/^Confirme a senha/).blur();

    // A protocol typed but not validated refuses the creation (spec 4.5).
    await page.getByLabel(/^Número do protocolo/).fill('999999');
    await submit.click();
    await page.getByText('Valide o protocolo informado', { exact: false }).waitFor();
    await page.getByLabel(/^Número do protocolo/).fill('');

    const sent = mailbox.mails.length;
    await submit.click();
    await page.getByText('Cadastro realizado').waitFor();
    await page.getByText(`Enviamos um e-mail de confirmação para ${email}`).waitFor();
    await screenshotBothWidths(page, 'patient-create-success');
    await expectAccessible(page, '/patient/create success panel');

    const mail = await mailbox.waitFor(email, { after: sent });
    const activation = linkIn(mail, portal.baseUrl, '/api/v2/auth/user/registerValidate');
    await page.goto(pathOf(activation));
    await page.waitForURL('**/login?activeSuccess=true');
    await page.getByText('Conta ativada').waitFor();
    // The green box's title keeps 7:1 against its light tint, as drawn.
    expect(await drawnContrastOf(page.getByText('Conta ativada')), 'the green title').toBeGreaterThanOrEqual(7);

    await signIn(page, email, password);
    await page.waitForURL('**/dashboard/patient/protocols');
    await page.getByRole('button', { name: /^Minha conta/ }).click();
    await page.getByRole('menuitem', { name: 'Minha conta' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Sair' }).click();
    await page.waitForURL('**/login');
    await page.goto('/dashboard/patient/protocols');
    await page.waitForURL('**/login');
    await page.context().close();
  });

  it('offers password recovery when the e-mail is already registered', async () => {
    const page = await open('/patient/create');
    await fillPatientForm(page, 'ana.souza@example.com', 'Outra-senha-2026');
    await page.getByTestId('patient-create-submit').click();
    const dialog = page.getByRole('dialog', { name: 'E-mail já cadastrado' });
    await dialog.waitFor();
    await expectAccessible(page, 'already-registered modal');
    await dialog.getByRole('link', { name: 'Recuperar senha' }).click();
    await page.getByRole('heading', { name: 'Recuperar senha' }).waitFor();
    await page.context().close();
  });
});

describe('password recovery', () => {
  it('mails a reset link whose screen sets a new password that signs in', async () => {
    const email = 'ana.souza@example.com';
    const page = await open('/login');
    await page.getByRole('button', { name: 'Esqueci minha senha' }).click();
    await page.getByLabel(/^E-mail/).fill(email);
    const sent = mailbox.mails.length;
    await page.getByRole('button', { name: 'Enviar link' }).click();
    await page.getByText('Enviamos um link para o seu e-mail', { exact: false }).waitFor();

    const mail = await mailbox.waitFor(email, { after: sent });
    await page.goto(pathOf(linkIn(mail, portal.baseUrl, '/password/reset')));
    await page.getByRole('heading', { level: 1, name: 'Redefinir senha' }).waitFor();
    expect(await page.getByLabel(/^E-mail/).inputValue()).toBe(email);
    expect(await page.getByLabel(/^E-mail/).getAttribute('readonly')).not.toBeNull();
    await page.getByLabel(/^Nova senha/).fill('curta');
    await page.getByRole('button', { name: 'Salvar nova senha' }).click();
    await page.getByText('A senha deve ter pelo menos seis caracteres').waitFor();
    await screenshotBothWidths(page, 'password-reset');
    await expectAccessible(page, '/password/reset');

    await page.getByLabel(/^Nova senha/).fill('Nova-senha-2027');
    await page.getByLabel(/^Confirme a nova senha/).fill('Nova-senha-2027');
    await page.getByRole('button', { name: 'Salvar nova senha' }).click();
    await page.getByText('Senha alterada').waitFor();

    await signIn(page, email, 'Nova-senha-2027');
    await page.waitForURL('**/dashboard/patient/protocols');
    await page.context().close();
  });

  it('says so when the reset link is not valid', async () => {
    const page = await open('/password/reset?token=nao-existe&language=pt-br');
    await page.getByText('Link expirado ou inválido').waitFor();
    await expectAccessible(page, '/password/reset with an invalid token');
    await page.context().close();
  });
});

describe('physician registration', () => {
  it('explains how physicians register', async () => {
    const page = await open('/physician-info');
    await page.getByText('O cadastro é feito por convite').waitFor();
    await page.getByText('Abra o link do e-mail').waitFor();
    await screenshotBothWidths(page, 'physician-info');
    await expectAccessible(page, '/physician-info');
    await page.context().close();
  });

  it('registers an invited physician with the CRM and UF of the invitation, read-only', async () => {
    const email = 'dr.carlos@example.com';
    const sent = mailbox.mails.length;
    await admin.invitePhysician({
      email,
      name: 'Carlos Lima',
      crm: '123456',
      uf: 'SP',
      institutionId,
      language: 'pt-br',
    });
    const mail = await mailbox.waitFor(email, { after: sent });
    const page = await open(pathOf(linkIn(mail, portal.baseUrl, '/physician/create')));
    await page.getByRole('heading', { level: 1, name: 'Cadastro de médico' }).waitFor();
    const crm = page.getByLabel(/^CRM/);
    // The form is filled from the invitation an effect after it first appears.
    await expect.poll(() => crm.inputValue()).toBe('123456');
    expect(await crm.getAttribute('readonly')).not.toBeNull();
    // Read-only fields look read-only: grey, a dashed border, no text cursor.
    expect(
      await crm.evaluate((el) => {
        const style = getComputedStyle(el);
        return [style.borderTopStyle, style.backgroundColor, style.cursor];
      }),
    ).toEqual(['dashed', 'rgb(241, 243, 245)', 'default']);
    await expect.poll(() => page.getByLabel(/^UF do CRM/).inputValue()).toBe('SP');
    await expect.poll(() => page.getByLabel(/^Nome completo/).inputValue()).toBe('Carlos Lima');
    await screenshotBothWidths(page, 'physician-create');
    await expectFitsNarrowPhone(page, '/physician/create');
    await expectAccessible(page, '/physician/create');

    await page.getByLabel(/^Senha/).fill('Medico-2026-seguro');
    await page.getByLabel(/^Confirme a senha/).fill('Medico-2026-seguro');
    await page.getByRole('button', { name: 'Criar cadastro' }).click();
    await page.waitForURL('**/login?activeSuccess=true');
    await signIn(page, email, 'Medico-2026-seguro');
    // First sign-in: the physician has not accepted the service terms yet (spec 4.4).
    const terms = page.getByRole('dialog', { name: 'Termos atualizados' });
    await terms.waitFor();
    await expectAccessible(page, 'terms acceptance modal');
    await terms.getByRole('button', { name: 'Confirmar' }).click();
    await terms.getByText('É preciso aceitar os termos para continuar').waitFor();
    await terms.getByTestId('terms-update-checkbox').check();
    await terms.getByRole('button', { name: 'Confirmar' }).click();
    await page.waitForURL('**/dashboard/physician/protocols');
    await page.getByText('Termos aceitos. Obrigado!').waitFor();

    // Accepted once, not asked again.
    await page.getByRole('button', { name: 'Sair' }).click();
    await page.waitForURL('**/login');
    await signIn(page, email, 'Medico-2026-seguro');
    await page.waitForURL('**/dashboard/physician/protocols');
    await page.context().close();
  });

  it('refuses an unknown invitation with the expired-token warning', async () => {
    const page = await open('/physician/create?token=invalido&code=X');
    await page.getByText('Este token de acesso expirou ou a conta não foi ativada.').waitFor();
    await page.context().close();
  });
});

describe('company access', () => {
  it('creates the access of an invited company user', async () => {
    const email = 'gestao@clinicavida.example.com';
    const sent = mailbox.mails.length;
    await admin.inviteCompany({ email, institutionId, language: 'pt-br' });
    const mail = await mailbox.waitFor(email, { after: sent });
    const page = await open(pathOf(linkIn(mail, portal.baseUrl, '/company-access/create')));
    await page.getByRole('heading', { level: 1, name: 'Acesso da empresa' }).waitFor();
    expect(await page.getByLabel(/^E-mail/).inputValue()).toBe(email);
    await page.getByLabel(/^Nome completo/).fill('Gestão Vida');
    await page.getByLabel(/^Senha/).fill('Empresa-2026-segura');
    await page.getByLabel(/^Confirme a senha/).fill('Empresa-2026-segura');
    await page.getByRole('button', { name: 'Criar acesso' }).click();
    await page.getByText('É preciso aceitar os termos para continuar').waitFor();
    await screenshotBothWidths(page, 'company-access');
    await expectAccessible(page, '/company-access/create');
    await page.getByTestId('terms-checkbox').check();
    await page.getByRole('button', { name: 'Criar acesso' }).click();
    await page.waitForURL('**/login?activeSuccess=true');
    await page.context().close();
  });
});

describe('institution login and legal pages', () => {
  it('tells a patient whose institution enables new accounts to wait, and lets him in once enabled', async () => {
    const holding = await admin.createInstitution({ code: 'CLINRETEM', name: 'Clínica Retém', viewType: 2 });
    await admin.updateInstitution(holding.id, { settings: { createAccountDefaultDisabled: true } });
    await admin.ingestProtocol(holding.apiKey, 'RET-1', {
      password: 'senha-RET1',
      requestedAt: new Date().toISOString(),
      patient: { patientId: 'R-1', name: 'Rita Lima', birthDate: '1985-03-15', gender: 'FEMALE' },
      exams: [{ examKey: 'R1', description: 'Hemograma', type: 'HEMO', modalityCode: 'LAB', modalityName: 'Lab' }],
    });
    const email = 'rita.lima@example.com';
    const password = 'Retem-2026-segura';
    const page = await open('/patient/create');
    await fillPatientForm(page, email, password);
    await page.getByLabel(/^Número do protocolo/).fill('RET-1');
    await page.getByLabel(/^Senha do protocolo/).fill('senha-RET1');
    await page.getByRole('button', { name: 'Validar protocolo' }).click();
    await page.getByText('Protocolo válido', { exact: false }).first().waitFor();
    const sent = mailbox.mails.length;
    await page.getByTestId('patient-create-submit').click();
    await page.getByText('Cadastro realizado').waitFor();
    await page.getByTestId('awaiting-institution').waitFor();
    expect(await page.getByTestId('awaiting-institution').textContent()).toContain(
      'A instituição libera as contas novas',
    );
    await screenshotBothWidths(page, 'patient-create-awaiting-institution');
    await expectAccessible(page, '/patient/create awaiting the institution');
    const mail = await mailbox.waitFor(email, { after: sent });
    await page.goto(pathOf(linkIn(mail, portal.baseUrl, '/api/v2/auth/user/registerValidate')));
    await page.waitForURL('**/login?activeSuccess=true');

    // Signing in before the institution enables the account says why, as an error near the form.
    await page.getByRole('textbox', { name: /^Protocolo ou e-mail/ }).fill(email);
    await page.getByLabel(/^Senha/).fill(password);
    await page.getByRole('button', { name: 'Entrar' }).click();
    const refusal = page.getByText('Sua conta aguarda a liberação da instituição', { exact: false }).first();
    await refusal.waitFor();
    await screenshotBothWidths(page, 'login-awaiting-institution');

    const [held] = (await admin.accounts(email)).items;
    expect(held).toMatchObject({ state: 'DISABLED', awaitingInstitution: true });
    await admin.setAccountDisabled(held!.id, false);
    await page.goto('/login');
    await signIn(page, email, password);
    await page.waitForURL('**/dashboard/patient/protocols');
    await page.getByText('1 protocolo encontrado').waitFor();
    await page.context().close();
  });

  it('brands the login with the clinic page and its support contacts', async () => {
    const page = await open('/instituicao/clinvida');
    await page.getByRole('heading', { level: 1, name: 'Clínica Vida' }).waitFor();
    expect(await page.getByRole('link', { name: 'suporte@clinicavida.example.com' }).getAttribute('href')).toBe(
      'mailto:suporte@clinicavida.example.com',
    );
    // Numbers written as people read them; WhatsApp opens a chat, the phone dials.
    const whatsapp = page.getByRole('link', { name: /WhatsApp/ });
    expect(await whatsapp.textContent()).toContain('(11) 98888-7777');
    expect(await whatsapp.getAttribute('href')).toBe('https://wa.me/5511988887777');
    const phone = page.getByRole('link', { name: '(11) 3333-4444' });
    expect(await phone.getAttribute('href')).toBe('tel:+551133334444');
    await screenshotBothWidths(page, 'institution-login');
    await expectFitsNarrowPhone(page, '/instituicao/clinvida');
    await expectAccessible(page, '/instituicao/clinvida');

    // Signed in from the clinic's page, the logout returns there (spec 4.3).
    await page.getByRole('textbox', { name: /^Protocolo ou e-mail/ }).fill('ana.souza@example.com');
    await page.getByLabel(/^Senha/).fill('Nova-senha-2027');
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.waitForURL('**/dashboard/patient/protocols');
    await page.getByRole('button', { name: 'Sair' }).click();
    await page.waitForURL('**/instituicao/clinvida');
    // viewType 1: the clinic's logo is the heading.
    await page.goto('/instituicao/imagemar');
    const logo = page.getByRole('heading', { level: 1 }).getByRole('img', { name: 'Imagem Mar' });
    await logo.waitFor();
    await page.waitForFunction(() => {
      const img = document.querySelector('h1 img') as HTMLImageElement | null;
      return img !== null && img.complete && img.naturalWidth > 0;
    });
    await screenshotBothWidths(page, 'institution-login-logo');
    await page.goto('/instituicao/nao-existe');
    await page.getByRole('heading', { level: 1, name: 'Página não encontrada' }).waitFor();
    await page.context().close();
  });

  it('shows the terms of use and the privacy policy', async () => {
    const page = await open('/termos-de-uso');
    await page.getByRole('heading', { level: 1, name: 'Termos de uso' }).waitFor();
    await page.getByText('Marco Civil', { exact: false }).first().waitFor();
    await page.getByText('São Paulo', { exact: false }).first().waitFor();
    await expectAccessible(page, '/termos-de-uso');
    await page.goto('/politica-de-privacidade');
    await page.getByRole('heading', { level: 1, name: 'Política de privacidade' }).waitFor();
    await screenshotBothWidths(page, 'privacy-policy');
    await expectAccessible(page, '/politica-de-privacidade');
    await page.context().close();
  });
});
