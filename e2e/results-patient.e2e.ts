import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminApi } from './support/admin-api';
import { ARTIFACTS, expectAccessible, launchBrowser, screenshotBothWidths } from './support/browser';
import { ROOT } from './support/build';
import { type DrawnPage, drawPdfPage } from './support/files';
import { linkIn, type Mailbox, startMailbox } from './support/mailbox';
import { openPage, reloadBeforeCode, signIn } from './support/pages';
import { type RunningPortal, startPortal } from './support/portal';
import { call, ingest, daysAgo, signInApi } from './support/results-data';

// Journeys run the app as built by `vite build --outDir` into WEB_DIST when given, else apps/web/dist.
const webDist = process.env.WEB_DIST ?? `${ROOT}/apps/web/dist`;

let mailbox: Mailbox;
let portal: RunningPortal;
let browser: Browser;
let patient: { token: string; id: string };
const patientEmail = 'maria.lima@example.com';
const patientPassword = 'Aurora-2026-conta';
/** Another patient, with no protocol, who signs in on Maria's tab after her. */
const otherPatientEmail = 'ana.souza@example.com';
const otherPatientPassword = 'Souza-2026-conta';
const maria = {
  patientId: 'PAC-1',
  name: 'Maria Lima',
  birthDate: '1984-07-09',
  gender: 'FEMALE',
  email: patientEmail,
  phone: '(11) 98888-1111',
};
const requester = { identifier: 'MED-9', name: 'Dra. Helena Prado', crm: '55555', uf: 'SP' };
const notice = 'Os resultados ficam disponíveis por seis meses a partir da data do exame.';

beforeAll(async () => {
  mailbox = await startMailbox();
  portal = await startPortal({ SMTP_URL: mailbox.url, WEB_DIST: webDist });
  browser = await launchBrowser();
  const admin = await AdminApi.signedIn(portal.baseUrl, portal.admin);
  const institution = await admin.createInstitution({
    code: 'AURORA',
    name: 'Clínica Aurora',
    viewType: 2,
    settings: { shareEnabled: true, hasExamStatusVisualizer: true },
  });
  const key = institution.apiKey;
  const base = portal.baseUrl;
  // Spec 2.8's special banner is a setting of the institution, changed like any other.
  await admin.updateInstitution(institution.id, {
    settings: { protocolNotice: { 'pt-br': notice, en: 'Results are available for six months from the exam date.' } },
  });

  // P-001: a lab exam with history values, an X-ray with an image, one awaiting rectification, one discarded.
  await ingest(base, key, 'P-001', {
    password: 'senha-P001',
    requestedAt: daysAgo(3),
    patient: maria,
    exams: [
      {
        key: 'HEMO1',
        description: 'Hemograma completo',
        type: 'HEMOGRAMA',
        requester,
        performedAt: daysAgo(3),
        report: true,
        signed: true,
        analytes: [
          { code: 'HB', name: 'Hemoglobina', unit: 'g/dL', value: 17.4, referenceMin: 12, referenceMax: 16 },
          { code: 'LEU', name: 'Leucócitos', unit: '/mm³', value: 7250, referenceMin: 4000, referenceMax: 11000 },
        ],
      },
      {
        key: 'RX1',
        description: 'Raio-X de tórax',
        type: 'RX',
        modality: ['CR', 'Radiografia'],
        requester,
        performedAt: daysAgo(3),
        report: true,
        image: true,
      },
      {
        key: 'USG1',
        description: 'Ultrassom de abdome',
        type: 'USG',
        modality: ['US', 'Ultrassom'],
        requester,
        performedAt: daysAgo(3),
        report: true,
        rectificationStatus: 'PENDING',
      },
      {
        key: 'GLI1',
        description: 'Glicemia de jejum',
        type: 'GLI',
        requester,
        status: 'DISCARDED',
        performedAt: daysAgo(3),
      },
    ],
  });
  for (const [i, days] of [
    [2, 40],
    [3, 80],
  ] as const) {
    await ingest(base, key, `P-00${i}`, {
      password: `senha-P00${i}`,
      requestedAt: daysAgo(days),
      patient: maria,
      exams: [
        {
          key: `HEMO${i}`,
          description: 'Hemograma completo',
          type: 'HEMOGRAMA',
          requester,
          performedAt: daysAgo(days),
          report: true,
          analytes: [
            { code: 'HB', name: 'Hemoglobina', unit: 'g/dL', value: 13 + i / 10, referenceMin: 12, referenceMax: 16 },
          ],
        },
      ],
    });
  }
  await ingest(base, key, 'P-TC', {
    password: 'senha-PTC',
    requestedAt: daysAgo(20),
    patient: maria,
    exams: [
      {
        key: 'TC1',
        description: 'Tomografia de crânio',
        modality: ['CT', 'Tomografia'],
        requester,
        performedAt: daysAgo(20),
        report: true,
        files: [
          { type: 'REPORT_PHYSICIAN', id: 'TC1-medico', text: 'Laudo para o medico P-TC' },
          { type: 'ANALYSIS', id: 'TC1-analise', text: 'Analise volumetrica P-TC' },
        ],
      },
    ],
  });
  for (let i = 10; i < 18; i++) {
    await ingest(base, key, `P-0${i}`, {
      password: `senha-P0${i}`,
      requestedAt: daysAgo(30 + i),
      patient: maria,
      exams: [
        { key: `COL${i}`, description: 'Colesterol total', requester, performedAt: daysAgo(30 + i), report: true },
      ],
    });
  }
  await ingest(base, key, 'P-OLD', {
    password: 'senha-POLD',
    requestedAt: daysAgo(250),
    patient: maria,
    exams: [
      {
        key: 'OLD1',
        description: 'Eletrocardiograma',
        modality: ['ECG', 'Eletrocardiografia'],
        performedAt: daysAgo(250),
        report: true,
      },
    ],
  });
  await ingest(base, key, 'P-LINK', {
    password: 'senha-PLINK',
    requestedAt: daysAgo(5),
    patient: maria,
    exams: [{ key: 'TSH1', description: 'TSH ultrassensível', requester, performedAt: daysAgo(5), report: true }],
  });
  // A guest with two protocols under one e-mail and password: the unique-login dashboard.
  const joao = {
    patientId: 'PAC-2',
    name: 'João Reis',
    birthDate: '1970-01-20',
    gender: 'MALE',
    email: 'joao.reis@example.com',
  };
  for (const n of ['J-1', 'J-2']) {
    await ingest(base, key, n, {
      password: 'senha-Joao',
      requestedAt: daysAgo(n === 'J-1' ? 4 : 9),
      patient: joao,
      exams: [
        {
          key: `${n}-E`,
          description: n === 'J-1' ? 'Ferritina' : 'Vitamina D',
          requester,
          performedAt: daysAgo(4),
          report: true,
        },
      ],
    });
  }

  /** An account created on the registration call and activated from its mail. */
  const activatedAccount = async (name: string, email: string, password: string, dateOfBirth: string) => {
    await call(base, 'POST', '/api/v2/auth/user/create', {
      name,
      login: email,
      confirmEmailAddress: email,
      password,
      confirmPassword: password,
      dateOfBirth,
      language: 'pt-br',
      serviceTerms: true,
    });
    // Result notices go to the same address; the activation mail is the one with the link.
    const activationMail = async () => {
      for (let tries = 0; tries < 200; tries++) {
        const found = mailbox.mailsTo(email).find((m) => (m.text ?? '').includes('/api/v2/auth/user/registerValidate'));
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`no activation mail arrived for ${email}`);
    };
    const activation = await fetch(linkIn(await activationMail(), base, '/api/v2/auth/user/registerValidate'), {
      redirect: 'manual',
    });
    if (!activation.headers.get('location')?.includes('activeSuccess=true')) throw new Error('activation failed');
  };
  // Maria's account, with every protocol but P-LINK linked to it; Ana's, with none.
  await activatedAccount(maria.name, patientEmail, patientPassword, '09/07/1984');
  await activatedAccount('Ana Souza', otherPatientEmail, otherPatientPassword, '15/03/1992');
  patient = await signInApi(base, patientEmail, patientPassword);
  const auth = { authorization: `Bearer ${patient.token}` };
  for (const n of [
    'P-001',
    'P-002',
    'P-003',
    'P-TC',
    'P-OLD',
    ...Array.from({ length: 8 }, (_, i) => `P-0${10 + i}`),
  ]) {
    await call(
      base,
      'POST',
      '/api/v2/auth/user/bindProtocol',
      { protocol: n, password: `senha-${n.replace('-', '')}`, patientUserId: patient.id },
      auth,
    );
  }
});

