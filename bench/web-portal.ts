// The built portal the web benchmarks measure, started as the browser journeys start it
// (e2e/support: the server on a free 127.0.0.1 port with a fresh DATA_DIR, a real SMTP sink whose
// mails activate the accounts), and a patient and a physician with a list of protocols each.
// Builds nothing: expects apps/web/dist and apps/server/dist.
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'puppeteer-core';
import { CHROMIUM_ARGS } from '../e2e/support/browser.js';
import { ROOT, SERVER_ENTRY } from '../e2e/support/build.js';
import { linkIn, startMailbox } from '../e2e/support/mailbox.js';
import { startPortal as startE2ePortal } from '../e2e/support/portal.js';
import { call as callAt, ingest, signInApi } from '../e2e/support/results-data.js';

export { CHROMIUM_ARGS, ROOT };
export const WEB_DIST = path.resolve(process.env.WEB_DIST ?? path.join(ROOT, 'apps/web/dist'));
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Exits with a message when the server or the web app is not built. */
export function requireBuild(): void {
  for (const [what, file] of [
    ['server', SERVER_ENTRY],
    ['web app', path.join(WEB_DIST, 'index.html')],
  ] as const) {
    if (!fs.existsSync(file)) {
      console.error(
        `The ${what} is not built (${file} is missing). Build it first: ` +
          '"npx tsc -b packages/shared apps/server" and "cd apps/web && npx vite build".',
      );
      process.exit(1);
    }
  }
}

