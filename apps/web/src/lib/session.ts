import type { SessionUser } from '@portal/shared/schemas/auth';
import { useSyncExternalStore } from 'react';

/** The session user as the login and validate answers give it (spec 3, contract 3). */
export type { SessionUser };

export interface Credentials {
  token: string;
  user: SessionUser | null;
}

// Session storage: exam results are sensitive, and patients often use shared computers; closing
// the tab must end the access on that machine.
const CREDENTIALS_KEY = 'portal.credentials';
const ORIGIN_KEY = 'portal.originCode';
// Whether this session's person was last seen with an incomplete profile (public/drawn-state.js
// reads it too, to show the prompt in the dashboard drawn at build time).
const PROFILE_INCOMPLETE_KEY = 'portal.profileIncomplete';

const listeners = new Set<() => void>();
let cached: { raw: string | null; value: Credentials | null } = { raw: null, value: null };

function read(): Credentials | null {
  const raw = sessionStorage.getItem(CREDENTIALS_KEY);
  if (raw === cached.raw) return cached.value;
  let value: Credentials | null = null;
  try {
    value = raw ? (JSON.parse(raw) as Credentials) : null;
  } catch {
    value = null;
  }
  cached = { raw, value };
  return value;
}

function emit(): void {
  for (const listener of listeners) listener();
}

export function getCredentials(): Credentials | null {
  return read();
}

export function getToken(): string | null {
  return read()?.token ?? null;
}

export function storeCredentials(credentials: Credentials): void {
  sessionStorage.setItem(CREDENTIALS_KEY, JSON.stringify(credentials));
  sessionStorage.removeItem(PROFILE_INCOMPLETE_KEY);
  emit();
}

export function clearCredentials(): void {
  sessionStorage.removeItem(CREDENTIALS_KEY);
  sessionStorage.removeItem(PROFILE_INCOMPLETE_KEY);
  emit();
}

/**
 * The profile prompt as this session last saw it (every record answer and saved edit rewrites it,
 * account-api.ts), so a dashboard opened again shows it from its first paint instead of after the
 * person's record arrives (spec 8's prompt; the record decides).
 */
export function profileIncompleteRemembered(): boolean {
  try {
    return sessionStorage.getItem(PROFILE_INCOMPLETE_KEY) === '1';
  } catch {
    return false;
  }
}

export function rememberProfileIncomplete(incomplete: boolean): void {
  try {
    if (incomplete) sessionStorage.setItem(PROFILE_INCOMPLETE_KEY, '1');
    else sessionStorage.removeItem(PROFILE_INCOMPLETE_KEY);
  } catch {
    // Storage refused: the prompt waits for the record, as on a first visit.
  }
}

/** The institution code of a branded login, so logout returns to that page (spec 4.3). */
export function setOriginCode(code: string | null): void {
  if (code) sessionStorage.setItem(ORIGIN_KEY, code);
  else sessionStorage.removeItem(ORIGIN_KEY);
}

export function loginPath(): string {
  const code = sessionStorage.getItem(ORIGIN_KEY);
  return code ? `/instituicao/${encodeURIComponent(code.toLowerCase())}` : '/login';
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Calls `listener` whenever this page stores or clears the credentials. */
export const subscribeCredentials = subscribe;

export function useCredentials(): Credentials | null {
  return useSyncExternalStore(subscribe, read, () => null);
}

/** The account edit screen of the user's type (spec 2.6), or null for guests. */
export function accountEditPath(user: SessionUser | null | undefined): string | null {
  if (!user) return null;
  if (user.isPhysicianType) return '/physician/edit';
  if (user.isExternalType) return '/external-user/edit';
  if (user.isUserType) return '/patient/edit';
  return null;
}