afterAll(async () => {
  await browser?.close();
  await portal?.stop();
  await mailbox?.close();
});

async function signedInPatient(): Promise<Page> {
  const page = await openPage(browser, portal.baseUrl, '/login', true);
  await signIn(page, patientEmail, patientPassword);
  await page.waitForURL('**/dashboard/patient/protocols');
  return page;
}

/**
 * The layout shift of a fresh load of the dashboard on a phone, summed until the list is shown:
 * the footer and the list's surroundings must not move once painted.
 */
async function layoutShiftOfFreshLoad(
  page: Page,
  listed: string,
  options: { forgetProfile?: boolean } = {},
): Promise<{ total: number; moved: string[] }> {
  await page.setViewportSize({ width: 390, height: 844 });
  // As on the first dashboard of a session: nothing known of her profile until her record comes.
  if (options.forgetProfile) await page.evaluate(() => sessionStorage.removeItem('portal.profileIncomplete'));
  await page.reload();
  await page.getByText(listed).waitFor();
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  const shift = await page.evaluate(
    () =>
      new Promise<{ total: number; moved: string[] }>((resolve) => {
        type Shift = PerformanceEntry & {
          value: number;
          hadRecentInput: boolean;
          sources: Array<{ node: Node | null }>;
        };
        let total = 0;
        const moved: string[] = [];
        const observer = new PerformanceObserver((list) => {
          for (const entry of list.getEntries() as Shift[]) {
            if (entry.hadRecentInput) continue;
            total += entry.value;
            for (const source of entry.sources) {
              const node = source.node as HTMLElement | null;
              moved.push(`${entry.value.toFixed(3)} ${node?.tagName ?? '?'} ${String(node?.className ?? '')}`);
            }
          }
        });
        observer.observe({ type: 'layout-shift', buffered: true });
        // Buffered entries are delivered in the observer's first callback, before this timer.
        setTimeout(() => {
          observer.disconnect();
          resolve({ total, moved });
        }, 300);
      }),
  );
  await page.setViewportSize({ width: 1280, height: 900 });
  return shift;
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

async function pickPreset(page: Page, preset: string): Promise<void> {
  await page.getByRole('button', { name: /^Período/ }).click();
  await page.getByRole('button', { name: preset }).click();
  await page.keyboard.press('Escape');
}

describe('patient dashboard', () => {
  it('filters by period, text and read state, pages, and shows a report as read at once', async () => {
    const page = await signedInPatient();
    // Default range: the last 6 months (12 protocols; P-OLD is older).
    await page.getByText('12 protocolos encontrados').waitFor();
    expect(await rows(page).count()).toBe(10);
    // Her profile lacks CPF and phone: the prompt sits in the page, under the title, with its link.
    const prompt = page.getByTestId('profile-prompt');
    expect(await prompt.getByRole('link', { name: 'Completar cadastro' }).getAttribute('href')).toBe('/patient/edit');
    const title = await page.getByRole('heading', { level: 1 }).boundingBox();
    const promptBox = await prompt.boundingBox();
    expect((promptBox?.y ?? 0) >= (title?.y ?? 0) + (title?.height ?? 0)).toBe(true);
    // Greeted by first name, the full name in the account menu.
    await page.getByRole('button', { name: /Olá, Maria/ }).click();
    await page.getByRole('menu').getByText('Maria Lima', { exact: true }).waitFor();
    await page.keyboard.press('Escape');
    // Each row names its exams and says in words where each stands, spec 4.1's code a small
    // badge beside (the institution shows codes), and "Novo" on results not opened yet.
    const words = await rows(page)
      .first()
      .getByTestId('exam-words')
      .locator('li')
      .evaluateAll((items) => items.map((li) => `${li.getAttribute('data-state')}: ${li.textContent}`));
    expect(words).toEqual([
      'ready: Hemograma completoProntoLNovo',
      'ready: Raio-X de tóraxProntoLNovo',
      'rectification: Ultrassom de abdomeAguardando retificaçãoL',
      'discarded: Glicemia de jejumDescartadoD',
    ]);
    await rows(page).first().getByRole('listitem').first().getByLabel('Código L: Liberado').waitFor();
    // Nothing jumps when the list arrives (the footer stays below the first screen).
    const shift = await layoutShiftOfFreshLoad(page, '12 protocolos encontrados');
    expect(shift.total, shift.moved.join('\n')).toBeLessThan(0.02);
    // Nor when the prompt is not known beforehand: it comes with the filters and the list.
    const cold = await layoutShiftOfFreshLoad(page, '12 protocolos encontrados', { forgetProfile: true });
    expect(cold.total, cold.moved.join('\n')).toBeLessThan(0.02);
    await screenshotBothWidths(page, 'results-patient-dashboard');
    await expectAccessible(page, 'patient dashboard');
    await fitsPhoneWidth(page);

    const pager = page.getByRole('navigation', { name: 'Paginação' });
    await pager.getByRole('button', { name: 'Página 2' }).click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="protocol-row"]').length === 2);
    await pager.getByRole('button', { name: 'Anterior' }).click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="protocol-row"]').length === 10);

    await pickPreset(page, 'Último ano');
    await page.getByText('13 protocolos encontrados').waitFor();
    await pickPreset(page, 'Este mês');
    // The year's total leaves for this month's, whatever the day.
    await page.getByText('13 protocolos encontrados').waitFor({ state: 'detached' });
    await page
      .getByText(/protocolos? encontrados?|Nenhum registro/)
      .first()
      .waitFor();
    await pickPreset(page, 'Últimos 6 meses');
    await page.getByText('12 protocolos encontrados').waitFor();

    // A forced refresh reloads the list; a later search that finds nothing still says so.
    const refreshed = page.waitForResponse((r) => r.url().includes('forceRefresh=true'));
    await page.getByRole('button', { name: 'Atualizar lista' }).click();
    expect((await refreshed).status()).toBe(200);
    await page.getByText('12 protocolos encontrados').waitFor();
    const search = page.getByRole('searchbox', { name: 'Buscar' });
    await search.fill('Tomografia');
    await page.getByText('1 protocolo encontrado').waitFor();
    await search.fill('nada-disso');
    await page.getByText('Nenhum registro encontrado com o filtro informado').waitFor();
    await screenshotBothWidths(page, 'results-patient-dashboard-empty');
    await search.fill('Tomografia');
    await page.getByText('1 protocolo encontrado').waitFor();

    // Expand the row: the exams load then; opening the report marks exam and protocol read.
    const row = rows(page).first();
    expect(await row.getByTestId('protocol-read-state').textContent()).toBe('Não lido');
    expect(await row.getByTestId('exam-new').count()).toBe(1);
    // By keyboard: the row expands with Enter, and Escape closes the file viewer.
    await page.getByRole('button', { name: 'Ver exames do protocolo P-TC' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Ocultar exames do protocolo P-TC' }).waitFor();
    const exam = page.getByTestId('exam-row').first();
    await exam.waitFor();
    expect(await exam.getByTestId('exam-read-state').textContent()).toBe('Não lido');
    await page.getByRole('button', { name: 'Abrir o laudo de Tomografia de crânio' }).click();
    const viewer = page.getByRole('dialog', { name: 'Tomografia de crânio' });
    await viewer.waitFor();
    // The list's cache reaches the screen a task after the dialog: wait for it rather than look once.
    await expect.poll(() => exam.getByTestId('exam-read-state').textContent()).toBe('Lido');
    await expect.poll(() => row.getByTestId('protocol-read-state').textContent()).toBe('Lido');
    expect(await row.getByTestId('exam-new').count()).toBe(0);
    await screenshotBothWidths(page, 'results-report-viewer');
    await page.keyboard.press('Escape');
    await viewer.waitFor({ state: 'hidden' });
    // The physician's report beside the report, and the analysis, open from the exam too.
    await screenshotBothWidths(page, 'results-exam-documents');
    for (const name of ['Abrir o laudo do médico de Tomografia de crânio', 'Abrir a análise de Tomografia de crânio']) {
      await exam.getByRole('button', { name }).click();
      await viewer.waitFor();
      await page.keyboard.press('Escape');
      await viewer.waitFor({ state: 'hidden' });
    }

    await search.fill('');
    await page.getByText('12 protocolos encontrados').waitFor();
    await page.getByText('Lidos', { exact: true }).click();
    await page.getByText('1 protocolo encontrado').waitFor();
    expect(await rows(page).first().textContent()).toContain('P-TC');
    await page.getByText('Não lidos', { exact: true }).click();
    await page.getByText('11 protocolos encontrados').waitFor();
    await page.context().close();
  });

  it("shows the next patient on the same tab none of the last one's answers after she signs out", async () => {
    const page = await signedInPatient();
    await page.getByText('12 protocolos encontrados').waitFor();
    await page.getByRole('button', { name: /^Minha conta/ }).click();
    await page.getByRole('menuitem', { name: 'Minha conta' }).click();
    await page.getByText('Cadastro incompleto').waitFor();
    await page.getByRole('button', { name: 'Sair' }).click();
    await page.waitForURL('**/login');
    // From the sign-in screen on (the same page: the app never reloaded), everything the page
    // shows is written down, change by change.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { seen: string[] }).seen = seen;
      new MutationObserver(() => seen.push(document.body.innerText)).observe(document.body, {
        childList: true,
        subtree: true,
        characterData: true,
      });
    });
    // Ana signs in on the same screen (no new page load: what the app kept in memory stays).
    await page.getByRole('textbox', { name: /^Protocolo ou e-mail/ }).fill(otherPatientEmail);
    await page.getByLabel(/^Senha/).fill(otherPatientPassword);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.waitForURL('**/dashboard/patient/protocols');
    await page.getByTestId('list-empty').waitFor();
    expect(await page.evaluate(() => Array.isArray((window as unknown as { seen?: string[] }).seen))).toBe(true);
    await page.getByText('Olá, Ana', { exact: true }).first().waitFor();
    await page.getByRole('button', { name: /^Minha conta/ }).click();
    await page.getByRole('menuitem', { name: 'Minha conta' }).click();
    expect(await page.getByLabel(/^Nome completo/).inputValue()).toBe('Ana Souza');
    const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen);
    expect(seen.length).toBeGreaterThan(0);
    const leaked = seen.filter((text) => /Maria|P-001|12 protocolos/.test(text));
    expect(leaked.map((text) => text.slice(0, 200))).toEqual([]);
    await page.context().close();
  });

  it('draws the dashboard before any code arrives, then the app replaces it with the list', async () => {
    const page = await signedInPatient();
    await rows(page).first().waitFor();
    const scripts: string[] = [];
    const onRequest = (request: Request) => {
      if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
    };
    page.on('request', onRequest);
    const { release, errors } = await reloadBeforeCode(page);
    // The page itself, before any script: the header, the title and the list loading.
    const drawnTitle = page.getByRole('heading', { level: 1, name: 'Meus protocolos' });
    await drawnTitle.waitFor();
    expect(await page.locator('.drawn-screen').evaluate((element) => getComputedStyle(element).visibility)).toBe(
      'visible',
    );
    expect(await page.title()).toBe('Meus protocolos | Entrega de Resultados');
    expect(await page.evaluate(() => document.querySelectorAll('script:not([src])').length)).toBe(0);
    expect(await rows(page).count()).toBe(0);
    // Her profile was seen incomplete earlier in this session: the prompt is drawn too, under the
    // title, with its link, before any code.
    const drawnPrompt = page.locator('.drawn-screen').getByTestId('profile-prompt');
    expect(await drawnPrompt.isVisible()).toBe(true);
    expect(await drawnPrompt.getByRole('link', { name: 'Completar cadastro' }).getAttribute('href')).toBe(
      '/patient/edit',
    );
    const drawnPromptBox = await drawnPrompt.boundingBox();
    const drawnTitleBox = await drawnTitle.boundingBox();
    expect(drawnPromptBox!.y).toBeGreaterThanOrEqual(drawnTitleBox!.y + drawnTitleBox!.height);
    await screenshotBothWidths(page, 'results-patient-dashboard-drawn-before-code');
    await page.evaluate(() => {
      (window as unknown as { drawnHeading: Element | null }).drawnHeading = document.querySelector('h1');
    });

    release();
    await page.getByText('12 protocolos encontrados').waitFor();
    // The app's own screen in its place: one title (not the drawn one), the greeting, the list,
    // and the prompt where the drawing showed it.
    await page.locator('.drawn-screen').waitFor({ state: 'detached' });
    const appPromptBox = await page.getByTestId('profile-prompt').boundingBox();
    expect(Math.abs(appPromptBox!.y - drawnPromptBox!.y)).toBeLessThanOrEqual(2);
    expect(await page.locator('h1').count()).toBe(1);
    expect(
      await page.evaluate(
        () => (window as unknown as { drawnHeading: Element | null }).drawnHeading === document.querySelector('h1'),
      ),
    ).toBe(false);
    await page.getByText('Olá, Maria', { exact: true }).first().waitFor();
    expect(await rows(page).count()).toBe(10);
    expect(errors).toEqual([]);
    // The list came without the code of forms it does not show: the schema library, the share and
    // link forms, the history's chart (each loads when the patient opens it).
    page.off('request', onRequest);
    expect(scripts.some((s) => s.includes('patient-dashboard-page'))).toBe(true);
    expect(scripts.filter((s) => /\/(zod|share-modal|link-protocol-modal|history-modal)-/.test(s))).toEqual([]);
    await page.unrouteAll();

    // On a phone the drawn header and the app's are the same: the logo's mark without the portal's
    // name, the account button without the person's name (both keep their accessible names).
    await page.setViewportSize({ width: 390, height: 844 });
    const phone = await reloadBeforeCode(page);
    const drawnHeader = page.locator('.drawn-screen header');
    await drawnHeader.getByRole('link', { name: 'Entrega de Resultados, página inicial' }).waitFor();
    expect(await drawnHeader.getByText('Entrega de Resultados', { exact: true }).isHidden()).toBe(true);
    // The drawing has her button under the title too, so the prompt stays put when the app comes.
    await page.locator('.drawn-screen').getByRole('button', { name: 'Adicionar protocolo' }).waitFor();
    const drawnPhonePrompt = await page.locator('.drawn-screen').getByTestId('profile-prompt').boundingBox();
    phone.release();
    await page.locator('.drawn-screen').waitFor({ state: 'detached' });
    const phonePrompt = await page.getByTestId('profile-prompt').boundingBox();
    expect(Math.abs(phonePrompt!.y - drawnPhonePrompt!.y)).toBeLessThanOrEqual(2);
    const header = page.locator('header');
    await header.getByRole('button', { name: 'Minha conta (Olá, Maria)' }).waitFor();
    await header.getByRole('link', { name: 'Entrega de Resultados, página inicial' }).waitFor();
    expect(await header.getByText('Entrega de Resultados', { exact: true }).isHidden()).toBe(true);
    expect(await header.getByText('Olá, Maria', { exact: true }).isHidden()).toBe(true);
    expect(phone.errors).toEqual([]);
    await page.unrouteAll();
    await page.setViewportSize({ width: 1280, height: 900 });
    await header.getByText('Entrega de Resultados', { exact: true }).waitFor();
    await header.getByText('Olá, Maria', { exact: true }).waitFor();

    // A session that has not seen her profile (or saw it complete) draws no prompt: it comes with
    // her record, above the list.
    await page.evaluate(() => sessionStorage.removeItem('portal.profileIncomplete'));
    const unknown = await reloadBeforeCode(page);
    await page.locator('.drawn-screen h1').waitFor();
    expect(await page.locator('.drawn-screen').getByTestId('profile-prompt').isHidden()).toBe(true);
    unknown.release();
    await page.locator('.drawn-screen').waitFor({ state: 'detached' });
    await page.getByTestId('profile-prompt').waitFor();
    expect(unknown.errors).toEqual([]);
    await page.unrouteAll();
    expect(await page.evaluate(() => sessionStorage.getItem('portal.profileIncomplete'))).toBe('1');

    // In another language the drawing (Portuguese) is not shown: the app draws the screen.
    await page.evaluate(() => sessionStorage.setItem('portal.language', 'es'));
    const spanish = await reloadBeforeCode(page);
    const drawn = page.locator('.drawn-screen');
    await drawn.waitFor({ state: 'attached' });
    expect(await drawn.evaluate((element) => getComputedStyle(element).visibility)).toBe('hidden');
    spanish.release();
    await page.getByRole('heading', { level: 1, name: 'Mis protocolos' }).waitFor();
    await drawn.waitFor({ state: 'detached' });
    expect(spanish.errors).toEqual([]);
    await page.unrouteAll();
    await page.evaluate(() => sessionStorage.setItem('portal.language', 'pt-br'));

    // Signed out, the dashboard's address shows no drawing either: the app sends the visit to the login.
    await page.evaluate(() => sessionStorage.removeItem('portal.credentials'));
    const signedOut = await reloadBeforeCode(page);
    await drawn.waitFor({ state: 'attached' });
    expect(await drawn.evaluate((element) => getComputedStyle(element).visibility)).toBe('hidden');
    signedOut.release();
    await page.waitForURL('**/login**');
    await page.getByRole('button', { name: 'Entrar', exact: true }).waitFor();
    await page.context().close();
  });

  it('links a protocol with its number and password', async () => {
    const page = await signedInPatient();
    await page.getByText('12 protocolos encontrados').waitFor();
    // A search typed before linking would hide the new protocol: the box empties after linking.
    const search = page.getByRole('searchbox', { name: 'Buscar' });
    await search.fill('Tomografia');
    await page.getByText('1 protocolo encontrado').waitFor();
    await page.getByRole('button', { name: 'Adicionar protocolo' }).click();
    const dialog = page.getByRole('dialog', { name: 'Adicionar protocolo' });
    await dialog.getByRole('button', { name: 'Adicionar' }).click();
    expect(await dialog.getByText('Campo obrigatório').count()).toBe(2);
    await screenshotBothWidths(page, 'results-link-protocol-modal');
    await expectAccessible(page, 'link protocol modal');
    await dialog.getByLabel(/^Número do protocolo/).fill('P-LINK');
    await dialog.getByLabel(/^Senha do protocolo/).fill('senha-PLINK');
    await dialog.getByRole('button', { name: 'Adicionar' }).click();
    await page.getByText('Protocolo adicionado à sua conta.').waitFor();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByText('13 protocolos encontrados').waitFor();
    expect(await search.inputValue()).toBe('');
    await rows(page).filter({ hasText: 'P-LINK' }).waitFor();
    await page.context().close();
  });

  it('opens a protocol with its header, statuses, rectification and signature help', async () => {
    const page = await signedInPatient();
    await page.getByRole('link', { name: 'Abrir o protocolo P-001' }).click();
    await page.waitForURL('**/dashboard/patient/showprotocol?id=*');
    const detailUrl = page.url();
    await page.getByRole('heading', { level: 1, name: 'Protocolo P-001' }).waitFor();
    for (const text of ['Clínica Aurora', 'Maria Lima', '09/07/1984', 'Feminino', '(11) 98888-1111', patientEmail]) {
      await page.getByText(text, { exact: true }).first().waitFor();
    }
    // The institution shows status codes; the discarded exam is greyed; the pending rectification withholds its report.
    // The institution's notice sits above the exams, in the language of the screen.
    const banner = page.getByRole('note').filter({ hasText: notice });
    await banner.waitFor();
    expect(await banner.getAttribute('lang')).toBe('pt-BR');
    const bannerBox = await banner.boundingBox();
    const firstExamBox = await page.getByTestId('exam-row').first().boundingBox();
    expect(bannerBox && firstExamBox && bannerBox.y + bannerBox.height <= firstExamBox.y).toBe(true);
    await page.getByRole('columnheader', { name: 'Situação' }).waitFor();
    // Spec 4.1: the legend spells out every code, RE included and R as awaiting rectification.
    const legend = page.getByRole('region', { name: 'Legenda das situações' });
    for (const [code, label] of [
      ['L', 'Liberado'],
      ['D', 'Descartado'],
      ['R', 'Aguardando retificação'],
      ['RE', 'Repetir exame'],
      ['NI', 'Não informado'],
    ] as const) {
      const item = legend.locator('div').filter({ has: page.getByText(code, { exact: true }) });
      await item.getByText(label, { exact: true }).waitFor();
    }
    expect(await legend.locator('dt').count()).toBe(12);
    const discarded = page.getByTestId('exam-row').filter({ hasText: 'Glicemia de jejum' });
    expect(await discarded.getAttribute('data-greyed')).toBe('true');
    const usg = page.getByTestId('exam-row').filter({ hasText: 'Ultrassom de abdome' });
    await usg.getByText('Aguardando retificação').first().waitFor();
    expect(await usg.getByRole('button', { name: /Abrir o laudo/ }).count()).toBe(0);
    await page.getByRole('button', { name: 'Ver todos os laudos' }).waitFor();
    await screenshotBothWidths(page, 'results-protocol-detail');
    await expectAccessible(page, 'protocol detail');
    await fitsPhoneWidth(page);

    await page.getByRole('button', { name: 'Abrir a imagem de Raio-X de tórax' }).click();
    const viewer = page.getByRole('dialog', { name: 'Raio-X de tórax' });
    await viewer.locator('img').waitFor();
    await viewer.getByRole('button', { name: 'Fechar' }).click();
    const rx = page.getByTestId('exam-row').filter({ hasText: 'Raio-X de tórax' });
    expect(await rx.getByTestId('exam-read-state').textContent()).toBe('Lido');

    // 'Show all' opens the merged reports and marks their exams read; an exam without a report stays unread.
    await page.getByRole('button', { name: 'Ver todos os laudos' }).click();
    const all = page.getByRole('dialog', { name: 'Todos os laudos' });
    await all.waitFor();
    await all.getByRole('button', { name: 'Fechar' }).click();
    const hemo = page.getByTestId('exam-row').filter({ hasText: 'Hemograma completo' });
    expect(await hemo.getByTestId('exam-read-state').textContent()).toBe('Lido');
    expect(await discarded.getByTestId('exam-read-state').textContent()).toBe('Não lido');

    await page.getByRole('button', { name: 'Verificar assinatura digital' }).click();
    const help = page.getByRole('dialog', { name: 'Verificar assinatura digital' });
    expect(await help.getByRole('link', { name: 'https://validar.iti.gov.br' }).getAttribute('href')).toBe(
      'https://validar.iti.gov.br',
    );
    await screenshotBothWidths(page, 'results-signature-modal');
    await expectAccessible(page, 'signature modal');
    await help.getByRole('button', { name: 'Entendi' }).click();

    await page.getByRole('link', { name: /Voltar para os protocolos/ }).click();
    await page.waitForURL('**/dashboard/patient/protocols');

    // In English the notice is the institution's English text; Spanish, which it left out, falls back to pt-br.
    await page.goto(`${detailUrl}&language=en`);
    const english = page.getByRole('note').filter({ hasText: 'Results are available for six months' });
    await english.waitFor();
    expect(await english.getAttribute('lang')).toBe('en');
    await page.goto(`${detailUrl}&language=es`);
    await page.getByRole('heading', { level: 1, name: 'Protocolo P-001' }).waitFor();
    const fallback = page.getByRole('note').filter({ hasText: notice });
    await fallback.waitFor();
    expect(await fallback.getAttribute('lang')).toBe('pt-BR');
    await page.context().close();
  });

  it('shows the results history as a table and a chart and prints it to an A4 PDF', async () => {
    const page = await signedInPatient();
    await page.getByText(/protocolos? encontrados?/).waitFor();
    await page.getByRole('button', { name: 'Histórico', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Histórico de resultados' });
    // The first exam type and its first result (of two) are chosen and loaded at once (spec 4.9).
    const table = dialog.getByTestId('history-table');
    await table.waitFor();
    expect(await dialog.getByRole('textbox', { name: 'Tipo de exame' }).inputValue()).toBe('Hemograma completo');
    expect(await dialog.getByRole('textbox', { name: 'Resultado' }).inputValue()).toBe('Hemoglobina');
    const headers = await table.getByRole('columnheader').allTextContents();
    expect(headers).toHaveLength(4);
    await table.getByRole('rowheader', { name: 'Hemoglobina (g/dL)' }).waitFor();
    expect(await table.locator('[data-flag="high"]').count()).toBe(1);
    // pt-BR writes the decimal comma (17.4 in the data).
    expect(await table.locator('[data-flag="high"]').textContent()).toBe('17,4 (acima)');
    await dialog.getByTestId('history-chart').locator('svg.recharts-surface').waitFor();
    // The time axis is proportional to time: 80 to 40 days ago and 40 to 3 days ago lie 40 to 37 apart.
    const dots = await dialog
      .getByTestId('history-chart')
      .locator('.recharts-line-dots')
      .first()
      .locator('circle')
      .evaluateAll((circles) => circles.map((c) => Number(c.getAttribute('cx'))));
    expect(dots).toHaveLength(3);
    const [d80 = 0, d40 = 0, d3 = 0] = dots;
    expect((d40 - d80) / (d3 - d40)).toBeCloseTo(40 / 37, 1);
    await screenshotBothWidths(page, 'results-history-modal');
    await expectAccessible(page, 'history modal');

    const download = page.waitForEvent('download');
    await dialog.getByRole('button', { name: 'Imprimir em PDF' }).click();
    const file = await (await download).path();
    const bytes = fs.readFileSync(file);
    const pdf = bytes.toString('latin1');
    expect(pdf.startsWith('%PDF-')).toBe(true);
    // A few KB: the chart is drawn with the PDF's own lines, the fonts are the standard ones.
    expect(bytes.length).toBeLessThan(100 * 1024);
    expect(pdf).not.toMatch(/\/FontFile|\/Subtype\s*\/Image/);
    // A4 landscape in points.
    const media = /\/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]/.exec(pdf);
    expect(Number(media?.[1])).toBeCloseTo(841.89, 2);
    expect(Number(media?.[2])).toBeCloseTo(595.28, 2);
    const text = execFileSync('pdftotext', ['-layout', file, '-']).toString('utf8');
    expect(text).toMatch(/Paciente:\s+Maria Lima/);
    expect(text).toMatch(/Data de nascimento:\s+09\/07\/1984/);
    expect(text).toMatch(/Instituição:\s+Clínica Aurora/);
    expect(text).toMatch(/Período:\s+\d\d\/\d\d\/\d{4} – \d\d\/\d\d\/\d{4}/);
    expect(text).toMatch(/Exame:\s+Hemograma completo · Hemoglobina/);
    // Every date column, the decimal comma, the reference range and the out-of-range mark.
    for (const column of headers.slice(1)) expect(text).toContain(column);
    expect(text).toMatch(/Hemoglobina \(g\/dL\)\s+13,3\s+13,2\s+17,4 \(acima\)/);
    expect(text).toMatch(/Referência\s+12 a 16\s+12 a 16\s+12 a 16/);
    expect(text).not.toMatch(/\d\.\d/);
    // The page as a person sees it: rendered by poppler, kept among the screenshots.
    execFileSync('pdftoppm', [
      '-png',
      '-r',
      '60',
      '-f',
      '1',
      '-l',
      '1',
      '-singlefile',
      file,
      `${ARTIFACTS}/results-history-pdf`,
    ]);
    expect(fs.statSync(`${ARTIFACTS}/results-history-pdf.png`).size).toBeGreaterThan(5000);
    expectHistoryDrawn(drawPdfPage(file));

    // The second result: thousands written with a point in pt-BR.
    await dialog.getByRole('textbox', { name: 'Resultado' }).click();
    await page.getByRole('option', { name: 'Leucócitos' }).click();
    await table.getByRole('rowheader', { name: 'Leucócitos (/mm³)' }).waitFor();
    expect(await table.getByRole('row').nth(1).textContent()).toContain('7.250');
    await page.context().close();
  });

  it('shares a protocol with two e-mails; the link opens only that protocol until revoked', async () => {
    const page = await signedInPatient();
    await page.getByRole('button', { name: 'Compartilhar o protocolo P-001' }).click();
    const dialog = page.getByRole('dialog', { name: 'Compartilhar o protocolo P-001' });
    const emails = dialog.getByRole('textbox', { name: /^E-mails/ });
    await emails.pressSequentially('nao-e-email ');
    await dialog.getByText('E-mail inválido').waitFor();
    await emails.press('Backspace');
    await emails.pressSequentially('ana.costa@example.com bia.rocha@example.com ');
    await dialog.getByRole('textbox', { name: /^Mensagem/ }).fill('Resultados do check-up');
    await dialog.getByText('22/120 caracteres').waitFor();
    await screenshotBothWidths(page, 'results-share-modal');
    await expectAccessible(page, 'share modal');
    await dialog.getByRole('button', { name: 'Compartilhar' }).click();
    await page.getByText('Protocolo compartilhado. Os destinatários receberão o link por e-mail.').waitFor();

    // The account screen lists the shares: a table on a wide screen, one card per share on a phone.
    await page.goto('/patient/edit');
    await page.getByRole('button', { name: 'Protocolos compartilhados' }).click();
    const table = page.getByRole('region', { name: 'Lista de compartilhamentos' });
    await table.getByRole('cell', { name: 'bia.rocha@example.com' }).waitFor();
    expect(await table.getAttribute('tabindex')).toBe('0');
    expect(await page.getByTestId('share-card').first().isVisible()).toBe(false);
    await screenshotBothWidths(page, 'results-shares-list');
    await expectAccessible(page, 'shares list');
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await table.isVisible()).toBe(false);
    const cards = page.getByTestId('share-card');
    expect(await cards.count()).toBe(2);
    await cards.filter({ hasText: 'ana.costa@example.com' }).getByText('Protocolo: P-001').waitFor();
    await cards.filter({ hasText: 'ana.costa@example.com' }).getByRole('button', { name: 'Revogar' }).waitFor();
    await expectAccessible(page, 'shares as cards on a phone');
    await fitsPhoneWidth(page);

    const path = (link: string) => new URL(link).pathname;
    const anaLink = linkIn(await mailbox.waitFor('ana.costa@example.com'), portal.baseUrl, '/landing/');
    const biaLink = linkIn(await mailbox.waitFor('bia.rocha@example.com'), portal.baseUrl, '/landing/');
    const guest = await openPage(browser, portal.baseUrl, path(anaLink), true);
    await guest.waitForURL('**/viewprotocol');
    await guest.getByRole('heading', { level: 1, name: 'Protocolo P-001' }).waitFor();
    // Told whose results these are; never invited to create or enter the patient's account.
    expect(await guest.getByTestId('shared-banner').textContent()).toContain(
      'Maria Lima compartilhou com você os resultados do protocolo P-001',
    );
    // ... and until when, in words, in the clinic's zone (GMT-3), as the share says.
    const listed = await call<{ items: Array<{ email: string; expiresAt: string }> }>(
      portal.baseUrl,
      'GET',
      `/api/auth/patient/${patient.id}/shares`,
      undefined,
      { authorization: `Bearer ${patient.token}` },
    );
    const end = new Date(
      new Date(listed.items.find((s) => s.email === 'ana.costa@example.com')!.expiresAt).getTime() - 3 * 3600_000,
    );
    const MONTHS = [
      'janeiro',
      'fevereiro',
      'março',
      'abril',
      'maio',
      'junho',
      'julho',
      'agosto',
      'setembro',
      'outubro',
      'novembro',
      'dezembro',
    ];
    const two = (n: number) => String(n).padStart(2, '0');
    const until = `${end.getUTCDate()} de ${MONTHS[end.getUTCMonth()]} de ${end.getUTCFullYear()} às ${two(end.getUTCHours())}:${two(end.getUTCMinutes())}`;
    expect(await guest.getByTestId('shared-banner').textContent()).toContain(`do protocolo P-001 até ${until}.`);
    expect(await guest.getByTestId('account-banner').count()).toBe(0);
    expect(await guest.getByRole('link', { name: /Criar conta|Entrar/ }).count()).toBe(0);
    await screenshotBothWidths(guest, 'results-shared-protocol');
    await expectAccessible(guest, 'shared protocol');
    await guest.goto('/dashboard/protocols/uniquelogin');
    await guest.getByText('1 protocolo encontrado').waitFor();
    expect(await rows(guest).count()).toBe(1);
    await guest.context().close();

    const auth = { authorization: `Bearer ${patient.token}` };
    const shares = await call<{ items: Array<{ id: string; email: string }> }>(
      portal.baseUrl,
      'GET',
      `/api/auth/patient/${patient.id}/shares`,
      undefined,
      auth,
    );
    const bia = shares.items.find((s) => s.email === 'bia.rocha@example.com');
    await call(portal.baseUrl, 'POST', `/api/auth/patient/share/${bia?.id}/revoke`, undefined, auth);
    const refused = await openPage(browser, portal.baseUrl, path(biaLink), true);
    await refused.getByText('O acesso compartilhado expirou.').waitFor();
    await refused.waitForURL('**/login**');
    await refused.context().close();
    await page.context().close();
  });
});

