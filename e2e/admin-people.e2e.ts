import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminApi } from './support/admin-api';
import { drawnContrastOf, expectAccessible, launchBrowser, screenshotBothWidths } from './support/browser';
import { checkScreen, consoleSignIn, nav, pathOf } from './support/console';
import { linkIn, type Mailbox, startMailbox } from './support/mailbox';
import { openPage } from './support/pages';
import { type RunningPortal, startPortal } from './support/portal';

/*
 * The administration console's people side, driven as a clinic's IT staff would: an admin invites
 * another admin, who chooses a password from the mail; invitations are revoked and sent again;
 * physicians show the institutions that vouch for them; the integration calls and their errors are
 * one click from the dashboard; and the console is used with the keyboard alone.
 */

let mailbox: Mailbox;
let portal: RunningPortal;
let browser: Browser;
let api: AdminApi;
let adminPage: Page;
let north: { id: string; apiKey: string };
let south: { id: string };

const NEW_ADMIN = { name: 'Renata Operações', email: 'renata@portal.example.com', password: 'Console-2026-forte' };
const LATE_ADMIN = { name: 'Otávio Tardio', email: 'otavio@portal.example.com' };
// Protocols of the last hours: the patient app's lists open on the last 7 days.
const REQUESTED_AT = new Date(Date.now() - 2 * 3600_000).toISOString();
const PERFORMED_AT = new Date(Date.now() - 3600_000).toISOString();
const PHYSICIAN = { name: 'Marcos Avalizado', email: 'dr.marcos@example.com', crm: '778899', uf: 'MG' };
const PHYSICIAN_PASSWORD = 'Marcos-2026-ok';

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${portal.baseUrl}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json().catch(() => null)) as { data?: unknown } | null };
}

const tokenIn = (link: string) => new URL(link).searchParams.get('token') ?? '';

type Box = { x: number; y: number; width: number; height: number };

/**
 * What a box and a few pixels around it (where a focus ring is drawn) look like. Transitions of
 * borders and rings are run to their end by the screenshot itself, so no wait is guessed.
 */
function lookOf(page: Page, box: Box): Promise<Buffer> {
  return page.screenshot({
    animations: 'disabled',
    clip: { x: Math.max(0, box.x - 6), y: Math.max(0, box.y - 6), width: box.width + 12, height: box.height + 12 },
  });
}

/** The accessible name of the focused element, as a screen reader would announce it. */
function focusedName(page: Page): Promise<string> {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    if (!element) return '';
    const labelled = element.getAttribute('aria-labelledby');
    return (
      element.getAttribute('aria-label') ??
      (labelled ? document.getElementById(labelled)?.textContent : null) ??
      (element as HTMLInputElement).labels?.[0]?.textContent ??
      element.textContent ??
      ''
    ).trim();
  });
}

/**
 * Presses Tab until the focused element has that accessible name, then checks that a person sees
 * where the focus is: the element looks different focused (reached by Tab) and not (Shift+Tab away).
 */
async function tabTo(page: Page, name: RegExp, limit = 80): Promise<void> {
  for (let i = 0; i < limit; i += 1) {
    await page.keyboard.press('Tab');
    const label = await focusedName(page);
    if (!name.test(label)) continue;
    const box = await page.locator(':focus').boundingBox();
    if (!box) throw new Error(`"${label}" is focused but not drawn`);
    const focused = await lookOf(page, box);
    await page.keyboard.press('Shift+Tab');
    const away = await lookOf(page, box);
    await page.keyboard.press('Tab');
    // From the page's first field, Shift+Tab leaves the page (a browser hands focus to its toolbar;
    // headless Chromium rests it on the document's edge, the body): the next Tab may stop on that
    // edge before it comes back in. Once, never more: the field must then be focused again.
    if (await page.evaluate(() => document.activeElement === document.body)) await page.keyboard.press('Tab');
    expect(focused.equals(away), `the focus on "${label}" is visible`).toBe(false);
    expect(await focusedName(page), 'Tab goes back where Shift+Tab left').toBe(label);
    return;
  }
  throw new Error(`Tab never reached ${String(name)}`);
}

