import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminApi } from './support/admin-api';
import { expectAccessible, expectFitsNarrowPhone, launchBrowser, screenshotBothWidths } from './support/browser';
import { ROOT } from './support/build';
import { type Mailbox, startMailbox } from './support/mailbox';
import { openPage, signIn } from './support/pages';
import { type RunningPortal, startPortal } from './support/portal';
import { daysAgo, ingest, registerPhysician, signInApi } from './support/results-data';

/**
 * Release holds for sensitive results (issue 22): the clinic holds HIV serology until the
 * requesting physician releases it. The patient (signed in with the protocol's password) reads
 * "held by the institution" with the clinic's text and no file; the physician sees the result,
 * releases it through a confirmation, and the patient then opens it.
 */

const webDist = process.env.WEB_DIST ?? `${ROOT}/apps/web/dist`;
let mailbox: Mailbox;
let portal: RunningPortal;
let browser: Browser;
const physician = { email: 'dra.lia@example.com', password: 'Medica-2026-senha' };
const requester = { identifier: 'MED-7', name: 'Lia Prado', crm: '765432', uf: 'RJ' };
const clinicText = 'Disponível após a sua consulta com a Dra. Lia.';

beforeAll(async () => {
  mailbox = await startMailbox();
  portal = await startPortal({ SMTP_URL: mailbox.url, WEB_DIST: webDist });
  browser = await launchBrowser();
  const base = portal.baseUrl;
  const admin = await AdminApi.signedIn(base, portal.admin);
  const asAdmin = admin.headers();
  const institution = await admin.createInstitution({ code: 'SERENA', name: 'Clínica Serena', viewType: 2 });
  await admin.setHoldRules(institution.id, [{ examTypeCode: 'HIV', rule: 'PHYSICIAN', message: clinicText }]);
  await ingest(base, institution.apiKey, 'H-100', {
    password: 'senha-H100',
    requestedAt: daysAgo(1),
    patient: { patientId: 'PAC-H', name: 'Helena Souza', birthDate: '1988-05-10', gender: 'FEMALE' },
    exams: [
      { key: 'HIV', type: 'HIV', description: 'Sorologia HIV 1 e 2', requester, performedAt: daysAgo(1), report: true },
      { key: 'HEMO', description: 'Hemograma completo', requester, performedAt: daysAgo(1), report: true },
    ],
  });
  await registerPhysician(base, mailbox, asAdmin, institution.id, physician, requester);
  await signInApi(base, physician.email, physician.password); // accepts the terms once
});

afterAll(async () => {
  await browser?.close();
  await portal?.stop();
  await mailbox?.close();
});

describe('release holds for sensitive results', () => {
  it('the patient reads the held status in words, the physician releases it, the patient opens it', async () => {
    const patient = await openPage(browser, portal.baseUrl, '/login', true);
    await signIn(patient, 'H-100', 'senha-H100');
    await patient.getByText('Retido pela instituição').first().waitFor();
    await patient.getByText(clinicText).first().waitFor();
    await screenshotBothWidths(patient, 'holds-patient-list');
    await expectAccessible(patient, 'held result, patient list');
    const open = patient.getByRole('link', { name: 'Abrir o protocolo H-100' });
    if ((await open.count()) > 0) await open.first().click();
    await patient.getByRole('heading', { level: 1, name: 'Protocolo H-100' }).waitFor();
    await patient.getByTestId('hold-notice').first().waitFor();
    // The held exam offers no file; the other one does.
    expect(await patient.getByRole('button', { name: /Sorologia HIV/ }).count()).toBe(0);
    await patient
      .getByRole('button', { name: /Hemograma completo/ })
      .first()
      .waitFor();
    await screenshotBothWidths(patient, 'holds-patient-detail');
    await expectAccessible(patient, 'held result, patient detail');
    await expectFitsNarrowPhone(patient, 'held result, patient detail');

    const doctor = await openPage(browser, portal.baseUrl, '/login', true);
    await signIn(doctor, physician.email, physician.password);
    await doctor.waitForURL('**/dashboard/physician/**');
    await doctor.getByRole('link', { name: /H-100/ }).first().click();
    await doctor.getByRole('heading', { level: 1, name: 'Protocolo H-100' }).waitFor();
    await doctor.getByText('Retido para o paciente').first().waitFor();
    await doctor
      .getByRole('button', { name: /Abrir o laudo de Sorologia HIV|Laudo/ })
      .first()
      .waitFor();
    await doctor.getByTestId('release-hold').click();
    const dialog = doctor.getByRole('dialog', { name: 'Liberar o resultado para o paciente?' });
    await dialog.waitFor();
    await screenshotBothWidths(doctor, 'holds-physician-confirm');
    await expectAccessible(doctor, 'release confirmation');
    await dialog.getByTestId('confirm-release').click();
    await dialog.waitFor({ state: 'hidden' });
    await doctor.getByText('Retido para o paciente').waitFor({ state: 'detached' });
    await screenshotBothWidths(doctor, 'holds-physician-released');

    await patient.reload();
    await patient.getByRole('heading', { level: 1, name: 'Protocolo H-100' }).waitFor();
    await patient
      .getByRole('button', { name: /Sorologia HIV/ })
      .first()
      .waitFor();
    expect(await patient.getByTestId('hold-notice').count()).toBe(0);
    await screenshotBothWidths(patient, 'holds-patient-released');
    await patient.context().close();
    await doctor.context().close();
  });
});