describe('on a touch screen', () => {
  it('makes every button and icon button a thumb taps at least 44 px tall', async () => {
    const context = await browser.newContext({
      baseURL: portal.baseUrl,
      locale: 'pt-BR',
      timezoneId: 'America/Sao_Paulo',
      viewport: { width: 390, height: 844 },
      hasTouch: true,
      isMobile: true,
    });
    await context.addInitScript(() => {
      sessionStorage.setItem('portal.scamWarningSeen', '1');
      localStorage.setItem('portal.cookieConsent', JSON.stringify('accepted'));
    });
    const page = await context.newPage();
    expect(await page.evaluate(() => matchMedia('(pointer: coarse)').matches)).toBe(true);
    await signIn(page, patientEmail, patientPassword);
    await page.waitForURL('**/dashboard/patient/protocols');
    await page.getByText(/\d+ protocolos encontrados/).waitFor();
    const small = await page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLElement>('button, [role="button"], a.mantine-Button-root'))
        .filter((el) => el.offsetParent !== null)
        .map((el) => ({
          name: (el.getAttribute('aria-label') ?? el.textContent ?? '').trim(),
          box: el.getBoundingClientRect(),
        }))
        .filter(({ box }) => box.height < 44)
        .map(({ name, box }) => `${name}: ${Math.round(box.height)} px`),
    );
    expect(small).toEqual([]);
    await page.screenshot({ path: `${ROOT}/e2e/artifacts/results-patient-dashboard-touch-390.png`, fullPage: true });
    await context.close();
  });
});

