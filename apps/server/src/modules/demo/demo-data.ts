import path from 'node:path';
import { makeDemoSigner, type DemoSigner } from './demo-signature.js';
import { zInstitutionCreate } from '@portal/shared/schemas/institution';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../app.js';
import type { AppContext } from '../../context.js';
import type { UserType } from '../../db/schema.js';
import { newId, newSecretToken, sha256Hex } from '../../lib/ids.js';
import { hashPassword } from '../../lib/passwords.js';
import { insertVouch } from '../accounts/vouches.repository.js';
import {
  createInstitution,
  findInstitutionByCode,
  rotateInstitutionApiKeyByCode,
} from '../institutions/institution.service.js';
import type { DemoProtocol } from './demo-builder.js';
import { demoProtocols } from './demo-catalog.js';
import { DEMO_INSTITUTION, DEMO_LOGINS, DEMO_PATIENTS, DEMO_PHYSICIAN, DEMO_PROTOCOL_NOTICE } from './demo-clinic.js';
import { DEMO_LOGO_DATA_URI } from './demo-files.js';
import {
  addTagMember,
  countShares,
  ensureUser,
  findDemoMarker,
  findTagId,
  insertShare,
  linkPatientProtocols,
  writeDemoMarker,
} from './demo.repository.js';

export { DEMO_LOGINS } from './demo-clinic.js';

/**
 * DEMO_DATA=true: the demo clinic, its accounts and its results. Loaded once; a restart finds the
 * marker and adds nothing. A failure is logged and the portal still starts (empty or partial demo).
 */
export async function loadDemoData(ctx: AppContext): Promise<void> {
  try {
    await seedDemoClinic(ctx);
  } catch (error) {
    ctx.log.error({ err: error }, 'demo data could not be loaded');
  }
}

/**
 * Loads the demo clinic; safe to run again (every step is idempotent), which is how an
 * interrupted load completes on the next start.
 */
export async function seedDemoClinic(ctx: AppContext): Promise<void> {
  if (await findDemoMarker(ctx.db)) {
    ctx.log.info('demo data already loaded');
    return;
  }
  const { institutionId, apiKey } = await ensureInstitution(ctx);
  const users = await ensureAccounts(ctx, institutionId);
  // Results arrive the way an institution's system sends them: through the ingest API.
  // The radiologist signs with a certificate of the demo root, which the demo trusts (docs/operations.md).
  const signer = await makeDemoSigner(
    { name: 'Fernanda Lopes', cpf: '39053344705', crm: '98765', uf: 'SP', organization: DEMO_INSTITUTION.name },
    ctx.clock.now(),
    path.join(ctx.config.dataDir, 'demo-trust-roots'),
  );
  await ingestAll(ctx, apiKey, demoProtocols(ctx.clock.now()), signer);

  const now = ctx.clock.now().toISOString();
  await linkPatientProtocols(ctx.db, institutionId, DEMO_PATIENTS.maria.externalId, users.PATIENT);
  const tagId = await findTagId(ctx.db, institutionId, DEMO_INSTITUTION.tag);
  if (!tagId) throw new Error('the demo tag was not created by the ingest');
  await addTagMember(ctx.db, tagId, users.EXTERNAL, now);
  // The demo clinic vouches for its physician: his license opens its protocols.
  await insertVouch(ctx.db, { userId: users.PHYSICIAN, institutionId, createdBy: null, createdAt: now });
  await ensureShares(ctx, users.PATIENT);

  await writeDemoMarker(ctx.db, JSON.stringify({ version: 1, loadedAt: now }));
  ctx.log.info(
    { institution: DEMO_INSTITUTION.code, accounts: Object.values(DEMO_LOGINS).map((l) => Object.values(l)[0]) },
    'demo data loaded',
  );
}

/**
 * Shares the patient made earlier: one open, one expired, one revoked, so "My account" shows each
 * state. Their links were never mailed, so nobody holds a token that opens them.
 */
async function ensureShares(ctx: AppContext, patientUserId: string): Promise<void> {
  if ((await countShares(ctx.db, patientUserId)) > 0) return;
  const now = ctx.clock.now().getTime();
  const day = 86_400_000;
  const shares = [
    { email: 'segunda.opiniao@demo.example', days: 7, ago: 2, protocols: ['70000105'], message: 'Segunda opinião.' },
    { email: 'familia@demo.example', days: 3, ago: 40, protocols: ['70000103'], message: null },
    { email: 'antigo.medico@demo.example', days: 15, ago: 100, protocols: ['70000101'], message: null, revoked: 2 },
  ];
  for (const s of shares) {
    const createdAt = now - s.ago * day;
    await insertShare(
      ctx.db,
      {
        id: newId(),
        patientUserId,
        email: s.email,
        tokenHash: sha256Hex(newSecretToken()),
        message: s.message,
        daysExpiration: s.days,
        language: 'pt-br',
        institutionId: null,
        active: s.revoked ? 0 : 1,
        createdAt: new Date(createdAt).toISOString(),
        expiresAt: new Date(createdAt + s.days * day).toISOString(),
        canceledAt: s.revoked ? new Date(createdAt + s.revoked * day).toISOString() : null,
      },
      s.protocols,
    );
  }
}

