import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminApi } from './support/admin-api';
import { ARTIFACTS, expectAccessible, launchBrowser, screenshotBothWidths } from './support/browser';
import { ROOT } from './support/build';
import { linkIn, type Mailbox, startMailbox } from './support/mailbox';
import { openPage, reloadBeforeCode, signIn } from './support/pages';
import { type RunningPortal, startPortal } from './support/portal';
import { call, ingest, daysAgo, registerPhysician, signInApi, upload } from './support/results-data';

// Journeys run the app as built by `vite build --outDir` into WEB_DIST when given, else apps/web/dist.
const webDist = process.env.WEB_DIST ?? `${ROOT}/apps/web/dist`;

let mailbox: Mailbox;
let portal: RunningPortal;
let browser: Browser;
let boaVistaKey: string;
const physician = { email: 'dr.caio@example.com', password: 'Consulta-2026-caio' };
const partner = { email: 'parceiro@example.com', password: 'Parceiro-2026-norte' };
const crm = { identifier: 'CRM-12345', name: 'Dr. Caio Mendes', crm: '12345', uf: 'SP' };
const patients = [
  { patientId: 'A1', name: 'Ana Beatriz Souza', birthDate: '1990-03-01', gender: 'FEMALE' },
  { patientId: 'B1', name: 'Bruno Costa', birthDate: '1982-11-12', gender: 'MALE' },
  { patientId: 'C1', name: 'Carla Dias', birthDate: '1975-05-30', gender: 'FEMALE' },
];
const TAG = 'Parceiro Norte';

beforeAll(async () => {
  mailbox = await startMailbox();
  portal = await startPortal({ SMTP_URL: mailbox.url, WEB_DIST: webDist });
  browser = await launchBrowser();
  const base = portal.baseUrl;
  const admin = await AdminApi.signedIn(base, portal.admin);
  const asAdmin = admin.headers();
  const boaVista = await admin.createInstitution({
    code: 'BOAVISTA',
    name: 'Hospital Boa Vista',
    viewType: 2,
    // Its SMART system (spec 3): here a page of the portal itself, so the journey sees the address.
    settings: { smart: { url: `${base}/sistema-smart`, secret: 'segredo-smart-boa-vista-2026' } },
  });
  const sol = await admin.createInstitution({ code: 'SOL', name: 'Laboratório Sol', viewType: 2 });
  boaVistaKey = boaVista.apiKey;
  const tag = await call<{ id: string }>(
    base,
    'POST',
    `/api/administrationbe/institution/${boaVista.id}/tags`,
    { tag: TAG },
    asAdmin,
  );

  // 55 recent protocols of Hospital Boa Vista requested by Dr. Caio; the two newest have reports to print.
  for (let i = 1; i <= 55; i++) {
    const n = `PH-${String(i).padStart(3, '0')}`;
    await ingest(base, boaVista.apiKey, n, {
      password: `senha-${n}`,
      // Minutes ago for the two newest, so they lead the list whatever the time zone.
      requestedAt: i <= 2 ? new Date(Date.now() - i * 60_000).toISOString() : daysAgo(1 + (i % 5), 10 + (i % 10)),
      tag: i > 50 ? TAG : undefined,
      patient: patients[i % 3] ?? patients[0]!,
      exams: [
        {
          key: `E${i}`,
          description: i % 2 ? 'Ressonância de joelho' : 'Hemograma completo',
          requester: crm,
          performedAt: daysAgo(1),
          report: i <= 2 || i > 50,
        },
        // PH-003 also has an exam viewed in the hospital's SMART system.
        ...(i === 3
          ? [{ key: 'SMART-RM3', description: 'Ressonância funcional', requester: crm, performedAt: daysAgo(1) }]
          : []),
      ],
    });
  }
  for (let i = 1; i <= 3; i++) {
    await ingest(base, sol.apiKey, `SOL-${i}`, {
      password: `senha-SOL-${i}`,
      requestedAt: daysAgo(2),
      patient: patients[0]!,
      exams: [{ key: `S${i}`, description: 'Vitamina B12', requester: crm, performedAt: daysAgo(2) }],
    });
  }
  // A second group of the partner, at Laboratório Sol, with two protocols another physician asked for.
  const south = await call<{ id: string }>(
    base,
    'POST',
    `/api/administrationbe/institution/${sol.id}/tags`,
    { tag: 'Parceiro Sul' },
    asAdmin,
  );
  for (let i = 1; i <= 2; i++) {
    await ingest(base, sol.apiKey, `SUL-${i}`, {
      password: `senha-SUL-${i}`,
      requestedAt: daysAgo(1),
      tag: 'Parceiro Sul',
      patient: patients[1]!,
      exams: [
        {
          key: `SUL${i}`,
          description: 'Vitamina D',
          requester: { identifier: 'CRM-777', name: 'Dra. Outra', crm: '777', uf: 'RJ' },
          performedAt: daysAgo(1),
        },
      ],
    });
  }
  await ingest(base, boaVista.apiKey, 'PH-OLD', {
    password: 'senha-PH-OLD',
    requestedAt: daysAgo(10),
    patient: patients[1]!,
    exams: [{ key: 'OLD', description: 'Densitometria', requester: crm, performedAt: daysAgo(10) }],
  });

  // The physician registers from the invitation, is vouched for by both institutions and joins the
  // tag; the partner user gets a first-password link.
  await registerPhysician(base, mailbox, asAdmin, boaVista.id, physician, crm);
  // Boa Vista vouches for him by its invitation; Laboratório Sol confirms him too, so his license
  // opens its protocols as well.
  await call(
    base,
    'POST',
    `/api/administrationbe/institution/${sol.id}/physicians`,
    { email: physician.email },
    asAdmin,
  );
  await call(
    base,
    'POST',
    `/api/administrationbe/institution/${boaVista.id}/tags/${tag.id}/users`,
    { email: physician.email, name: crm.name, language: 'pt-br' },
    asAdmin,
  );
  const before = mailbox.mails.length;
  await call(
    base,
    'POST',
    `/api/administrationbe/institution/${boaVista.id}/tags/${tag.id}/users`,
    { email: partner.email, name: 'Clínica Parceira Norte', language: 'pt-br' },
    asAdmin,
  );
  const reset = new URL(linkIn(await mailbox.waitFor(partner.email, { after: before }), base, '/password/reset'));
  await call(base, 'POST', '/api/auth/password/resetPassword', {
    token: reset.searchParams.get('token'),
    password: partner.password,
    confirmPassword: partner.password,
    language: 'pt-br',
  });
  // Once he has his password: joining a group mails a new first-password link to a user who has none.
  await call(
    base,
    'POST',
    `/api/administrationbe/institution/${sol.id}/tags/${south.id}/users`,
    { email: partner.email, name: 'Clínica Parceira Norte', language: 'pt-br' },
    asAdmin,
  );
  await signInApi(base, physician.email, physician.password);
  await signInApi(base, partner.email, partner.password);
});