describe('unique-login dashboard', () => {
  it('lists the guest protocols as cards with search, and offers an account from the protocol', async () => {
    const page = await openPage(browser, portal.baseUrl, '/login', true);
    await signIn(page, 'joao.reis@example.com', 'senha-Joao');
    await page.waitForURL('**/dashboard/protocols/uniquelogin');
    await page.getByText('2 protocolos encontrados').waitFor();
    await screenshotBothWidths(page, 'results-unique-login');
    await expectAccessible(page, 'unique-login dashboard');
    await fitsPhoneWidth(page);
    await page.getByRole('searchbox', { name: 'Buscar' }).fill('Vitamina');
    await page.getByText('1 protocolo encontrado').waitFor();
    await page.getByRole('link', { name: 'Abrir o protocolo J-2' }).click();
    await page.getByRole('heading', { level: 1, name: 'Protocolo J-2' }).waitFor();
    await page.getByRole('link', { name: /Voltar para os protocolos/ }).waitFor();
    await page.context().close();

    // Signed in with the protocol alone, the guest is offered an account for it (spec 2.8).
    const guest = await openPage(browser, portal.baseUrl, '/login', true);
    await signIn(guest, 'J-2', 'senha-Joao');
    await guest.waitForURL('**/viewprotocol');
    const banner = guest.getByTestId('account-banner');
    expect(await banner.getByRole('link', { name: 'Criar conta' }).getAttribute('href')).toBe('/patient/create?p=J-2');
    await screenshotBothWidths(guest, 'results-guest-protocol');
    await expectAccessible(guest, 'guest protocol');
    await fitsPhoneWidth(guest);
    await guest.context().close();
  });
});