async function ensureInstitution(ctx: AppContext): Promise<{ institutionId: string; apiKey: string }> {
  if (await findInstitutionByCode(ctx, DEMO_INSTITUTION.code)) {
    // The key is shown only once, so an earlier, interrupted load left none we could reuse.
    const { institution, apiKey } = await rotateInstitutionApiKeyByCode(ctx, DEMO_INSTITUTION.code);
    return { institutionId: institution.id, apiKey };
  }
  const { institution, apiKey } = await createInstitution(
    ctx,
    zInstitutionCreate.parse({
      code: DEMO_INSTITUTION.code,
      name: DEMO_INSTITUTION.name,
      viewType: 1,
      logoPath: DEMO_LOGO_DATA_URI,
      supportEmail: DEMO_INSTITUTION.supportEmail,
      supportPhoneNumber: DEMO_INSTITUTION.supportPhoneNumber,
      supportWhatsAppNumber: DEMO_INSTITUTION.supportWhatsAppNumber,
      settings: {
        shareEnabled: true,
        hasExamStatusVisualizer: true,
        emailFrequencyDefault: 'EXAM',
        protocolNotice: DEMO_PROTOCOL_NOTICE,
      },
    }),
  );
  return { institutionId: institution.id, apiKey };
}

async function ensureAccounts(ctx: AppContext, institutionId: string): Promise<Record<UserType, string>> {
  const now = ctx.clock.now().toISOString();
  // Every demo account has the same password: one hash serves them all.
  const passwordHash = await hashPassword(DEMO_LOGINS.patient.password);
  const base = {
    passwordHash,
    active: 1,
    disabled: 0,
    mfaEnabled: 0,
    frequencyReceiveEmail: 'DEFAULT',
    language: 'pt-br',
    createdAt: now,
    updatedAt: now,
  };
  const maria = DEMO_PATIENTS.maria;
  const accounts: Array<{ type: UserType; email: string; name: string } & Record<string, string | number | null>> = [
    {
      type: 'PATIENT',
      email: DEMO_LOGINS.patient.userName,
      name: maria.name,
      birth: maria.birthDate,
      gender: maria.gender,
      cpf: maria.cpf,
      phoneMobile: maria.phone,
      // A daily digest: a first start delivers 15 released exams at once, one mail each otherwise.
      frequencyReceiveEmail: 'DAY',
    },
    {
      type: 'PHYSICIAN',
      email: DEMO_LOGINS.physician.userName,
      name: DEMO_PHYSICIAN.name,
      licenseNumber: DEMO_PHYSICIAN.crm,
      licenseState: DEMO_PHYSICIAN.uf,
      gender: 'MALE',
      institutionId,
    },
    { type: 'EXTERNAL', email: DEMO_LOGINS.external.userName, name: 'Equipe Parceiro Saúde', institutionId },
    {
      type: 'ADMIN',
      email: DEMO_LOGINS.admin.userName,
      name: 'Administração Demonstração',
      frequencyReceiveEmail: 'DISABLED',
    },
    {
      type: 'COMPANY',
      email: DEMO_LOGINS.company.userName,
      name: 'Equipe Clínica Demonstração',
      frequencyReceiveEmail: 'DISABLED',
      institutionId,
    },
  ];
  const ids = {} as Record<UserType, string>;
  for (const account of accounts) {
    ids[account.type] = await ensureUser(ctx.db, { id: newId(), ...base, ...account });
  }
  return ids;
}

async function ingestAll(
  ctx: AppContext,
  apiKey: string,
  protocols: DemoProtocol[],
  signer: DemoSigner,
): Promise<void> {
  // A private instance of the API with a quiet log: a hundred request lines would bury the rest.
  const quiet = { ...ctx, log: ctx.log.child({ demo: true }, { level: 'warn' }) };
  const app = await buildApp(quiet, { ready: () => true });
  try {
    await app.ready();
    for (const protocol of protocols) {
      const base = `/api/v2/delivery/ingest/protocols/${protocol.number}`;
      await call(app, 'PUT', base, apiKey, 'application/json', JSON.stringify(protocol.body));
      for (const file of protocol.files) {
        const url = `${base}/exams/${file.examKey}/resources/${file.identifier}`;
        const bytes = await file.make();
        await call(app, 'PUT', `${url}?type=${file.type}`, apiKey, file.contentType, bytes);
        if (file.signed) {
          const signed = await file.signed(bytes, signer);
          await call(app, 'PUT', `${url}/signed`, apiKey, signed.contentType, signed.bytes);
        }
      }
    }
  } finally {
    await app.close();
  }
}

async function call(
  app: FastifyInstance,
  method: 'PUT',
  url: string,
  apiKey: string,
  contentType: string,
  payload: string | Uint8Array,
): Promise<void> {
  const response = await app.inject({
    method,
    url,
    headers: { 'x-api-key': apiKey, 'content-type': contentType },
    payload: typeof payload === 'string' ? payload : Buffer.from(payload),
  });
  if (response.statusCode !== 200 && response.statusCode !== 201) {
    throw new Error(`demo ingest ${method} ${url.split('?')[0]} answered ${response.statusCode}: ${response.body}`);
  }
}
