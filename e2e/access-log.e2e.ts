import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminApi } from './support/admin-api';
import { expectAccessible, expectFitsNarrowPhone, launchBrowser, screenshotBothWidths } from './support/browser';
import { ROOT } from './support/build';
import { linkIn, type Mailbox, startMailbox } from './support/mailbox';
import { openPage, signIn } from './support/pages';
import { type RunningPortal, startPortal } from './support/portal';
import { call, daysAgo, ingest, signInApi } from './support/results-data';

/**
 * "Who saw my results": a patient whose protocol was opened by herself, her physician, a partner
 * institution's user, the person she shared it with, someone with the protocol's password and the
 * portal's support reads each access in plain words, on a desktop table and on phone cards, filters
 * it by protocol, downloads it as CSV and turns on the mail alert.
 */

const webDist = process.env.WEB_DIST ?? `${ROOT}/apps/web/dist`;
let mailbox: Mailbox;
let portal: RunningPortal;
let browser: Browser;
const ana = { email: 'ana.costa@example.com', password: 'Aurora-2026-conta' };
const physician = { email: 'dr.paulo@example.com', password: 'Medico-2026-senha' };
const partner = { email: 'parceira@example.com', password: 'Parceira-2026-senha' };
const requester = { identifier: 'MED-1', name: 'Paulo Lima', crm: '123456', uf: 'SP' };
let protocolA = '';

