import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminApi } from './support/admin-api';
import { contrastOf, expectAccessible, launchBrowser, screenshotBothWidths } from './support/browser';
import { checkScreen, consoleSignIn, nav, pathOf, tokenOf } from './support/console';
import { linkIn, type Mailbox, startMailbox } from './support/mailbox';
import { openPage, signIn } from './support/pages';
import { type RunningPortal, startPortal } from './support/portal';

/*
 * The administration console at /admin/ (contract 9), driven as a clinic's staff would: one
 * portal and one browser for the whole file; each journey builds on the one before.
 */

let mailbox: Mailbox;
let portal: RunningPortal;
let browser: Browser;
let api: AdminApi;
let adminPage: Page;
let institutionId = '';
let apiKey = '';

const NOTICE = 'Exames de imagem ficam disponíveis por 5 anos.';
const TAG = 'Convênio Azul';
const EXTERNAL = { name: 'Paula Parceira', email: 'paula@parceiro.example.com', password: 'Parceira-2026' };
const COMPANY = { name: 'Gestão Horizonte', email: 'gestao@horizonte.example.com', password: 'Empresa-2026-segura' };
const PHYSICIAN = {
  name: 'Helena Prado',
  email: 'dra.helena@example.com',
  crm: '654321',
  uf: 'RJ',
  password: 'Helena-2026-ok',
};
// Protocols of the last hours: the patient app's lists open on the last 7 days.
const REQUESTED_AT = new Date(Date.now() - 2 * 3600_000).toISOString();
const PERFORMED_AT = new Date(Date.now() - 3600_000).toISOString();
const GUEST = { number: '2026009001', password: 'guest-9001' };

function protocolBody(patient: string, options: { tag?: string; crm?: string; uf?: string; password?: string } = {}) {
  const key = patient.normalize('NFD').replace(/[^A-Za-z0-9]/g, '');
  return {
    password: options.password ?? 'proto-1234',
    requestedAt: REQUESTED_AT,
    ...(options.tag ? { tag: options.tag } : {}),
    patient: { patientId: `P-${key}`, name: patient, birthDate: '1980-05-04', gender: 'F' },
    exams: [
      {
        examKey: `EX-${key}`,
        description: 'Raio X de tórax',
        type: 'XRAY',
        modalityCode: 'CR',
        modalityName: 'Radiografia',
        status: 'RELEASED',
        performedAt: PERFORMED_AT,
        ...(options.crm
          ? { requester: { identifier: `R-${options.crm}`, name: PHYSICIAN.name, crm: options.crm, uf: options.uf } }
          : {}),
      },
    ],
  };
}