beforeAll(async () => {
  mailbox = await startMailbox();
  portal = await startPortal({ SMTP_URL: mailbox.url });
  browser = await launchBrowser();
  api = new AdminApi(portal.baseUrl, portal.admin);
  await api.signIn();
  north = await api.createInstitution({ code: 'NORTE', name: 'Laboratório Norte' });
  south = await api.createInstitution({ code: 'SUL', name: 'Clínica Sul' });
});

afterAll(async () => {
  await browser?.close();
  await portal?.stop();
  await mailbox?.close();
});

/** The first admin's console tab, signed in once for the file (a journey run alone signs it in). */
async function adminConsole(): Promise<Page> {
  if (!adminPage) {
    const page = await openPage(browser, portal.baseUrl, '/admin/login', true);
    await consoleSignIn(page, portal.admin.email, portal.admin.password);
    adminPage = page;
  }
  return adminPage;
}

let physicianCreated: Promise<void> | undefined;
/** The physician the account journeys act on: invited by Norte, his password chosen from the mail. */
function physicianAccount(): Promise<void> {
  physicianCreated ??= (async () => {
    const sent = mailbox.mails.length;
    await api.invitePhysician({ ...PHYSICIAN, institutionId: north.id, language: 'pt-br' });
    const link = linkIn(await mailbox.waitFor(PHYSICIAN.email, { after: sent }), portal.baseUrl, '/physician/create');
    const created = await call('POST', '/api/v2/auth/physician/create', {
      token: tokenIn(link),
      password: PHYSICIAN_PASSWORD,
      confirmPassword: PHYSICIAN_PASSWORD,
    });
    expect(created.status).toBe(201);
  })();
  return physicianCreated;
}