beforeAll(async () => {
  mailbox = await startMailbox();
  portal = await startPortal({ SMTP_URL: mailbox.url, WEB_DIST: webDist });
  browser = await launchBrowser();
  const base = portal.baseUrl;
  const admin = await AdminApi.signedIn(base, portal.admin);
  const asAdmin = admin.headers();
  const institution = await admin.createInstitution({
    code: 'AURORA',
    name: 'Clínica Aurora',
    viewType: 2,
    settings: { shareEnabled: true },
  });
  const patient = {
    patientId: 'PAC-9',
    name: 'Ana Costa',
    birthDate: '1990-03-15',
    gender: 'FEMALE',
    email: ana.email,
  };
  protocolA = await ingest(base, institution.apiKey, 'A-100', {
    password: 'senha-A100',
    requestedAt: daysAgo(2),
    tag: 'Convênio Sul',
    patient,
    exams: [
      { key: 'HEMO', description: 'Hemograma completo', requester, performedAt: daysAgo(2), report: true },
      { key: 'RX', description: 'Raio-X de tórax', requester, performedAt: daysAgo(2), report: true, image: true },
    ],
  });
  await ingest(base, institution.apiKey, 'A-200', {
    password: 'senha-A200',
    requestedAt: daysAgo(20),
    patient,
    exams: [{ key: 'TSH', description: 'TSH ultrassensível', performedAt: daysAgo(20), report: true }],
  });

  // Ana's account, activated from the mail, with both protocols linked.
  await call(base, 'POST', '/api/v2/auth/user/create', {
    name: patient.name,
    login: ana.email,
    confirmEmailAddress: ana.email,
    password: ana.password,
    confirmPassword: ana.password,
    dateOfBirth: '15/03/1990',
    language: 'pt-br',
    serviceTerms: true,
  });
  // Result notices go to the same address; the activation mail is the one with the link.
  let activationMail: (typeof mailbox.mails)[number] | undefined;
  for (let tries = 0; tries < 200 && !activationMail; tries++) {
    activationMail = mailbox.mails.find((m) => (m.text ?? '').includes('/api/v2/auth/user/registerValidate'));
    if (!activationMail) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const activation = await fetch(linkIn(activationMail!, base, '/api/v2/auth/user/registerValidate'), {
    redirect: 'manual',
  });
  expect(activation.headers.get('location')).toContain('activeSuccess=true');
  const owner = await signInApi(base, ana.email, ana.password);
  const asAna = { authorization: `Bearer ${owner.token}` };
  for (const n of ['A-100', 'A-200'])
    await call(
      base,
      'POST',
      '/api/v2/auth/user/bindProtocol',
      { protocol: n, password: `senha-${n.replace('-', '')}`, patientUserId: owner.id },
      asAna,
    );

  // Her physician, registered from the institution's invitation.
  await call(
    base,
    'POST',
    '/api/administrationbe/physician/invite',
    {
      email: physician.email,
      name: requester.name,
      crm: requester.crm,
      uf: requester.uf,
      institutionId: institution.id,
      language: 'pt-br',
    },
    asAdmin,
  );
  const invite = new URL(linkIn(await mailbox.waitFor(physician.email), base, '/physician/create'));
  await call(base, 'POST', '/api/v2/auth/physician/create', {
    token: invite.searchParams.get('token'),
    fullName: requester.name,
    password: physician.password,
    confirmPassword: physician.password,
    language: 'pt-br',
  });
  // A partner institution's user of the protocol's tag, with the password of the first-password link.
  const tags = await call<Array<{ id: string; tag: string }>>(
    base,
    'GET',
    `/api/administrationbe/institution/${institution.id}/tags`,
    undefined,
    asAdmin,
  );
  const tag = tags.find((t) => t.tag === 'Convênio Sul')!;
  await call(
    base,
    'POST',
    `/api/administrationbe/institution/${institution.id}/tags/${tag.id}/users`,
    { email: partner.email, name: 'Clínica Parceira Sul', language: 'pt-br' },
    asAdmin,
  );
  const reset = new URL(linkIn(await mailbox.waitFor(partner.email), base, '/password/reset'));
  await call(base, 'POST', '/api/auth/password/resetPassword', {
    token: reset.searchParams.get('token'),
    password: partner.password,
    confirmPassword: partner.password,
    language: 'pt-br',
  });

  // The accesses, each through the door its author uses.
  const detail = `/api/delivery/persistence/dashboard/protocol/byId?id=${protocolA}`;
  const item = await call<{ exams: Array<{ description: string; identifierReport: string; identifierImage: string }> }>(
    base,
    'GET',
    detail,
    undefined,
    asAna,
  );
  const report = item.exams.find((e) => e.description === 'Hemograma completo')!.identifierReport;
  const image = item.exams.find((e) => e.description === 'Raio-X de tórax')!.identifierImage;
  const fetchAs = async (token: string, path: string) => {
    const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status, path).toBe(200);
    await res.arrayBuffer();
  };
  const doctor = await signInApi(base, physician.email, physician.password);
  await fetchAs(doctor.token, `/api/v2/delivery/resource/report?resourceId=${report}`);
  const partnerSession = await signInApi(base, partner.email, partner.password);
  await fetchAs(partnerSession.token, `/api/v2/delivery/resource/image?resourceId=${image}`);
  await call(
    base,
    'POST',
    '/api/auth/protocol/share',
    { emails: ['irma.costa@example.com'], protocols: [protocolA], message: '', period: 3, language: 'pt-br' },
    asAna,
  );
  const shareToken = new URL(linkIn(await mailbox.waitFor('irma.costa@example.com'), base, '/landing/')).pathname.split(
    '/',
  )[2]!;
  await fetchAs(shareToken, '/api/v2/auth/validate');
  const guest = await call<{ accessToken: string }>(base, 'POST', '/api/v2/auth/login', {
    userName: 'A-100',
    password: 'senha-A100',
    appKey: 'login',
  });
  await fetchAs(guest.accessToken, detail);
  await fetchAs(admin.accessToken, `/api/administrationbe/protocols/${protocolA}`);
});

afterAll(async () => {
  await browser?.close();
  await portal?.stop();
  await mailbox?.close();
});

async function signedInAna(): Promise<Page> {
  const page = await openPage(browser, portal.baseUrl, '/login', true);
  await signIn(page, ana.email, ana.password);
  await page.waitForURL('**/dashboard/patient/protocols');
  return page;
}

const rows = (page: Page) => page.getByTestId('access-row');

