import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { bearer, startTestPortal, type TestPortal, type TestPortalOptions } from './helpers.js';

/**
 * What an integrator does on a fresh portal: the first admin from the environment, an
 * institution through the administration API, protocols through the ingest API. The
 * conformance tests build on it so they exercise the public paths only.
 */
export const ADMIN = { email: 'root@portal.test', password: 'Admin-pass-2026' };

export interface ContractWorld {
  portal: TestPortal;
  adminToken: string;
  institution: { id: string; code: string; token: string; apiKey: string };
}

export async function startContractWorld(options: TestPortalOptions = {}): Promise<ContractWorld> {
  const portal = await startTestPortal({
    ...options,
    env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, ...options.env },
  });
  const login = await portal.app.inject({
    method: 'POST',
    url: '/api/v2/auth/login',
    payload: { userName: ADMIN.email, password: ADMIN.password, appKey: 'admin' },
  });
  expect(login.statusCode).toBe(200);
  const adminToken = login.json<{ data: { accessToken: string } }>().data.accessToken;
  const created = await portal.app.inject({
    method: 'POST',
    url: '/api/administrationbe/institution',
    headers: bearer(adminToken),
    payload: { code: 'CLINICA', name: 'Clinica Contrato', viewType: 2 },
  });
  expect(created.statusCode).toBe(201);
  const institution = created.json<{ data: ContractWorld['institution'] }>().data;
  return { portal, adminToken, institution };
}

export interface IngestOptions {
  password?: string;
  birthDate?: string;
  email?: string;
  cpf?: string;
  requestedAt?: string;
  tag?: string;
  exams?: Array<Record<string, unknown>>;
}

export function ingestBody(options: IngestOptions = {}) {
  return {
    password: options.password ?? 'senha123',
    requestedAt: options.requestedAt ?? '2026-11-18T10:00:00-03:00',
    ...(options.tag ? { tag: options.tag } : {}),
    patient: {
      patientId: 'PAT-1',
      name: 'Maria da Silva',
      birthDate: options.birthDate ?? '1980-05-17',
      gender: 'FEMALE',
      ...(options.email ? { email: options.email } : {}),
      ...(options.cpf ? { cpf: options.cpf } : {}),
    },
    exams: options.exams ?? [
      {
        examKey: 'EX-1',
        description: 'Hemograma completo',
        type: 'HEMO',
        modalityCode: 'LAB',
        modalityName: 'Laboratorio',
        status: 'RELEASED',
        performedAt: '2026-11-18T11:00:00-03:00',
      },
    ],
  };
}

export async function ingestProtocol(
  world: ContractWorld,
  number: string,
  options: IngestOptions = {},
): Promise<LightMyRequestResponse> {
  return world.portal.app.inject({
    method: 'PUT',
    url: `/api/v2/delivery/ingest/protocols/${encodeURIComponent(number)}`,
    headers: { 'x-api-key': world.institution.apiKey },
    payload: ingestBody(options),
  });
}

export async function login(world: ContractWorld, payload: Record<string, unknown>): Promise<LightMyRequestResponse> {
  return world.portal.app.inject({ method: 'POST', url: '/api/v2/auth/login', payload });
}

export async function guestToken(world: ContractWorld, number: string, password = 'senha123'): Promise<string> {
  const res = await login(world, { userName: number, password, appKey: 'login' });
  expect(res.statusCode).toBe(200);
  return res.json<{ data: { accessToken: string } }>().data.accessToken;
}

/** The body of an error answer: `{message, data?}` and nothing else (contract 2). */
export function expectError(res: LightMyRequestResponse, status: number, message?: string): void {
  expect(res.statusCode).toBe(status);
  const body = res.json<Record<string, unknown>>();
  expect(typeof body.message).toBe('string');
  expect(Object.keys(body).every((k) => k === 'message' || k === 'data')).toBe(true);
  if (message !== undefined) expect(body.message).toBe(message);
}