describe('administration console: people and invitations', () => {
  it('lets an admin invite an admin, who chooses a first password from the mail and is signed in', async () => {
    const page = await adminConsole();
    await nav(page, 'Convidar');
    const form = page.getByRole('group', { name: 'Administrador do portal' });
    await form.getByRole('textbox', { name: /^Nome/ }).fill(NEW_ADMIN.name);
    await form.getByRole('textbox', { name: /^E-mail/ }).fill(NEW_ADMIN.email);
    const sent = mailbox.mails.length;
    await form.getByRole('button', { name: 'Convidar administrador' }).click();
    await page.getByText(`Convite enviado para ${NEW_ADMIN.email}.`).waitFor();
    await checkScreen(page, 'admin-invite-admin');

    const mail = await mailbox.waitFor(NEW_ADMIN.email, { after: sent });
    const link = pathOf(linkIn(mail, portal.baseUrl, '/admin/invitation'));
    const invited = await openPage(browser, portal.baseUrl, link, true);
    await invited.getByRole('heading', { level: 1, name: 'Criar seu acesso à administração' }).waitFor();
    expect(await invited.getByRole('textbox', { name: /^E-mail/ }).inputValue()).toBe(NEW_ADMIN.email);
    expect(await invited.getByRole('textbox', { name: /^Nome completo/ }).inputValue()).toBe(NEW_ADMIN.name);
    await checkScreen(invited, 'admin-first-password');
    // A mistyped confirmation is caught on the page, before any call.
    await invited.getByLabel(/^Senha/).fill(NEW_ADMIN.password);
    await invited.getByLabel(/^Confirme a senha/).fill('outra-coisa-2026');
    await invited.getByRole('button', { name: 'Criar acesso e entrar' }).click();
    await invited.getByText('As senhas não conferem.').waitFor();
    await invited.getByLabel(/^Confirme a senha/).fill(NEW_ADMIN.password);
    await invited.getByRole('button', { name: 'Criar acesso e entrar' }).click();
    await invited.waitForURL('**/admin/dashboard');
    await invited.getByRole('heading', { level: 2, name: 'Painel' }).waitFor();
    // An admin's menu: the new account runs every institution.
    await nav(invited, 'Instituições');
    await invited.getByRole('link', { name: 'Clínica Sul', exact: true }).waitFor();

    // The link was for one use: opened again, it is refused.
    await invited.goto(link);
    await invited.getByText('Este link expirou, já foi usado ou foi revogado.').waitFor();
    await checkScreen(invited, 'admin-invitation-refused');
    await invited.context().close();
  });

  it('revokes an invitation, whose link is then refused, and sends it again with a link that works', async () => {
    const page = await adminConsole();
    const sent = mailbox.mails.length;
    await api.inviteAdmin({ ...LATE_ADMIN, language: 'pt-br' });
    const first = linkIn(await mailbox.waitFor(LATE_ADMIN.email, { after: sent }), portal.baseUrl, '/admin/invitation');

    await nav(page, 'Convites');
    await page.waitForURL('**/admin/invitations');
    const row = () => page.getByRole('row', { name: new RegExp(LATE_ADMIN.name) });
    await row().waitFor();
    await checkScreen(page, 'admin-invitations');
    await row().getByRole('button', { name: 'Revogar' }).click();
    const revoke = page.getByRole('dialog', { name: 'Revogar convite?' });
    await revoke.getByText(`O link enviado para ${LATE_ADMIN.email} deixa de funcionar agora`).waitFor();
    await expectAccessible(page, 'admin-invitation-revoke');
    await screenshotBothWidths(page, 'admin-invitation-revoke');
    // The window crossed from the desk's table to the phone's cards and back: the dialog stayed open.
    // It is drawn again in the table after the switch, and its title names it an effect later: wait
    // for it to be drawn rather than look once mid-redraw (a closed dialog would never come back).
    await revoke.waitFor({ state: 'visible' });
    await revoke.getByRole('button', { name: 'Revogar' }).click();
    await page.getByText(`Convite para ${LATE_ADMIN.email} revogado.`).waitFor();
    // The pending list no longer holds it; all states show it revoked.
    await row().waitFor({ state: 'detached' });
    expect((await call('GET', `/api/auth/admin/invite/validate?token=${tokenIn(first)}`)).status).toBe(404);
    const refused = await openPage(browser, portal.baseUrl, pathOf(first), true);
    await refused.getByText('Convite inválido').waitFor();
    await refused.context().close();

    await page.getByRole('combobox', { name: 'Situação' }).selectOption({ label: 'Todos' });
    await row().getByText('Revogado').waitFor();
    const again = mailbox.mails.length;
    await row().getByRole('button', { name: 'Reenviar' }).click();
    const resend = page.getByRole('dialog', { name: 'Reenviar convite?' });
    await resend.getByText(`Um novo link, válido por 7 dias, será enviado para ${LATE_ADMIN.email}.`).waitFor();
    await resend.getByRole('button', { name: 'Reenviar' }).click();
    await page.getByText(`Convite reenviado para ${LATE_ADMIN.email}.`).waitFor();
    const second = linkIn(
      await mailbox.waitFor(LATE_ADMIN.email, { after: again }),
      portal.baseUrl,
      '/admin/invitation',
    );
    expect(tokenIn(second)).not.toBe(tokenIn(first));
    const validate = await call('GET', `/api/auth/admin/invite/validate?token=${tokenIn(second)}`);
    expect(validate.status).toBe(200);
    expect((await call('GET', `/api/auth/admin/invite/validate?token=${tokenIn(first)}`)).status).toBe(404);
    await page.getByRole('combobox', { name: 'Situação' }).selectOption({ label: 'Pendente' });
    await row().getByText('Pendente').waitFor();

    // A search that finds nothing says so.
    await page.getByRole('searchbox', { name: 'Nome, e-mail ou CRM' }).fill('ninguém com este nome');
    await page.getByText('Nenhum registro encontrado.').waitFor();
    await checkScreen(page, 'admin-invitations-empty');
  });

  it('shows the institutions that vouch for a physician', async () => {
    await physicianAccount();
    await api.addInstitutionPhysician(south.id, PHYSICIAN.email);

    const page = await adminConsole();
    await nav(page, 'Pessoas');
    await page.getByRole('searchbox', { name: 'Nome, e-mail, CPF ou CRM' }).fill(PHYSICIAN.crm);
    const row = page.getByRole('row', { name: new RegExp(PHYSICIAN.name) });
    await row.getByText(/^Avalizado por: /).waitFor();
    const vouchers = await row.getByText(/^Avalizado por: /).textContent();
    expect(vouchers).toContain('Laboratório Norte');
    expect(vouchers).toContain('Clínica Sul');
    await checkScreen(page, 'admin-people-vouched');
  });
});