afterAll(async () => {
  await browser?.close();
  await portal?.stop();
  await mailbox?.close();
});

async function signedIn(user: { email: string; password: string }, target: string): Promise<Page> {
  const page = await openPage(browser, portal.baseUrl, '/login', true);
  await signIn(page, user.email, user.password);
  await page.waitForURL(`**${target}`);
  return page;
}

/** Spec 7 of the brief: every screen works at 360 px, with nothing wider than the phone. */
async function fitsPhoneWidth(page: Page): Promise<void> {
  await page.setViewportSize({ width: 360, height: 740 });
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  await page.setViewportSize({ width: 1280, height: 900 });
  expect(overflow).toBeLessThanOrEqual(0);
}

const rows = (page: Page) => page.getByTestId('protocol-row');
const selectedCount = (page: Page, text: string) =>
  page.getByTestId('selection-count').and(page.getByText(text, { exact: true }));
const count = (page: Page, n: number) =>
  page.getByText(`${n} ${n === 1 ? 'protocolo encontrado' : 'protocolos encontrados'}`).waitFor();

async function pickPreset(page: Page, preset: string): Promise<void> {
  await page.getByRole('button', { name: /^Período/ }).click();
  await page.getByRole('button', { name: preset }).click();
  await page.keyboard.press('Escape');
}

async function answerPrint(page: Page, button: string, answer: 'Sim' | 'Não', screenshot?: string): Promise<void> {
  await page.getByRole('button', { name: button, exact: true }).click();
  const toast = page.getByRole('alert').filter({ hasText: /Imprimir (o|os \d+) protocolos? selecionados?\?/ });
  if (screenshot) {
    await toast.last().waitFor();
    await screenshotBothWidths(page, screenshot);
    await expectAccessible(page, 'print confirmation');
    // The question closes by itself after 10 s, which screenshots on a busy machine may outlast:
    // once it has gone, ask again.
    await toast.last().waitFor({ state: 'detached', timeout: 15_000 });
    await page.getByRole('button', { name: button, exact: true }).click();
  }
  await toast.last().getByRole('button', { name: answer }).click();
}

