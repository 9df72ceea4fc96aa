import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import type { UserType } from '../../db/schema.js';
import { newId, sha256Hex } from '../../lib/ids.js';
import { hashPassword } from '../../lib/passwords.js';

/* Factories for the sign-in tests: each makes exactly the rows a test needs. */

export async function createInstitution(ctx: AppContext, code: string): Promise<string> {
  const id = newId();
  const now = ctx.clock.now().toISOString();
  await ctx.db
    .insertInto('institutions')
    .values({
      id,
      code,
      name: `Clinic ${code}`,
      token: newId(),
      apiKeyHash: sha256Hex(newId()),
      viewType: 2,
      logoPath: null,
      supportEmail: null,
      supportPhoneNumber: null,
      supportWhatsappNumber: null,
      settings: '{}',
      createdAt: now,
      updatedAt: now,
    })
    .execute();
  return id;
}

export interface ProtocolFactoryInput {
  institutionId: string;
  number: string;
  password: string;
  birthDate?: string;
  email?: string | null;
  patientName?: string;
  disabled?: boolean;
  patientUserId?: string | null;
  requestedAt?: string;
}

export async function createProtocol(ctx: AppContext, input: ProtocolFactoryInput): Promise<string> {
  const id = newId();
  const now = ctx.clock.now().toISOString();
  const name = input.patientName ?? 'Maria da Silva';
  await ctx.db
    .insertInto('protocols')
    .values({
      id,
      institutionId: input.institutionId,
      number: input.number,
      passwordHash: await hashPassword(input.password),
      requestedAt: input.requestedAt ?? now,
      sortAt: input.requestedAt ?? now,
      tagId: null,
      patientExternalId: `P-${input.number}`,
      patientName: name,
      patientNameSearch: name.toLowerCase(),
      patientBirthDate: input.birthDate ?? '1980-05-17',
      patientGender: 'FEMALE',
      patientEmail: input.email ?? null,
      patientPhone: null,
      patientCpf: null,
      patientMotherName: null,
      patientUserId: input.patientUserId ?? null,
      disabled: input.disabled ? 1 : 0,
      createdAt: now,
      updatedAt: now,
    })
    .execute();
  return id;
}

export interface AccountFactoryInput {
  type: UserType;
  email: string;
  password: string;
  name?: string;
  active?: boolean;
  disabled?: boolean;
  cpf?: string | null;
  birth?: string | null;
  mfaPhone?: string | null;
  mfaChannel?: 'sms' | 'whatsapp';
  institutionId?: string | null;
}

export async function createAccount(ctx: AppContext, input: AccountFactoryInput): Promise<string> {
  const id = newId();
  const now = ctx.clock.now().toISOString();
  await ctx.db
    .insertInto('users')
    .values({
      id,
      type: input.type,
      email: input.email,
      passwordHash: await hashPassword(input.password),
      name: input.name ?? 'Joana Souza',
      active: input.active === false ? 0 : 1,
      disabled: input.disabled ? 1 : 0,
      birth: input.birth ?? null,
      gender: null,
      cpf: input.cpf ?? null,
      phoneMobile: null,
      phoneLandline: null,
      mfaPhone: input.mfaPhone ?? null,
      mfaChannel: input.mfaPhone ? (input.mfaChannel ?? 'whatsapp') : null,
      mfaEnabled: input.mfaPhone ? 1 : 0,
      frequencyReceiveEmail: 'DEFAULT',
      language: 'pt-br',
      licenseNumber: null,
      licenseState: null,
      favoriteTagId: null,
      institutionId: input.institutionId ?? null,
      createdAt: now,
      updatedAt: now,
    })
    .execute();
  return id;
}

export interface LoginPayload {
  userName: string;
  password: string;
  dateOfBirth?: string;
  tokenMFA?: string;
  appKey?: string;
  customLogin?: string;
}

/** POST /api/v2/auth/login from a given client address. */
export function postLogin(app: FastifyInstance, payload: LoginPayload, remoteAddress = '127.0.0.1') {
  return app.inject({
    method: 'POST',
    url: '/api/v2/auth/login',
    payload: { dateOfBirth: '', tokenMFA: '', appKey: 'login', ...payload },
    remoteAddress,
  });
}

/**
 * Closes the portals, then drops the database. pg-pool's `end()` resolves before its sockets
 * have closed, and the forced DROP DATABASE would then hit them with a FATAL that the pool (which
 * has no error listener) raises as an uncaught exception; a short pause lets the sockets finish.
 */
interface Closable {
  close(): Promise<void>;
}

export async function shutDown(owner: Closable & { destroy(): Promise<void> }, ...others: Closable[]): Promise<void> {
  for (const portal of others) await portal.close();
  await owner.close();
  await new Promise((resolve) => setTimeout(resolve, 200));
  await owner.destroy();
}