describe('administration console: an account’s access', () => {
  const PASSWORD = PHYSICIAN_PASSWORD;
  beforeAll(async () => {
    await physicianAccount();
    await adminConsole();
  });
  const signIn = (password = PASSWORD) =>
    call('POST', '/api/v2/auth/login', { userName: PHYSICIAN.email, password, appKey: 'login' });
  const row = () => adminPage.getByRole('row', { name: new RegExp(PHYSICIAN.name) });

  /** Opens the row's action, checks what its dialog says, and confirms it. */
  async function confirmAction(action: string, title: string, text: string, screen?: string): Promise<void> {
    const page = await adminConsole();
    await row().getByRole('button', { name: action }).click();
    const dialog = page.getByRole('dialog', { name: title });
    await dialog.getByText(text).waitFor();
    if (screen) {
      await expectAccessible(page, screen);
      await screenshotBothWidths(page, screen);
      // The window crossed from the desk's table to the phone's cards and back: the dialog stayed open.
      // (It may be drawn anew after the switch: wait for it, it never reopens by itself once closed.)
      await dialog.waitFor({ state: 'visible' });
    }
    await dialog.getByRole('button', { name: action }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByText('Feito.').first().waitFor();
  }

  it('disables an account, which can no longer sign in, and enables it again', async () => {
    const page = await adminConsole();
    await nav(page, 'Pessoas');
    await page.getByRole('searchbox', { name: 'Nome, e-mail, CPF ou CRM' }).fill(PHYSICIAN.email);
    // The row is in the unfiltered list too: wait for the search's own answer, or the dialog opened
    // from the old row goes away with it.
    await page.getByText('1 registro', { exact: true }).waitFor();
    await row().waitFor();
    expect((await signIn()).status).toBe(200);
    // The states' light badges keep text at 7:1 against their tint over the row, as drawn.
    const contrast = (text: string) => drawnContrastOf(row().getByText(text, { exact: true }));
    expect(await contrast('Ativa'), 'the green badge').toBeGreaterThanOrEqual(7);

    await confirmAction(
      'Desativar',
      'Desativar conta?',
      `${PHYSICIAN.name} não poderá mais entrar e suas sessões abertas serão encerradas.`,
      'admin-people-disable',
    );
    await row().getByText('Desativada').waitFor();
    expect(await contrast('Desativada'), 'the red badge').toBeGreaterThanOrEqual(7);
    await checkScreen(page, 'admin-people-disabled');
    expect((await signIn()).status).not.toBe(200);

    await confirmAction(
      'Reativar',
      'Reativar conta?',
      `${PHYSICIAN.name} poderá entrar de novo.`,
      'admin-people-enable',
    );
    await row().getByRole('button', { name: 'Desativar' }).waitFor();
    expect((await signIn()).status).toBe(200);
    // Three screens checked by axe at both widths: a loaded machine needs more than the usual two minutes.
  }, 240_000);

  it('unlocks an account locked by wrong passwords, which then signs in', async () => {
    const page = await adminConsole();
    let refused = 0;
    for (let i = 0; i < 6 && refused === 0; i += 1) {
      const answer = await signIn('senha-errada-2026');
      if (answer.status === 429) refused += 1;
    }
    expect(refused, 'the wrong passwords locked the account').toBe(1);
    expect((await signIn()).status, 'the right password is refused while locked').toBe(429);

    // The dashboard's figure counts the locked account and opens People on the locked ones.
    await nav(page, 'Painel');
    const figure = page.getByText('Acessos bloqueados agora').locator('..').getByRole('link');
    await expect.poll(() => figure.textContent()).toBe('1');
    await figure.click();
    await page.waitForURL('**/admin/people?state=LOCKED');
    expect(await page.getByRole('combobox', { name: 'Situação' }).inputValue()).toBe('LOCKED');
    await row()
      .getByText(/^Bloqueado até /)
      .waitFor();
    expect(await drawnContrastOf(row().getByText(/^Bloqueado até /)), 'the lock badge').toBeGreaterThanOrEqual(7);
    expect(await page.getByRole('row').count(), 'the header and the one locked account').toBe(2);
    await checkScreen(page, 'admin-people-locked');
    await confirmAction(
      'Desbloquear',
      'Desbloquear acesso?',
      `As tentativas erradas de ${PHYSICIAN.name} serão zeradas e o acesso liberado agora.`,
      'admin-people-unlock',
    );
    // Unlocked, the account leaves the list of locked ones.
    await row().waitFor({ state: 'detached' });
    expect((await signIn()).status).toBe(200);
  });

  it('ends every session of an account: its token is refused afterwards', async () => {
    const signedIn = await signIn();
    expect(signedIn.status).toBe(200);
    const token = (signedIn.body?.data as { accessToken: string }).accessToken;
    const validate = () => call('GET', '/api/v2/auth/validate', undefined, { authorization: `Bearer ${token}` });
    expect((await validate()).status).toBe(200);

    await adminPage.getByRole('combobox', { name: 'Situação' }).selectOption({ label: 'Todos' });
    await row().getByText('Ativa', { exact: true }).waitFor();
    await confirmAction(
      'Encerrar sessões',
      'Encerrar todas as sessões?',
      `${PHYSICIAN.name} será desconectado em todos os aparelhos.`,
      'admin-people-end-sessions',
    );
    expect((await validate()).status).toBe(401);
    // Ending the sessions does not close the account: it signs in again.
    expect((await signIn()).status).toBe(200);
  });
});

describe('administration console: integration calls', () => {
  it('links the dashboard’s figures to their lists, and shows the failed calls with their error', async () => {
    const ingest = (number: string, body: unknown) =>
      call('PUT', `/api/v2/delivery/ingest/protocols/${number}`, body, { 'x-api-key': north.apiKey });
    const good = await ingest('2026101001', {
      password: 'proto-1234',
      requestedAt: REQUESTED_AT,
      patient: { patientId: 'P-1', name: 'Iara Integrada', birthDate: '1980-05-04', gender: 'F' },
      exams: [
        {
          examKey: 'EX-1',
          description: 'Raio X de tórax',
          type: 'XRAY',
          modalityCode: 'CR',
          modalityName: 'Radiografia',
          status: 'RELEASED',
          performedAt: PERFORMED_AT,
        },
      ],
    });
    expect(good.status, JSON.stringify(good.body)).toBe(201);
    expect((await ingest('2026101002', { patient: { name: 'Sem exames' } })).status).toBe(400);

    const page = await adminConsole();
    await nav(page, 'Painel');
    const row = page.getByRole('row', { name: /Laboratório Norte/ });
    await row.waitFor();
    await checkScreen(page, 'admin-dashboard-integrations');
    // The errors' figure of that institution opens its failed calls.
    // Back at 1280 px the cards of the phone layout become the table again, drawn after the resize.
    await page.getByRole('columnheader', { name: 'Erros de integração (24 h)' }).waitFor();
    const cells = row.getByRole('cell');
    const headers = await page.getByRole('columnheader').allTextContents();
    const errorsAt = headers.indexOf('Erros de integração (24 h)');
    expect(errorsAt).toBeGreaterThan(0);
    await cells.nth(errorsAt).getByRole('link', { name: '1' }).click();
    await page.waitForURL(`**/admin/ingest-calls?institutionId=${north.id}&errors=true`);
    await page.getByRole('heading', { level: 2, name: 'Chamadas de integração' }).waitFor();
    const failed = page.getByRole('row', { name: /2026101002/ });
    await failed.getByText('400').waitFor();
    expect(await failed.getByRole('cell').nth(4).textContent()).not.toBe('—');
    expect(await page.getByRole('row', { name: /2026101001/ }).count()).toBe(0);
    expect(await page.getByRole('checkbox', { name: 'Só as com erro' }).isChecked()).toBe(true);
    await checkScreen(page, 'admin-ingest-calls');
    await page.getByRole('checkbox', { name: 'Só as com erro' }).uncheck();
    await page
      .getByRole('row', { name: /2026101001/ })
      .getByText('201')
      .waitFor();

    // An institution's queued mails open the outbox filtered to its waiting ones.
    await nav(page, 'Painel');
    await page.getByRole('link', { name: /^\d+ mensagens na fila de Laboratório Norte$/ }).click();
    await page.waitForURL(`**/admin/outbox?status=PENDING&institutionId=${north.id}`);
    await expect.poll(() => page.getByRole('combobox', { name: 'Instituição' }).inputValue()).toBe(north.id);
    await checkScreen(page, 'admin-outbox-institution');

    // The portal's waiting mails open the outbox filtered to them.
    await nav(page, 'Painel');
    await page.getByRole('link', { name: /^\d+$/ }).first().waitFor();
    const waiting = page.getByText('Mensagens aguardando').locator('..').getByRole('link');
    await waiting.click();
    await page.waitForURL('**/admin/outbox?status=PENDING');
    expect(await page.getByRole('combobox', { name: 'Situação' }).inputValue()).toBe('PENDING');
  });
});

describe('administration console: HL7 sending facilities', () => {
  it('keeps an institution’s MSH-4 facilities, one a line, and refuses one that is another’s', async () => {
    const page = await adminConsole();
    await page.goto(`/admin/institution/edit/${north.id}`);
    // The form is filled once the institution has arrived: typing before would be overwritten.
    await page.getByRole('heading', { level: 2, name: 'Instituição: Laboratório Norte' }).waitFor();
    const field = page.getByRole('textbox', { name: /^Remetentes HL7/ });
    await field.fill('lab-norte\nLAB-NORTE-2, lab-norte');
    const saved = page.waitForResponse(
      (r) => r.url().endsWith(`/institution/${north.id}`) && r.request().method() === 'PUT',
    );
    await page.getByRole('button', { name: 'Salvar', exact: true }).click();
    expect((await saved).status()).toBe(200);
    expect((await api.institution(north.id)).hl7SendingFacilities).toEqual(['LAB-NORTE', 'LAB-NORTE-2']);
    await page.reload();
    await expect.poll(() => field.inputValue()).toBe('LAB-NORTE\nLAB-NORTE-2');

    await page.goto(`/admin/institution/edit/${south.id}`);
    await page.getByRole('heading', { level: 2, name: 'Instituição: Clínica Sul' }).waitFor();
    await field.fill('LAB-NORTE');
    await page.getByRole('button', { name: 'Salvar', exact: true }).click();
    await page.getByText('Um dos remetentes HL7 já pertence a outra instituição.').waitFor();
  });
});

describe('administration console: what patients see of the staff', () => {
  it('saves whether the patients’ access history names the clinic’s staff', async () => {
    const page = await adminConsole();
    const stored = async () => (await api.institution(north.id)).settings.accessLogStaffNames;
    expect(await stored()).toBe(false);
    await page.goto(`/admin/institution/edit/${north.id}`);
    await page.getByRole('heading', { level: 2, name: 'Instituição: Laboratório Norte' }).waitFor();
    const toggle = page.getByRole('switch', { name: /^Nomear a equipe no histórico de acessos/ });
    await page.getByText('Desligado, mostra apenas "a equipe da clínica".', { exact: false }).waitFor();
    expect(await toggle.isChecked()).toBe(false);
    await toggle.check();
    const saved = page.waitForResponse(
      (r) => r.url().endsWith(`/institution/${north.id}`) && r.request().method() === 'PUT',
    );
    await page.getByRole('button', { name: 'Salvar', exact: true }).click();
    expect((await saved).status()).toBe(200);
    expect(await stored()).toBe(true);
    await page.reload();
    await page.getByRole('heading', { level: 2, name: 'Instituição: Laboratório Norte' }).waitFor();
    await expect.poll(() => toggle.isChecked()).toBe(true);
    await toggle.uncheck();
    await page.getByRole('button', { name: 'Salvar', exact: true }).click();
    await expect.poll(stored).toBe(false);
  });
});

describe('administration console: release holds', () => {
  it('keeps an institution’s sensitive exam types with their rule, hours and text, and says what is missing', async () => {
    const page = await adminConsole();
    await page.goto(`/admin/institution/edit/${north.id}`);
    await page.getByRole('heading', { level: 2, name: 'Instituição: Laboratório Norte' }).waitFor();
    const editor = page.getByRole('group', { name: 'Resultados sensíveis retidos' });
    await editor.getByText('Nenhum tipo de exame é retido.').waitFor();

    await editor.getByRole('button', { name: 'Adicionar tipo de exame retido' }).click();
    const first = editor.getByTestId('hold-rule').nth(0);
    await first.getByRole('textbox', { name: /^Tipo de exame/ }).fill('hiv');
    await first.getByRole('textbox', { name: /^Texto para o paciente/ }).fill('Disponível após a sua consulta.');
    await editor.getByRole('button', { name: 'Adicionar tipo de exame retido' }).click();
    const second = editor.getByTestId('hold-rule').nth(1);
    await second.getByRole('textbox', { name: /^Tipo de exame/ }).fill('GEN');
    await second.getByRole('combobox', { name: 'Regra' }).selectOption('HOURS');
    // Hours left empty: the editor says so by the field and saves nothing.
    await editor.getByRole('button', { name: 'Salvar regras' }).click();
    await second.getByText(/^Informe de 1 a \d+ horas\.$/).waitFor();
    expect((await api.holdRules(north.id)).rules).toEqual([]);
    await checkScreen(page, 'admin-hold-rules-error');

    await second.getByRole('textbox', { name: /^Horas/ }).fill('48');
    const saved = page.waitForResponse(
      (r) => r.url().endsWith(`/institution/${north.id}/hold-rules`) && r.request().method() === 'PUT',
    );
    await editor.getByRole('button', { name: 'Salvar regras' }).click();
    expect((await saved).status()).toBe(200);
    const rules = (await api.holdRules(north.id)).rules;
    expect(rules).toHaveLength(2);
    expect(rules).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ rule: 'PHYSICIAN', message: 'Disponível após a sua consulta.', hours: null }),
        expect.objectContaining({ examTypeCode: 'GEN', rule: 'HOURS', hours: 48 }),
      ]),
    );
    expect(rules.find((r) => r.rule === 'PHYSICIAN')?.examTypeCode.toUpperCase()).toBe('HIV');

    await page.reload();
    await page.getByRole('heading', { level: 2, name: 'Instituição: Laboratório Norte' }).waitFor();
    await expect.poll(() => editor.getByTestId('hold-rule').count()).toBe(2);
    await checkScreen(page, 'admin-hold-rules');

    // The saved rules come back in the order of their exam types; removing one and saving keeps the other.
    const firstType = editor
      .getByTestId('hold-rule')
      .nth(0)
      .getByRole('textbox', { name: /^Tipo de exame/ });
    expect(await firstType.inputValue()).toBe('GEN');
    await editor.getByRole('button', { name: 'Remover a regra 1' }).click();
    const savedAgain = page.waitForResponse(
      (r) => r.url().endsWith(`/institution/${north.id}/hold-rules`) && r.request().method() === 'PUT',
    );
    await editor.getByRole('button', { name: 'Salvar regras' }).click();
    expect((await savedAgain).status()).toBe(200);
    expect((await api.holdRules(north.id)).rules.map((r) => r.examTypeCode)).toEqual(['hiv']);
  });
});