export type Call = <T = unknown>(
  method: string,
  urlPath: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<T>;

export interface BenchPortal {
  base: string;
  admin: { email: string; password: string };
  call: Call;
  /** The newest mailed link to `to` that contains `pathPart`. */
  mailLink: (to: string, pathPart: string) => Promise<string>;
  shutdown: () => Promise<void>;
}

/**
 * Starts the portal and waits until it is ready; `root` runs another built checkout of the
 * portal instead (its server and its web app), to measure it beside this one.
 */
export async function startPortal(root = ROOT): Promise<BenchPortal> {
  const mailbox = await startMailbox();
  const portal = await startE2ePortal(
    { SMTP_URL: mailbox.url, WEB_DIST: root === ROOT ? WEB_DIST : path.join(root, 'apps/web/dist') },
    root,
  );
  const base = portal.baseUrl;
  return {
    base,
    admin: portal.admin,
    call: (method, urlPath, body, headers) => callAt(base, method, urlPath, body, headers),
    mailLink: async (to, pathPart) => linkIn(await mailbox.waitFor(to, { timeoutMs: 30_000 }), base, pathPart),
    shutdown: async () => {
      await portal.stop();
      await mailbox.close();
    },
  };
}

/**
 * Ingests `protocols` protocols for one patient (over the last 6 months, linked to her account)
 * and as many for one physician (last 7 days, as requester), and activates both accounts.
 */
export async function seedDashboards(
  { base, call, admin, mailLink }: Pick<BenchPortal, 'base' | 'call' | 'admin' | 'mailLink'>,
  protocols: number,
) {
  const adminToken = (
    await call<{ accessToken: string }>('POST', '/api/v2/auth/login', {
      userName: admin.email,
      password: admin.password,
      appKey: 'admin',
    })
  ).accessToken;
  const institution = await call<{ id: string; apiKey: string }>(
    'POST',
    '/api/administrationbe/institution',
    { code: 'BENCH', name: 'Clínica Bench', viewType: 2 },
    { authorization: `Bearer ${adminToken}` },
  );
  const patientUser = { email: 'paciente@bench.example.com', password: 'Bench-2026-paciente' };
  const physicianUser = { email: 'medico@bench.example.com', password: 'Bench-2026-medico' };
  const doctor = { identifier: 'MED-1', name: 'Dra. Bench', crm: '77777', uf: 'SP' };
  const daysAgo = (days: number) => new Date(Date.now() - days * 24 * 3600_000).toISOString();
  const twoExams = (
    number: string,
    requestedAt: string,
    patient: Parameters<typeof ingest>[3]['patient'],
    password: string,
  ) =>
    ingest(base, institution.apiKey, number, {
      password,
      requestedAt,
      patient,
      exams: [
        {
          key: `${number}-1`,
          description: 'Hemograma completo',
          type: 'HEMOGRAMA',
          requester: doctor,
          performedAt: requestedAt,
        },
        {
          key: `${number}-2`,
          description: 'Glicemia de jejum',
          type: 'GLI',
          requester: doctor,
          performedAt: requestedAt,
        },
      ],
    });
  const maria = {
    patientId: 'PAC-BENCH',
    name: 'Maria Bench',
    birthDate: '1984-07-09',
    gender: 'FEMALE',
    email: patientUser.email,
  };
  const started = Date.now();
  const patientNumbers: string[] = [];
  // Patient: spread over the last 6 months (the default range of the patient dashboard).
  for (let i = 0; i < protocols; i++) {
    const number = `PB-${String(i).padStart(4, '0')}`;
    patientNumbers.push(number);
    await twoExams(number, daysAgo((i * 175) / protocols + 0.01), maria, `senha-${number}`);
  }
  // Physician: spread over the last 7 days, patients of their own (the default physician range).
  for (let i = 0; i < protocols; i++) {
    const number = `MB-${String(i).padStart(4, '0')}`;
    await twoExams(
      number,
      daysAgo((i * 6.5) / protocols + 0.01),
      { patientId: `PM-${i % 50}`, name: `Paciente ${i % 50}`, birthDate: '1970-01-20', gender: 'MALE' },
      `senha-${number}`,
    );
  }
  const ingestSeconds = (Date.now() - started) / 1000;

  // The patient's account, activated from its mail, with every protocol linked; pending terms are
  // accepted at sign-in (they would open their acceptance modal over the list).
  await call('POST', '/api/v2/auth/user/create', {
    name: maria.name,
    login: patientUser.email,
    confirmEmailAddress: patientUser.email,
    password: patientUser.password,
    confirmPassword: patientUser.password,
    dateOfBirth: '09/07/1984',
    language: 'pt-br',
    serviceTerms: true,
  });
  await fetch(await mailLink(patientUser.email, '/api/v2/auth/user/registerValidate'), { redirect: 'manual' });
  const patientSession = await signInApi(base, patientUser.email, patientUser.password);
  for (const number of patientNumbers) {
    await call(
      'POST',
      '/api/v2/auth/user/bindProtocol',
      { protocol: number, password: `senha-${number}`, patientUserId: patientSession.id },
      { authorization: `Bearer ${patientSession.token}` },
    );
  }
  await call(
    'POST',
    '/api/administrationbe/physician/invite',
    {
      email: physicianUser.email,
      name: doctor.name,
      crm: doctor.crm,
      uf: doctor.uf,
      institutionId: institution.id,
      language: 'pt-br',
    },
    { authorization: `Bearer ${adminToken}` },
  );
  const invite = new URL(await mailLink(physicianUser.email, '/physician/create'));
  await call('POST', '/api/v2/auth/physician/create', {
    token: invite.searchParams.get('token'),
    fullName: doctor.name,
    password: physicianUser.password,
    confirmPassword: physicianUser.password,
    language: 'pt-br',
  });
  await signInApi(base, physicianUser.email, physicianUser.password);
  return { patientUser, physicianUser, ingestSeconds };
}

/**
 * Signs `user` in through the app's own sign-in form at `base`/login (once the drawn screen has
 * been taken over and the form runs), and waits until the app has landed on `landing`.
 */
export async function signInThroughForm(
  page: Page,
  base: string,
  user: { email: string; password: string },
  landing: string,
): Promise<void> {
  await page.goto(`${base}/login`);
  await page.waitForFunction(
    () =>
      !document.querySelector('.drawn-screen') &&
      document.querySelector('[data-testid="login-submit"]:not([disabled])'),
  );
  await page.locator('input[name="userName"]').fill(user.email);
  await page.locator('input[type="password"]').fill(user.password);
  await Promise.all([page.waitForNavigation(), page.locator('[data-testid="login-submit"]').click()]);
  await page.waitForFunction((p) => location.pathname === p, {}, landing);
  // The person sees the landing screen loaded before the page is measured again (a return to it).
  await page.waitForNetworkIdle({ idleTime: 500 });
}
