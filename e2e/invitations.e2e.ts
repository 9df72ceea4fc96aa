import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminApi } from './support/admin-api';
import { expectAccessible, launchBrowser, screenshotBothWidths } from './support/browser';
import { linkIn, type Mailbox, startMailbox } from './support/mailbox';
import { openPage, signIn } from './support/pages';
import { type RunningPortal, startPortal } from './support/portal';

let mailbox: Mailbox;
let portal: RunningPortal;
let browser: Browser;
let admin: AdminApi;
let institution: { id: string; apiKey: string };

const PROTOCOL = '2026000777';
const PROTOCOL_PASSWORD = 'pr0t-777';
const PATIENT_EMAIL = 'marina.costa@example.com';

beforeAll(async () => {
  mailbox = await startMailbox();
  portal = await startPortal({ SMTP_URL: mailbox.url });
  browser = await launchBrowser();
  admin = new AdminApi(portal.baseUrl, portal.admin);
  await admin.signIn();
  institution = await admin.createInstitution({ code: 'LABSOL', name: 'Laboratório Sol', viewType: 2 });
  await admin.ingestProtocol(institution.apiKey, PROTOCOL, {
    password: PROTOCOL_PASSWORD,
    requestedAt: '2026-11-10T09:00:00-03:00',
    tag: 'Convênio Azul',
    patient: {
      patientId: 'P-777',
      name: 'Marina Costa',
      birthDate: '1988-07-21',
      gender: 'F',
      email: PATIENT_EMAIL,
    },
    exams: [
      {
        examKey: 'HEMO-1',
        description: 'Hemograma completo',
        type: 'HEMOGRAMA',
        modalityCode: 'LAB',
        modalityName: 'Laboratório',
        status: 'RELEASED',
        performedAt: '2026-11-10T10:00:00-03:00',
      },
    ],
  });
});

afterAll(async () => {
  await browser?.close();
  await portal?.stop();
  await mailbox?.close();
});

const open = (path: string): Promise<Page> => openPage(browser, portal.baseUrl, path, true);
const pathOf = (link: string) => {
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
};

describe('protocol sign-in', () => {
  it('signs a guest in with the protocol, checking the date of birth when given', async () => {
    const page = await open('/login');
    await page.getByRole('textbox', { name: /^Protocolo ou e-mail/ }).fill(PROTOCOL);
    await page.getByLabel(/^Senha/).fill(PROTOCOL_PASSWORD);
    await page.getByLabel(/^Data de nascimento/).pressSequentially('01011990');
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByText('Protocolo não encontrado com a data de nascimento informada.').waitFor();

    await page.getByLabel(/^Data de nascimento/).fill('');
    await page.getByLabel(/^Data de nascimento/).pressSequentially('21071988');
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.waitForURL('**/viewprotocol');
    // Guests have no account screen: only the logout (the header drawn first, then looked at).
    await page.getByRole('button', { name: 'Sair' }).waitFor();
    expect(await page.getByRole('button', { name: /^Minha conta/ }).count()).toBe(0);
    await page.context().close();
  });

  it('signs in from a QR code link and wipes the password from the address', async () => {
    const page = await open(`/login-qrcode?protocol=${PROTOCOL}&password=${PROTOCOL_PASSWORD}&birthdate=21/07/1988`);
    await page.waitForURL('**/viewprotocol');
    expect(page.url()).not.toContain(PROTOCOL_PASSWORD);
    await page.context().close();
  });

  it('sends a QR code of an unknown protocol or a broken link back to the login', async () => {
    const page = await open('/login-qrcode?protocol=000&password=x');
    await page.waitForURL('**/login');
    await page.getByText('O laudo ainda não está disponível.').waitFor();
    await page.goto('/login-qrcode?protocol=123');
    await page.waitForURL('**/login');
    await page.getByText('O link de acesso está incompleto ou incorreto', { exact: false }).waitFor();
    await page.goto('/login-external?email=ninguem@example.com&password=x');
    await page.waitForURL('**/login');
    await page.getByText('Usuário não cadastrado.').waitFor();
    await page.context().close();
  });
});