describe('administration console: screens without data', () => {
  it('shows a not-found page, an empty creation form and an unknown institution', async () => {
    const page = await adminConsole();
    await page.goto('/admin/nao-existe');
    await page.getByRole('heading', { level: 2, name: 'Página não encontrada' }).waitFor();
    await checkScreen(page, 'admin-not-found');
    await page.goto('/admin/institution/new');
    await page.getByRole('heading', { level: 2, name: 'Nova instituição' }).waitFor();
    // Every control speaks the console's language, the logo's file button too.
    await page.getByRole('button', { name: 'Escolher arquivo do logotipo' }).waitFor();
    await checkScreen(page, 'admin-institution-new');
    await page.goto('/admin/institution/edit/nao-existe');
    await page.getByText('Não encontrado.').waitFor();
    await checkScreen(page, 'admin-institution-unknown');
  });
});

describe('administration console with the keyboard alone', () => {
  it('signs in, opens a list, edits an institution and confirms a dialog with Tab, Enter and Space', async () => {
    const page = await openPage(browser, portal.baseUrl, '/admin/login', true);
    await tabTo(page, /^E-mail/);
    await page.keyboard.type(portal.admin.email);
    await tabTo(page, /^Senha/);
    await page.keyboard.type(portal.admin.password);
    await page.keyboard.press('Enter');
    await page.waitForURL('**/admin/dashboard');

    await tabTo(page, /^Instituições$/);
    await page.keyboard.press('Enter');
    await page.waitForURL('**/admin/institution/list');
    // The list arrives after the page: Tab through it once it is there.
    await page.getByRole('link', { name: 'Clínica Sul', exact: true }).waitFor();
    await tabTo(page, /^Clínica Sul$/);
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/admin/institution/edit/${south.id}`);
    // The fields wait, disabled, for the institution: what is typed then is never overwritten by it.
    const phone = page.getByRole('textbox', { name: /^Telefone de suporte/ });
    await page.getByRole('heading', { level: 2, name: 'Instituição: Clínica Sul' }).waitFor();
    await expect.poll(() => phone.isEnabled()).toBe(true);
    await tabTo(page, /^Telefone de suporte/);
    await page.keyboard.type('(31) 3333-4444');
    await tabTo(page, /^Salvar$/);
    const saved = page.waitForResponse(
      (r) => r.url().endsWith(`/institution/${south.id}`) && r.request().method() === 'PUT',
    );
    await page.keyboard.press('Enter');
    expect((await saved).status()).toBe(200);

    await tabTo(page, /^Gerar nova chave de API$/);
    await page.keyboard.press('Space');
    const dialog = page.getByRole('dialog', { name: 'Gerar nova chave de API?' });
    await dialog.waitFor();
    await tabTo(page, /^Gerar nova chave$/, 10);
    await page.keyboard.press('Enter');
    await page.getByTestId('api-key').waitFor();
    await dialog.waitFor({ state: 'hidden' });
    await page.context().close();

    expect((await api.institution(south.id)).supportPhoneNumber).toBe('(31) 3333-4444');
  });
});