/**
 * The history PDF's first page as poppler draws it, compared with the data the journey ingested
 * (hemoglobin 13,3 and 13,2 inside the reference 12 to 16, then 17,4 above it, the latest): the
 * reference band is drawn, the two values inside it are blue dots within its height, the one high
 * value is the chart's only red dot, above the band and right of the others, and nothing is drawn
 * in the page's right and bottom margins (no column runs off the page).
 */
function expectHistoryDrawn(page: DrawnPage) {
  const near = (c: number[], ref: number[], tolerance = 40) => c.every((v, i) => Math.abs(v - ref[i]!) <= tolerance);
  const BAND = [226, 244, 230];
  const BLUE = [24, 100, 171];
  const RED = [176, 42, 55];
  const band = { top: Infinity, bottom: -1, left: Infinity, right: -1 };
  for (let y = 0; y < page.height; y++)
    for (let x = 0; x < page.width; x++)
      if (near(page.at(x, y), BAND, 2)) {
        band.top = Math.min(band.top, y);
        band.bottom = Math.max(band.bottom, y);
        band.left = Math.min(band.left, x);
        band.right = Math.max(band.right, x);
      }
  expect(band.bottom - band.top, 'the reference band is drawn').toBeGreaterThan(20);
  const inChart = (colour: number[]) => {
    const found: { x: number; y: number }[] = [];
    for (let y = 0; y < band.bottom + 40; y++)
      for (let x = band.left; x <= band.right; x++) if (near(page.at(x, y), colour)) found.push({ x, y });
    return found;
  };
  const red = inChart(RED);
  const blue = inChart(BLUE);
  expect(red.length, 'the high value is a red dot').toBeGreaterThan(10);
  const redX = red.map((p) => p.x);
  const redY = red.map((p) => p.y);
  expect(Math.max(...redX) - Math.min(...redX), 'one red dot, not two').toBeLessThanOrEqual(10);
  expect(Math.max(...redY), 'the red dot lies above the band (17,4 > 16)').toBeLessThan(band.top);
  expect(Math.min(...redX), 'the red dot is the latest, right of the blue points').toBeGreaterThan(
    Math.max(...blue.filter((p) => p.y > band.top && p.y < band.bottom).map((p) => p.x)),
  );
  const blueInBand = blue.filter((p) => p.y > band.top + 2 && p.y < band.bottom - 2);
  expect(blueInBand.length, 'the values inside the range are drawn inside the band').toBeGreaterThan(10);
  const ink = (x: number, y: number) => page.at(x, y).some((v) => v < 200);
  for (let y = 0; y < page.height; y++)
    for (let x = page.width - 8; x < page.width; x++)
      expect(ink(x, y), `ink at ${x},${y} in the right margin`).toBe(false);
  for (let y = page.height - 8; y < page.height; y++)
    for (let x = 0; x < page.width; x++) expect(ink(x, y), `ink at ${x},${y} in the bottom margin`).toBe(false);
}