async function downloadOf(page: Page, action: () => Promise<void>): Promise<{ name: string; bytes: Buffer }> {
  const download = page.waitForEvent('download');
  await action();
  const file = await download;
  return { name: file.suggestedFilename(), bytes: fs.readFileSync(await file.path()) };
}

describe('physician dashboard', () => {
  it('filters by period, tag and text and groups by date, patient and institution', async () => {
    const page = await signedIn(physician, '/dashboard/physician/protocols');
    // Default range: the last 7 days (58 protocols; PH-OLD is 10 days old).
    await count(page, 58);
    expect(await rows(page).count()).toBe(10);
    await page.getByRole('columnheader', { name: 'Paciente' }).waitFor();
    await screenshotBothWidths(page, 'results-physician-dashboard');
    await expectAccessible(page, 'physician dashboard');
    await fitsPhoneWidth(page);
    // On a phone the filters fold behind one "Filtros" button, so the first result is above the fold.
    await page.setViewportSize({ width: 390, height: 844 });
    const fold = page.getByRole('button', { name: 'Filtros', exact: true });
    expect(await fold.getAttribute('aria-expanded')).toBe('false');
    expect(await page.getByRole('searchbox', { name: 'Buscar' }).isVisible()).toBe(false);
    const firstResult = await rows(page).first().boundingBox();
    expect(firstResult!.y + 80).toBeLessThan(844);
    await page.screenshot({ path: `${ARTIFACTS}/results-physician-dashboard-folded-390.png` });
    // Unfolded, each filter spans the screen, so the search hint is read whole.
    await fold.click();
    expect(await fold.getAttribute('aria-expanded')).toBe('true');
    const searchBox = await page.getByRole('searchbox', { name: 'Buscar' }).boundingBox();
    expect(searchBox?.width).toBeGreaterThan(340);
    await page.screenshot({ path: `${ARTIFACTS}/results-physician-dashboard-unfolded-390.png`, fullPage: true });
    await expectAccessible(page, 'physician dashboard, filters unfolded on a phone');
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(await fold.isVisible()).toBe(false);

    // The calendar is a dialog named after its field, its arrows are named, and the days of the
    // months around stay readable (axe checks their contrast while it is open).
    await page.getByRole('button', { name: /^Período/ }).click();
    const calendar = page.getByRole('dialog', { name: /Período/ });
    await calendar.waitFor();
    await calendar.getByRole('button', { name: 'Mês anterior' }).waitFor();
    await calendar.getByRole('button', { name: 'Próximo mês' }).waitFor();
    await screenshotBothWidths(page, 'results-physician-calendar');
    await expectAccessible(page, 'physician dashboard with the calendar open');
    // On a phone its presets go above the month: the open calendar fits the screen.
    await fitsPhoneWidth(page);
    // The resizes may have taken the focus out of the calendar, where Escape closes it.
    await calendar.getByRole('button', { name: 'Próximo mês' }).focus();
    await page.keyboard.press('Escape');
    await calendar.waitFor({ state: 'detached' });

    await pickPreset(page, 'Últimos 14 dias');
    await count(page, 59);
    await pickPreset(page, 'Últimos 7 dias');
    await count(page, 58);

    await page.getByRole('textbox', { name: 'Grupo' }).click();
    await page.getByRole('option', { name: `${TAG} · Hospital Boa Vista` }).click();
    await count(page, 5);
    await page.getByRole('textbox', { name: 'Grupo' }).click();
    await page.getByRole('option', { name: `${TAG} · Hospital Boa Vista` }).click();
    await count(page, 58);

    // A select the browser calls read-only still looks like a field one can change (white, solid
    // border, a hand); checkboxes show a visible box.
    const groupByField = page.getByRole('textbox', { name: 'Agrupar por' });
    expect(await groupByField.getAttribute('readonly')).not.toBeNull();
    const look = (field: Locator) =>
      field.evaluate((el) => {
        const style = getComputedStyle(el);
        return {
          border: `${style.borderTopStyle} ${style.borderTopWidth}`,
          background: style.backgroundColor,
          cursor: style.cursor,
        };
      });
    expect(await look(groupByField)).toMatchObject({ background: 'rgb(255, 255, 255)', cursor: 'pointer' });
    expect((await look(groupByField)).border).toMatch(/^solid /);
    expect(await look(page.locator('input[type="checkbox"]:not(:checked)').first())).toMatchObject({
      border: 'solid 2px',
    });

    await groupByField.click();
    await page.getByRole('option', { name: 'Paciente' }).click();
    await page.locator('tbody th', { hasText: 'Ana Beatriz Souza' }).first().waitFor();
    await page.getByRole('textbox', { name: 'Agrupar por' }).click();
    await page.getByRole('option', { name: 'Instituição' }).click();
    await page.locator('tbody th', { hasText: 'Hospital Boa Vista' }).first().waitFor();
    await screenshotBothWidths(page, 'results-physician-grouped');

    await page.getByRole('searchbox', { name: 'Buscar' }).fill('Carla');
    await count(page, 18);
    await page.getByRole('searchbox', { name: 'Buscar' }).fill('');
    await count(page, 58);

    await page.getByRole('button', { name: 'Filtros avançados' }).click();
    // The date is masked as it is typed, like every date field of the portal.
    const dateField = page.getByRole('textbox', { name: 'Data', exact: true });
    expect(await dateField.getAttribute('placeholder')).toBe('dd/mm/aaaa');
    await dateField.pressSequentially('01022026');
    expect(await dateField.inputValue()).toBe('01/02/2026');
    await dateField.fill('');
    await page.getByRole('textbox', { name: 'Protocolo', exact: true }).fill('PH-007');
    await screenshotBothWidths(page, 'results-physician-advanced-filters');
    await page.getByRole('button', { name: 'Aplicar filtros' }).click();
    await count(page, 1);
    // The advanced filters run on the server: the total and the pages count what matches only.
    await page.getByRole('textbox', { name: 'Protocolo', exact: true }).fill('');
    await page.getByRole('textbox', { name: 'Paciente', exact: true }).fill('carla dias');
    await page.getByRole('button', { name: 'Aplicar filtros' }).click();
    await count(page, 18);
    expect(await rows(page).count()).toBe(10);
    await page.getByRole('navigation', { name: 'Paginação' }).getByRole('button', { name: 'Página 2' }).waitFor();
    await page.getByRole('textbox', { name: 'Instituição', exact: true }).fill('laboratorio sol');
    await page.getByRole('button', { name: 'Aplicar filtros' }).click();
    await page.getByTestId('list-empty').waitFor();
    await page.getByText('Nenhum registro encontrado com o filtro informado').waitFor();
    await screenshotBothWidths(page, 'results-physician-advanced-empty');
    await page.getByRole('textbox', { name: 'Paciente', exact: true }).fill('');
    await page.getByRole('button', { name: 'Aplicar filtros' }).click();
    await count(page, 3);
    await page.getByRole('button', { name: 'Limpar filtros' }).click();
    await count(page, 58);
    await page.context().close();
  });

  it('lists the external exams his group brings him, apart from his own list', async () => {
    const page = await signedIn(physician, '/dashboard/physician/protocols');
    await count(page, 58);
    // Drawn before any code arrives (the page's title and the list loading), then his own screen.
    const { release, errors } = await reloadBeforeCode(page);
    await page.getByRole('heading', { level: 1, name: 'Resultados dos meus pacientes' }).waitFor();
    expect(await page.locator('.drawn-screen').evaluate((element) => getComputedStyle(element).visibility)).toBe(
      'visible',
    );
    // His two lists are drawn as links (they work before the code comes), this one marked current.
    const drawnNav = page.locator('.drawn-screen').getByRole('navigation', { name: 'Listas do médico' });
    expect(await drawnNav.getByRole('link', { name: 'Exames externos' }).getAttribute('href')).toBe(
      '/dashboard/physician/exams',
    );
    expect(
      await drawnNav.getByRole('link', { name: 'Resultados dos meus pacientes' }).getAttribute('aria-current'),
    ).toBe('page');
    await screenshotBothWidths(page, 'results-physician-dashboard-drawn-before-code');
    release();
    await count(page, 58);
    await page.locator('.drawn-screen').waitFor({ state: 'detached' });
    expect(await page.locator('h1').count()).toBe(1);
    expect(errors).toEqual([]);
    await page.unrouteAll();
    await page
      .getByRole('navigation', { name: 'Listas do médico' })
      .getByRole('link', { name: 'Exames externos' })
      .click();
    await page.waitForURL('**/dashboard/physician/exams');
    await page.getByRole('heading', { level: 1, name: 'Exames externos' }).waitFor();
    await count(page, 5);
    await page.getByTestId('external-exams-notice').waitFor();
    await screenshotBothWidths(page, 'results-physician-external-exams');
    await expectAccessible(page, 'physician exams dashboard');
    await page.context().close();
  });

  it('selects at most 50 protocols; a 51st is refused and "no" clears the selection', async () => {
    const page = await signedIn(physician, '/dashboard/physician/protocols');
    await count(page, 58);
    const pager = page.getByRole('navigation', { name: 'Paginação' });
    for (let p = 1; p <= 5; p++) {
      if (p > 1) {
        await pager.getByRole('button', { name: `Página ${p}` }).click();
        // The previous page stays on screen until the next one arrives.
        await page
          .getByRole('button', { name: `Página ${p}`, pressed: undefined })
          .and(page.locator('[aria-current="page"]'))
          .waitFor();
        await page.waitForFunction(
          () => !document.querySelector<HTMLInputElement>('input[aria-label^="Selecionar o protocolo"]')?.checked,
        );
      }
      await page.getByRole('checkbox', { name: 'Selecionar todos desta página' }).check();
      await selectedCount(page, `${p * 10} protocolos selecionados`).waitFor();
    }
    await pager.getByRole('button', { name: 'Página 6' }).click();
    // Page 5's checked rows stay on screen until page 6 arrives: a click on them would un-select.
    await page.getByRole('button', { name: 'Página 6' }).and(page.locator('[aria-current="page"]')).waitFor();
    await page.waitForFunction(
      () => !document.querySelector<HTMLInputElement>('input[aria-label^="Selecionar o protocolo"]')?.checked,
    );
    const first = page.getByRole('checkbox', { name: /^Selecionar o protocolo / }).first();
    await first.click();
    await page.getByText('Limite de seleção atingido: no máximo 50 protocolos.').waitFor();
    expect(await first.isChecked()).toBe(false);
    await selectedCount(page, '50 protocolos selecionados').waitFor();
    await screenshotBothWidths(page, 'results-physician-selection-limit');

    await answerPrint(page, 'Imprimir', 'Não', 'results-print-confirmation');
    await selectedCount(page, 'Nenhum protocolo selecionado').waitFor();
    await page.context().close();
  });

  it('prints the selection as one PDF and as a zip with a folder per protocol', async () => {
    const page = await signedIn(physician, '/dashboard/physician/protocols');
    await count(page, 58);
    await page.getByRole('checkbox', { name: 'Selecionar o protocolo PH-001' }).check();
    await page.getByRole('checkbox', { name: 'Selecionar o protocolo PH-002' }).check();
    await selectedCount(page, '2 protocolos selecionados').waitFor();

    const pdf = await downloadOf(page, () => answerPrint(page, 'Imprimir', 'Sim'));
    expect(pdf.name).toMatch(/^resultados_.*\.pdf$/);
    // Printing marks the printed protocols read (spec 4.2), and the list says so at once.
    for (const n of ['PH-001', 'PH-002']) {
      await rows(page).filter({ hasText: n }).getByTestId('protocol-read-state').getByText('Lido').waitFor();
    }
    await screenshotBothWidths(page, 'results-physician-read-after-print');
    const text = pdf.bytes.toString('latin1');
    expect(text.startsWith('%PDF-')).toBe(true);
    expect(text).toContain('Laudo Hemograma completo PH-002');
    expect(text).toContain('de joelho PH-001');

    const zip = await downloadOf(page, () => answerPrint(page, 'Impressão compactada', 'Sim'));
    expect(zip.name).toMatch(/^resultados_.*\.zip$/);
    expect(zip.bytes.subarray(0, 2).toString('latin1')).toBe('PK');
    const names = zip.bytes.toString('latin1');
    expect(names).toContain('PH-001/');
    expect(names).toContain('PH-002/');
    // Printing marks the printed protocols read for the physician (spec 4.2), after a reload too.
    await page.reload();
    const printed = rows(page).filter({ hasText: 'PH-001' });
    expect(await printed.getByTestId('protocol-read-state').textContent()).toBe('Lido');

    // A SMART exam opens in the institution's system with the token the portal signed for it.
    await page.getByRole('searchbox', { name: 'Buscar' }).fill('PH-003');
    await count(page, 1);
    await page.getByRole('button', { name: 'Ver exames do protocolo PH-003' }).click();
    const popup = page.waitForEvent('popup');
    await page.getByRole('button', { name: 'Abrir Ressonância funcional no sistema da instituição' }).click();
    const smartTab = await popup;
    await smartTab.waitForURL('**/sistema-smart?*');
    const launched = new URL(smartTab.url());
    expect(launched.searchParams.get('exam')).toBe('SMART-RM3');
    expect(launched.searchParams.get('protocol')).toBe('PH-003');
    expect(launched.searchParams.get('token')?.split('.')).toHaveLength(3);
    await smartTab.close();
    await screenshotBothWidths(page, 'results-physician-smart-exam');

    // A report opened elsewhere (another tab or device) shows as read when he comes back.
    await page.getByRole('searchbox', { name: 'Buscar' }).fill('PH-055');
    await count(page, 1);
    const elsewhere = rows(page).filter({ hasText: 'PH-055' }).getByTestId('protocol-read-state');
    expect(await elsewhere.textContent()).toBe('Não lido');
    const opened = await page.evaluate(async () => {
      const { token } = JSON.parse(sessionStorage.getItem('portal.credentials') ?? '{}') as { token: string };
      const headers = { authorization: `Bearer ${token}` };
      const read = async <T>(url: string) => ((await (await fetch(url, { headers })).json()) as { data: T }).data;
      const list = await read<{ items: Array<{ requestId: string }> }>(
        '/api/delivery/persistence/protocols/physician?search=PH-055',
      );
      const exams = await read<Array<{ identifierReport: string }>>(
        `/api/v2/delivery/dashboard/protocols/exams?request=${list.items[0]?.requestId ?? ''}`,
      );
      const report = exams[0]?.identifierReport ?? '';
      return (await fetch(`/api/v2/delivery/resource/report?resourceId=${report}`, { headers })).status;
    });
    expect(opened).toBe(200);
    await page.evaluate(() => window.dispatchEvent(new Event('visibilitychange')));
    await elsewhere.getByText('Lido', { exact: true }).waitFor();
    await page.getByRole('searchbox', { name: 'Buscar' }).fill('');
    await count(page, 58);

    await printed.getByRole('link', { name: 'Abrir o protocolo PH-001' }).click();
    await page.getByRole('heading', { level: 1, name: 'Protocolo PH-001' }).waitFor();
    await page.getByRole('searchbox', { name: 'Buscar' }).waitFor();
    await screenshotBothWidths(page, 'results-physician-protocol');
    await expectAccessible(page, 'physician protocol detail');
    await fitsPhoneWidth(page);
    await page.context().close();
  });

  it('shows a failed print as an error toast that closes by itself and keeps the selection', async () => {
    const page = await signedIn(physician, '/dashboard/physician/protocols');
    await count(page, 58);
    await page.getByRole('checkbox', { name: 'Selecionar o protocolo PH-001' }).check();
    await selectedCount(page, '1 protocolo selecionado').waitFor();
    // The portal fails while printing (spec 8: a 5xx is an error toast for 5 s).
    await page.route('**/api/v2/delivery/resource/batchPrinting', (route) =>
      route.fulfill({ status: 500, contentType: 'application/json', body: '{"message":"Internal server error."}' }),
    );
    await answerPrint(page, 'Imprimir', 'Sim');
    // A toast under the pointer waits for it to leave (Mantine pauses it on hover), as a reader would want.
    await page.mouse.move(0, 0);
    const toast = page
      .getByRole('alert')
      .filter({ hasText: 'Não foi possível concluir a operação. Tente novamente ou fale com o suporte.' });
    await toast.waitFor();
    expect(await toast.getAttribute('style')).toContain('--mantine-color-red');
    await toast.waitFor({ state: 'detached', timeout: 30_000 });
    await selectedCount(page, '1 protocolo selecionado').waitFor();
    await page.context().close();
  });
});