describe('who saw my results', () => {
  it('lists every access in plain words, from the account menu, on a table and on phone cards', async () => {
    const page = await signedInAna();
    await page.getByRole('button', { name: /^Minha conta/ }).click();
    await page.getByRole('menuitem', { name: 'Quem viu meus resultados' }).click();
    await page.waitForURL('**/patient/accesses');
    await page.getByRole('heading', { name: 'Quem viu meus resultados' }).waitFor();
    await page.getByText('7 acessos').waitFor();
    const table = page.getByRole('table');
    for (const [who, what] of [
      ['Suporte do portal', 'Consultou o protocolo na administração'],
      ['Alguém com a senha do protocolo', 'Viu o protocolo'],
      ['Alguém com a senha do protocolo', 'Entrou com a senha do protocolo'],
      ['Pessoa com quem você compartilhou (irma.costa@example.com)', 'Abriu pelo compartilhamento'],
      ['Usuário da instituição parceira do grupo Convênio Sul', 'Abriu uma imagem'],
      ['Dr(a). Paulo Lima, CRM 123456/SP', 'Abriu um laudo'],
      ['Você', 'Viu o protocolo'],
    ] as const) {
      await table.getByRole('row').filter({ hasText: who }).filter({ hasText: what }).first().waitFor();
    }
    expect(await rows(page).count()).toBe(7);
    await expect(table.getByRole('row').filter({ hasText: 'Abriu um laudo' }).textContent()).resolves.toContain(
      'Hemograma completo',
    );
    await expectAccessible(page, '/patient/accesses');
    await expectFitsNarrowPhone(page, '/patient/accesses');
    const shots = await screenshotBothWidths(page, 'access-log');
    for (const shot of shots) expect(fs.statSync(shot).size).toBeGreaterThan(10_000);

    // On a phone each access is a card, with who and what.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('listitem').filter({ hasText: 'Dr(a). Paulo Lima, CRM 123456/SP' }).waitFor();
    expect(await page.getByRole('table').count()).toBe(0);
    await expectAccessible(page, '/patient/accesses on a phone');
    await page.setViewportSize({ width: 1280, height: 900 });

    // The same words in English.
    await page.getByRole('button', { name: /idioma/ }).click();
    await page.getByRole('menuitem', { name: /English/ }).click();
    await page.getByRole('heading', { name: 'Who saw my results' }).waitFor();
    await page.getByText("Someone with the protocol's password").first().waitFor();
    await page.getByText('Dr. Paulo Lima, CRM 123456/SP').waitFor();
    await screenshotBothWidths(page, 'access-log-en');
    await page.context().close();
  });

  it('opens from a protocol filtered to it, downloads the CSV and turns the mail alert on', async () => {
    const page = await signedInAna();
    await page.getByRole('link', { name: 'Abrir o protocolo A-200' }).click();
    await page.getByRole('link', { name: 'Quem viu este protocolo' }).click();
    await page.waitForURL('**/patient/accesses?protocol=*');
    await page.getByText('1 acesso', { exact: true }).waitFor();
    expect(await rows(page).count()).toBe(1);
    await page.getByRole('row').filter({ hasText: 'Você' }).waitFor();

    // Every protocol again, then the CSV of them.
    await page.getByRole('textbox', { name: 'Protocolo' }).click();
    await page.getByRole('option', { name: 'Todos os protocolos' }).click();
    await page.getByText(/^\d+ acessos$/).waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Baixar planilha (CSV)' }).click(),
    ]);
    const csv = fs.readFileSync((await download.path())!, 'utf8');
    const lines = csv
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe(
      '"Data e hora (horário de Brasília)","Protocolo","Instituição","O que foi feito","Quem","Exames"',
    );
    expect(csv).toContain('"Abriu um laudo","Dr(a). Paulo Lima, CRM 123456/SP","Hemograma completo"');
    expect(csv).toContain('"Usuário da instituição parceira do grupo Convênio Sul"');

    const alerts = page.getByRole('switch', { name: /Avisar por e-mail/ });
    expect(await alerts.isChecked()).toBe(false);
    await alerts.click({ force: true });
    await page.getByText('Você receberá um e-mail quando outra pessoa abrir seus resultados.').waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Quem viu meus resultados' }).waitFor();
    await expect
      .poll(() => page.getByRole('switch', { name: /Avisar por e-mail/ }).isChecked(), { timeout: 5000 })
      .toBe(true);
    await expectAccessible(page, '/patient/accesses filtered');
    await screenshotBothWidths(page, 'access-log-filtered');
    await page.context().close();
  });
});