async function ingestWith(key: string, number: string, body: unknown): Promise<number> {
  const response = await fetch(`${portal.baseUrl}/api/v2/delivery/ingest/protocols/${number}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 400 && response.status !== 401) console.error(`ingest ${number}: ${text}`);
  return response.status;
}

beforeAll(async () => {
  mailbox = await startMailbox();
  portal = await startPortal({ SMTP_URL: mailbox.url });
  browser = await launchBrowser();
  api = new AdminApi(portal.baseUrl, portal.admin);
  await api.signIn();
});

afterAll(async () => {
  await browser?.close();
  await portal?.stop();
  await mailbox?.close();
});

describe('administration console', () => {
  it('is reached from the patient app’s notice, refuses a patient and signs an admin in', async () => {
    const page = await openPage(browser, portal.baseUrl, '/login', true);
    await page.getByRole('link', { name: 'Ir para a administração' }).click();
    await page.waitForURL('**/admin/login');
    await page.getByRole('heading', { level: 1, name: 'Administração do portal' }).waitFor();
    await checkScreen(page, 'admin-login');

    await page.getByRole('textbox', { name: /^E-mail/ }).fill('ninguem@example.com');
    await page.getByLabel(/^Senha/).fill('errada-123');
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByText('E-mail ou senha incorretos.').waitFor();

    await page.getByRole('button', { name: 'Esqueci minha senha' }).click();
    await page.getByText('Informe seu e-mail: enviaremos um link').waitFor();
    await checkScreen(page, 'admin-forgot-password');
    await page.getByRole('button', { name: 'Voltar ao acesso' }).click();

    await consoleSignIn(page, portal.admin.email, portal.admin.password);
    await page.getByRole('heading', { level: 2, name: 'Painel' }).waitFor();
    await page.getByText('Mensagens aguardando').waitFor();
    adminPage = page;
  });

  it('creates an institution, sets its notice and visualizer settings, and rotates its key', async () => {
    const page = adminPage;
    await nav(page, 'Instituições');
    await page.waitForURL('**/admin/institution/list');
    await page.getByRole('link', { name: 'Nova instituição' }).click();
    await page.getByRole('textbox', { name: /^Nome/ }).fill('Clínica Horizonte');
    await page.getByRole('textbox', { name: /^Código/ }).fill('HORIZ');
    await page.getByRole('textbox', { name: /^E-mail de suporte/ }).fill('suporte@horizonte.example.com');
    await page.getByRole('button', { name: 'Criar instituição' }).click();
    await page.waitForURL('**/admin/institution/edit/*');
    institutionId = page.url().split('/').pop()!;
    apiKey = (await page.getByTestId('api-key').textContent())!.trim();
    expect(apiKey.length).toBeGreaterThan(20);

    await page.getByRole('textbox', { name: 'Português' }).fill(NOTICE);
    await page.getByRole('textbox', { name: 'Inglês' }).fill('Imaging exams stay available for 5 years.');
    await page.getByRole('button', { name: 'Adicionar tipo de exame', exact: true }).click();
    await page.getByRole('textbox', { name: /^Tipo de exame/ }).fill('XRAY');
    await page.getByRole('checkbox', { name: 'Esconder imagem' }).check();
    await page.getByRole('switch', { name: 'Convidar pacientes automaticamente' }).check();
    const saved = page.waitForResponse(
      (r) => r.url().includes(`/institution/${institutionId}`) && r.request().method() === 'PUT',
    );
    await page.getByRole('button', { name: 'Salvar', exact: true }).click();
    expect((await saved).status()).toBe(200);

    const stored = await fetch(`${portal.baseUrl}/api/administrationbe/institution/${institutionId}`, {
      headers: { authorization: `Bearer ${await tokenOf(page)}` },
    }).then((r) => r.json() as Promise<{ data: { settings: Record<string, unknown> } }>);
    expect(stored.data.settings.protocolNotice).toEqual({
      'pt-br': NOTICE,
      en: 'Imaging exams stay available for 5 years.',
    });
    expect(stored.data.settings.visualizerSettings).toEqual([{ examTypeCode: 'XRAY', hideButton: true, enable: true }]);
    expect(stored.data.settings.autoInvitePatients).toBe(true);
    await page.reload();
    await expect.poll(() => page.getByRole('textbox', { name: 'Português' }).inputValue()).toBe(NOTICE);
    await checkScreen(page, 'admin-institution-edit');

    expect(await ingestWith(apiKey, GUEST.number, protocolBody('Gustavo Guest', { password: GUEST.password }))).toBe(
      201,
    );
    await page.getByRole('button', { name: 'Gerar nova chave de API' }).click();
    const dialog = page.getByRole('dialog', { name: 'Gerar nova chave de API?' });
    await dialog.getByText('A chave atual deixa de funcionar imediatamente').waitFor();
    await screenshotBothWidths(page, 'admin-institution-rotate');
    // The dialog's close button is named, and its red confirm button's text keeps 4.5:1 (WCAG 1.4.3).
    await dialog.getByRole('button', { name: 'Fechar' }).waitFor();
    await expectAccessible(page, 'admin-institution-rotate');
    expect(await contrastOf(dialog.getByRole('button', { name: 'Gerar nova chave' }))).toBeGreaterThanOrEqual(4.5);
    await dialog.getByRole('button', { name: 'Gerar nova chave' }).click();
    await page.waitForFunction(
      (old) => document.querySelector('[data-testid="api-key"]')?.textContent?.trim() !== old,
      apiKey,
    );
    const rotated = (await page.getByTestId('api-key').textContent())!.trim();
    expect(rotated).not.toBe(apiKey);
    expect(await ingestWith(apiKey, '2026009002', protocolBody('Old Key'))).toBe(401);
    expect(await ingestWith(rotated, '2026009002', protocolBody('New Key'))).toBe(201);
    apiKey = rotated;

    // With "invite patients automatically" on, a new patient's protocol mails him the invitation.
    const invited = protocolBody('Irene Convite');
    const sent = mailbox.mails.length;
    expect(
      await ingestWith(apiKey, '2026009090', {
        ...invited,
        patient: { ...invited.patient, email: 'irene@example.com' },
      }),
    ).toBe(201);
    const invitation = await mailbox.waitFor('irene@example.com', { after: sent });
    expect(linkIn(invitation, portal.baseUrl, '/patient/create')).toContain('token=');

    await nav(page, 'Instituições');
    await page.getByRole('link', { name: 'Clínica Horizonte' }).waitFor();
    await checkScreen(page, 'admin-institutions');
  });

  it('creates a tag and invites an external user, who signs up through the mail and sees its protocols', async () => {
    const page = adminPage;
    await nav(page, 'Grupos (tags)');
    await page.getByRole('textbox', { name: /^Novo grupo/ }).fill(TAG);
    await page.getByRole('button', { name: 'Criar grupo' }).click();
    const card = page.getByRole('region', { name: TAG });
    await card.getByRole('button', { name: 'Ver usuários' }).click();
    await card.getByRole('textbox', { name: /^Nome/ }).fill(EXTERNAL.name);
    await card.getByRole('textbox', { name: /^E-mail/ }).fill(EXTERNAL.email);
    const sent = mailbox.mails.length;
    await card.getByRole('button', { name: 'Adicionar usuário' }).click();
    await card.getByText('Convite pendente').waitFor();
    await checkScreen(page, 'admin-tags');
    expect(await ingestWith(apiKey, '2026009003', protocolBody('Tânia Tagged', { tag: TAG }))).toBe(201);

    const mail = await mailbox.waitFor(EXTERNAL.email, { after: sent });
    const external = await openPage(
      browser,
      portal.baseUrl,
      pathOf(linkIn(mail, portal.baseUrl, '/password/reset')),
      true,
    );
    await external.getByLabel(/^Nova senha/).fill(EXTERNAL.password);
    await external.getByLabel(/^Confirme a nova senha/).fill(EXTERNAL.password);
    await external.getByRole('button', { name: 'Salvar nova senha' }).click();
    await external.getByText('Senha alterada').waitFor();
    await signIn(external, EXTERNAL.email, EXTERNAL.password);
    const terms = external.getByRole('dialog', { name: 'Termos atualizados' });
    await terms.getByTestId('terms-update-checkbox').check();
    await terms.getByRole('button', { name: 'Confirmar' }).click();
    await external.waitForURL('**/dashboard/external/exams');
    await external.getByText('Tânia Tagged').first().waitFor();
    expect(await external.getByText('Gustavo Guest').count()).toBe(0);
    await external.context().close();

    await page.reload();
    await page.getByRole('region', { name: TAG }).getByRole('button', { name: 'Ver usuários' }).click();
    await page.getByRole('region', { name: TAG }).getByText('Ativa').waitFor();
  });

  it('says why a tag was not deleted: still on protocols, or already gone', async () => {
    const page = adminPage;
    const confirmDelete = () =>
      page.getByRole('dialog', { name: 'Excluir grupo?' }).getByRole('button', { name: 'Excluir' }).click();
    // The tag is on a protocol (ingested above): it stays, and its card says so.
    const used = page.getByRole('region', { name: TAG });
    await used.getByRole('button', { name: 'Excluir' }).click();
    await confirmDelete();
    await used.getByRole('alert').getByText('Este grupo não pode ser excluído: há protocolos nele.').waitFor();

    // Someone else deleted this one meanwhile: the card says it no longer exists, not that it is in use.
    const other = await api.createTag(institutionId, 'Convênio Verde');
    await page.reload();
    const gone = page.getByRole('region', { name: 'Convênio Verde' });
    await gone.waitFor();
    await api.deleteTag(institutionId, other.id);
    await gone.getByRole('button', { name: 'Excluir' }).click();
    await confirmDelete();
    await gone.getByRole('alert').getByText('Não encontrado.').waitFor();
    expect(await gone.getByText('Este grupo não pode ser excluído').count()).toBe(0);
  });

  it('lets a company user invite a physician, who then sees his protocols', async () => {
    const page = adminPage;
    await nav(page, 'Convidar');
    await page.getByRole('combobox', { name: 'Instituição' }).selectOption({ label: 'Clínica Horizonte (HORIZ)' });
    const companyForm = page.getByRole('group', { name: 'Usuário da empresa' });
    await companyForm.getByRole('textbox', { name: /^E-mail/ }).fill(COMPANY.email);
    let sent = mailbox.mails.length;
    await companyForm.getByRole('button', { name: 'Convidar usuário da empresa' }).click();
    await page.getByText(`Convite enviado para ${COMPANY.email}.`).waitFor();
    const invitation = await mailbox.waitFor(COMPANY.email, { after: sent });
    const access = await openPage(
      browser,
      portal.baseUrl,
      pathOf(linkIn(invitation, portal.baseUrl, '/company-access/create')),
      true,
    );
    await access.getByLabel(/^Nome completo/).fill(COMPANY.name);
    await access.getByLabel(/^Senha/).fill(COMPANY.password);
    await access.getByLabel(/^Confirme a senha/).fill(COMPANY.password);
    await access.getByTestId('terms-checkbox').check();
    await access.getByRole('button', { name: 'Criar acesso' }).click();
    await access.waitForURL('**/login?activeSuccess=true');

    await consoleSignIn(access, COMPANY.email, COMPANY.password);
    await nav(access, 'Minha instituição');
    await access.waitForURL(`**/admin/institution/edit/${institutionId}`);
    // Spec 2.6: the registration items (institutions, tags) are the portal administrators'.
    const menu = access.getByRole('navigation', { name: 'Menu da administração' });
    expect(await menu.getByRole('link', { name: 'Instituições' }).count()).toBe(0);
    expect(await menu.getByRole('link', { name: 'Grupos (tags)' }).count()).toBe(0);
    // The outbox is there, holding its institution's messages only (the API tests check the limit).
    expect(await menu.getByRole('link', { name: 'Caixa de saída' }).count()).toBe(1);
    expect(await access.getByRole('textbox', { name: /^Código/ }).getAttribute('readonly')).not.toBeNull();
    await checkScreen(access, 'admin-own-institution');

    await nav(access, 'Convidar');
    const physicianForm = access.getByRole('group', { name: 'Médico' });
    await physicianForm.getByRole('textbox', { name: /^Nome/ }).fill(PHYSICIAN.name);
    await physicianForm.getByRole('textbox', { name: /^E-mail/ }).fill(PHYSICIAN.email);
    await physicianForm.getByRole('textbox', { name: /^CRM/ }).fill(PHYSICIAN.crm);
    await physicianForm.getByRole('combobox', { name: 'UF' }).selectOption(PHYSICIAN.uf);
    sent = mailbox.mails.length;
    await physicianForm.getByRole('button', { name: 'Convidar médico' }).click();
    await access.getByText(`Convite enviado para ${PHYSICIAN.email}.`).waitFor();
    await checkScreen(access, 'admin-invite');
    expect(
      await ingestWith(apiKey, '2026009004', protocolBody('Paulo Pedido', { crm: PHYSICIAN.crm, uf: PHYSICIAN.uf })),
    ).toBe(201);

    const mail = await mailbox.waitFor(PHYSICIAN.email, { after: sent });
    const physician = await openPage(
      browser,
      portal.baseUrl,
      pathOf(linkIn(mail, portal.baseUrl, '/physician/create')),
      true,
    );
    await physician.getByLabel(/^Senha/).fill(PHYSICIAN.password);
    await physician.getByLabel(/^Confirme a senha/).fill(PHYSICIAN.password);
    await physician.getByRole('button', { name: 'Criar cadastro' }).click();
    await physician.waitForURL('**/login?activeSuccess=true');
    await signIn(physician, PHYSICIAN.email, PHYSICIAN.password);
    const terms = physician.getByRole('dialog', { name: 'Termos atualizados' });
    await terms.getByTestId('terms-update-checkbox').check();
    await terms.getByRole('button', { name: 'Confirmar' }).click();
    await physician.waitForURL('**/dashboard/physician/protocols');
    await physician.getByText('Paulo Pedido').first().waitFor();
    await physician.context().close();

    // The company user's people list holds its institution's people only.
    await nav(access, 'Pessoas');
    await access.getByText(PHYSICIAN.name).first().waitFor();
    expect(await access.getByText(EXTERNAL.email).count()).toBe(0);
    await access.context().close();
  });

  it('disables a protocol with a reason: its guest can no longer open it', async () => {
    const guest = await openPage(browser, portal.baseUrl, '/login', true);
    await signIn(guest, GUEST.number, GUEST.password);
    await guest.waitForURL('**/viewprotocol');
    await guest.getByText(NOTICE).waitFor();
    await guest.context().close();

    const page = adminPage;
    await nav(page, 'Protocolos');
    await page.getByRole('textbox', { name: /^Protocolo/ }).fill(GUEST.number);
    await page.getByRole('button', { name: 'Buscar' }).click();
    await page.getByRole('button', { name: GUEST.number }).click();
    const detail = page.getByRole('region', { name: `Protocolo ${GUEST.number}` });
    await detail.getByText('Raio X de tórax').first().waitFor();
    await checkScreen(page, 'admin-protocols');
    await detail.getByRole('button', { name: 'Desativar protocolo' }).click();
    const dialog = page.getByRole('dialog', { name: `Desativar o protocolo ${GUEST.number}?` });
    await dialog.getByText('Ninguém mais poderá abrir este protocolo').waitFor();
    expect(await dialog.getByRole('button', { name: 'Desativar protocolo' }).isDisabled()).toBe(true);
    await dialog.getByRole('textbox', { name: /^Motivo/ }).fill('Enviado ao paciente errado');
    await screenshotBothWidths(page, 'admin-protocol-disable');
    await dialog.getByRole('button', { name: 'Desativar protocolo' }).click();
    await page.getByText('Protocolo desativado.').last().waitFor();
    await detail.getByText('Desativado', { exact: true }).waitFor();

    const again = await openPage(browser, portal.baseUrl, '/login', true);
    await signIn(again, GUEST.number, GUEST.password);
    await again.getByText('Protocolo ou e-mail desativado.').waitFor();
    expect(again.url()).not.toContain('/viewprotocol');
    await again.context().close();
  });

  it('exports the audit trail as CSV with those events', async () => {
    const page = adminPage;
    await nav(page, 'Trilha de auditoria');
    await page.getByText('PROTOCOL_DISABLED').first().waitFor();
    await checkScreen(page, 'admin-audit');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Exportar CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^audit-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = fs.readFileSync((await download.path())!, 'utf8');
    for (const event of [
      'INSTITUTION_CREATED',
      'INSTITUTION_UPDATED',
      'INSTITUTION_API_KEY_ROTATED',
      'TAG_CREATED',
      'TAG_USER_ADDED',
      'COMPANY_INVITED',
      'PHYSICIAN_INVITED',
      'PROTOCOL_DISABLED',
    ]) {
      expect(csv, event).toContain(`"${event}"`);
    }
    expect(csv).toContain('Enviado ao paciente errado');

    await nav(page, 'Pessoas');
    await page.getByText(EXTERNAL.email).waitFor();
    await checkScreen(page, 'admin-people');
    await nav(page, 'Caixa de saída');
    await page.getByText(PHYSICIAN.email).first().waitFor();
    await checkScreen(page, 'admin-outbox');
    await nav(page, 'Painel');
    await page.getByText('Clínica Horizonte').first().waitFor();
    await checkScreen(page, 'admin-dashboard');
  });
});