describe('external dashboard', () => {
  it("lists the tag's protocols and prints them in batch", async () => {
    const page = await signedIn(partner, '/dashboard/external/exams');
    // Both his groups until he names a favourite.
    await count(page, 7);
    await page.goto('/external-user/edit');
    await page.getByRole('textbox', { name: 'Grupo favorito' }).click();
    await page.getByRole('option', { name: TAG }).click();
    await page.getByRole('button', { name: 'Salvar' }).click();
    await page.getByText('Dados salvos').first().waitFor();
    // His favourite group opens his dashboard filtered by it (spec 2.10), without a reload.
    await page.getByRole('link', { name: 'Voltar', exact: true }).last().click();
    await page.waitForURL('**/dashboard/external/exams');
    await count(page, 5);
    expect(await page.getByRole('textbox', { name: 'Grupo' }).inputValue()).toBe(`${TAG} · Hospital Boa Vista`);
    await page.getByRole('columnheader', { name: 'Paciente' }).waitFor();
    await screenshotBothWidths(page, 'results-external-dashboard');
    await expectAccessible(page, 'external dashboard');
    await fitsPhoneWidth(page);
    await page.getByRole('checkbox', { name: 'Selecionar todos desta página' }).check();
    await selectedCount(page, '5 protocolos selecionados').waitFor();
    const pdf = await downloadOf(page, () => answerPrint(page, 'Imprimir', 'Sim'));
    expect(pdf.name).toMatch(/\.pdf$/);
    const text = pdf.bytes.toString('latin1');
    for (const n of ['PH-051', 'PH-052', 'PH-053', 'PH-054', 'PH-055']) expect(text).toContain(n);

    await rows(page)
      .first()
      .getByRole('link', { name: /^Abrir o protocolo/ })
      .click();
    await page.waitForURL('**/dashboard/externaluser/showexam?id=*');
    await page.getByRole('heading', { level: 1, name: /^Protocolo PH-05/ }).waitFor();
    await screenshotBothWidths(page, 'results-external-exam');
    await expectAccessible(page, 'external exam detail');

    // Spec 6: a physician screen opened without the physician flag sends him to his own dashboard.
    await page.goto('/dashboard/physician/protocols');
    await page.waitForURL('**/dashboard/external/exams');
    await count(page, 5);
    await page.context().close();
  });
});