describe('patient invitation', () => {
  it('creates the invited account with the e-mail of the invitation, already active', async () => {
    const sent = mailbox.mails.length;
    await admin.invitePatient(institution.apiKey, PROTOCOL, 'pt-br');
    const mail = await mailbox.waitFor(PATIENT_EMAIL, { after: sent });
    const page = await open(pathOf(linkIn(mail, portal.baseUrl, '/patient/create')));
    await page.getByText('Você recebeu um convite', { exact: false }).waitFor();
    const emailField = page.getByLabel(/^E-mail/);
    // The form is filled from the invitation an effect after it first appears.
    await expect.poll(() => emailField.inputValue()).toBe(PATIENT_EMAIL);
    expect(await emailField.getAttribute('readonly')).not.toBeNull();
    await expect.poll(() => page.getByLabel(/^Nome completo/).inputValue()).toBe('Marina Costa');
    await screenshotBothWidths(page, 'patient-create-invited');
    await expectAccessible(page, '/patient/create with an invitation');

    await page.getByLabel(/^Data de nascimento/).pressSequentially('21071988');
    await page
      .getByLabel(/^Senha/)
      .first()
      .fill('Marina-2026-ok');
    await page.getByLabel(/^Confirme a senha/).fill('Marina-2026-ok');
    await page.getByTestId('terms-checkbox').check();
    await page.getByTestId('patient-create-submit').click();
    await page.waitForURL('**/login?activeSuccess=true');
    await signIn(page, PATIENT_EMAIL, 'Marina-2026-ok');
    await page.waitForURL('**/dashboard/patient/protocols');
    await page.context().close();
  });

  it('ends a session the server no longer knows: message, credentials cleared, login after 2 s', async () => {
    const page = await open('/login');
    await signIn(page, PATIENT_EMAIL, 'Marina-2026-ok');
    await page.waitForURL('**/dashboard/patient/protocols');
    // The session is revoked elsewhere (another tab's logout, an operator).
    const token = await page.evaluate(() => JSON.parse(sessionStorage.getItem('portal.credentials') ?? '{}').token);
    const revoked = await fetch(`${portal.baseUrl}/api/v2/auth/logout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(revoked.ok).toBe(true);
    // The stored credentials still look valid; the first call with them is refused.
    await page.goto('/patient/edit');
    await page.getByText('Sua sessão expirou. Faça o acesso novamente.').waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('portal.credentials'))).toBeNull();
    await page.waitForURL('**/login');
    await page.context().close();
  });

  it('sends an expired or unknown invitation to the login with the activation warning', async () => {
    const page = await open('/patient/create?token=desconhecido');
    await page.waitForURL('**/login?activeSuccess=false');
    await page.getByText('Não foi possível ativar a conta').waitFor();
    await page.context().close();
  });
});

describe('external user', () => {
  it('sets the first password from the mail and chooses a favourite group', async () => {
    const tag = await admin.createTag(institution.id, 'Parceiro Norte');
    const email = 'parceiro@norte.example.com';
    const sent = mailbox.mails.length;
    await admin.addTagUser(institution.id, tag.id, { email, name: 'Paula Norte', language: 'pt-br' });
    const mail = await mailbox.waitFor(email, { after: sent });
    const page = await open(pathOf(linkIn(mail, portal.baseUrl, '/password/reset')));
    await page.getByLabel(/^Nova senha/).fill('Parceiro-2026');
    await page.getByLabel(/^Confirme a nova senha/).fill('Parceiro-2026');
    await page.getByRole('button', { name: 'Salvar nova senha' }).click();
    await page.getByText('Senha alterada').waitFor();

    await signIn(page, email, 'Parceiro-2026');
    const terms = page.getByRole('dialog', { name: 'Termos atualizados' });
    await terms.waitFor();
    await terms.getByTestId('terms-update-checkbox').check();
    await terms.getByRole('button', { name: 'Confirmar' }).click();
    await page.waitForURL('**/dashboard/external/exams');

    await page.getByRole('button', { name: /^Minha conta/ }).click();
    await page.getByRole('menuitem', { name: 'Minha conta' }).click();
    await page.waitForURL('**/external-user/edit');
    await page.getByRole('textbox', { name: /^Grupo favorito/ }).click();
    await page.getByRole('option', { name: 'Parceiro Norte' }).click();
    await page.getByRole('button', { name: 'Salvar', exact: true }).click();
    await page.getByText('Dados salvos.').waitFor();
    await screenshotBothWidths(page, 'external-user-edit');
    await expectAccessible(page, '/external-user/edit');
    await page.context().close();
  });
});

describe('physician account screen', () => {
  it('keeps name, CRM and UF read-only and saves CPF, birth date, phones and mail frequency', async () => {
    const email = 'dra.helena@example.com';
    const sent = mailbox.mails.length;
    await admin.invitePhysician({
      email,
      name: 'Helena Prado',
      crm: '654321',
      uf: 'RJ',
      institutionId: institution.id,
      language: 'pt-br',
    });
    const mail = await mailbox.waitFor(email, { after: sent });
    const page = await open(pathOf(linkIn(mail, portal.baseUrl, '/physician/create')));
    await page.getByLabel(/^Senha/).fill('Helena-2026-ok');
    await page.getByLabel(/^Confirme a senha/).fill('Helena-2026-ok');
    await page.getByRole('button', { name: 'Criar cadastro' }).click();
    await page.waitForURL('**/login?activeSuccess=true');
    await signIn(page, email, 'Helena-2026-ok');
    const terms = page.getByRole('dialog', { name: 'Termos atualizados' });
    await terms.getByTestId('terms-update-checkbox').check();
    await terms.getByRole('button', { name: 'Confirmar' }).click();
    await page.waitForURL('**/dashboard/physician/protocols');

    await page.goto('/physician/edit');
    await page.getByRole('heading', { level: 1, name: 'Minha conta' }).waitFor();
    expect(await page.getByLabel(/^Nome completo/).getAttribute('readonly')).not.toBeNull();
    expect(await page.getByLabel(/^CRM$/).inputValue()).toBe('654321');
    expect(await page.getByLabel(/^UF do CRM/).inputValue()).toBe('RJ');
    await page.getByLabel(/^CPF/).pressSequentially('52998224725');
    await page.getByLabel(/^Data de nascimento/).pressSequentially('10101975');
    await page.getByLabel(/^Celular/).pressSequentially('21987654321');
    await page.getByRole('button', { name: 'Preferências' }).click();
    await page.getByRole('radio', { name: 'Um resumo por dia' }).check();
    await page.getByRole('button', { name: 'Salvar', exact: true }).click();
    await page.getByText('Dados salvos.').waitFor();
    await screenshotBothWidths(page, 'physician-edit');
    await expectAccessible(page, '/physician/edit');

    await page.reload();
    await page.getByRole('button', { name: 'Preferências' }).click();
    expect(await page.getByRole('radio', { name: 'Um resumo por dia' }).isChecked()).toBe(true);
    expect(await page.getByLabel(/^Celular/).inputValue()).toBe('(21) 98765-4321');
    await page.context().close();
  });
});