describe('a print with a report that cannot be merged', () => {
  it('tells the physician how many reports were left out, and the PDF has a page saying why in their place', async () => {
    // A report cut short in transmission: it starts as a PDF and has nothing a reader can use.
    await ingest(portal.baseUrl, boaVistaKey, 'PH-BAD', {
      password: 'senha-PH-BAD',
      requestedAt: new Date().toISOString(),
      patient: patients[2]!,
      exams: [{ key: 'BAD', description: 'Tomografia de tórax', requester: crm, performedAt: daysAgo(0, 0) }],
    });
    await upload(
      portal.baseUrl,
      boaVistaKey,
      'PH-BAD/exams/BAD/resources/BAD-laudo?type=REPORT',
      'application/pdf',
      Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R', 'latin1'),
    );
    const page = await signedIn(physician, '/dashboard/physician/protocols');
    await page.getByRole('checkbox', { name: 'Selecionar o protocolo PH-BAD' }).check();
    await page.getByRole('checkbox', { name: 'Selecionar o protocolo PH-001' }).check();
    await selectedCount(page, '2 protocolos selecionados').waitFor();

    const pdf = await downloadOf(page, () => answerPrint(page, 'Imprimir', 'Sim'));
    await page.mouse.move(0, 0);
    const toast = page.getByRole('alert').filter({
      hasText: `Arquivo ${pdf.name} baixado, mas 1 laudo não pôde ser incluído: uma página no lugar dele explica o motivo.`,
    });
    await toast.waitFor();
    await screenshotBothWidths(page, 'results-print-left-out');
    await expectAccessible(page, 'print with a report left out');

    // The page in its place, as a PDF reader shows it.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'print-left-out-'));
    try {
      fs.writeFileSync(path.join(dir, 'print.pdf'), pdf.bytes);
      const text = execFileSync('pdftotext', ['-layout', path.join(dir, 'print.pdf'), '-']).toString('utf8');
      expect(text).toContain('Laudo não incluído');
      expect(text.replace(/\s+/g, ' ')).toContain('do protocolo PH-BAD não pôde ser incluído neste arquivo');
      // The other protocol's report is printed as it is.
      expect(text).toContain('de joelho PH-001');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    await page.context().close();
  });
});
