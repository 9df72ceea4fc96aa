import { useSyncExternalStore } from 'react';
import type { SessionUser } from '@portal/shared/schemas/auth';

/** The console's own session: kept apart from the patient app's, and gone when the tab closes. */
export interface ConsoleCredentials {
  token: string;
  user: SessionUser;
}

const KEY = 'admin.credentials';
const listeners = new Set<() => void>();
let cached: { raw: string | null; value: ConsoleCredentials | null } = { raw: null, value: null };

function read(): ConsoleCredentials | null {
  const raw = sessionStorage.getItem(KEY);
  if (raw === cached.raw) return cached.value;
  let value: ConsoleCredentials | null = null;
  try {
    value = raw ? (JSON.parse(raw) as ConsoleCredentials) : null;
  } catch {
    value = null;
  }
  cached = { raw, value };
  return value;
}

const emit = () => listeners.forEach((listener) => listener());

export const getCredentials = read;
export const getToken = (): string | null => read()?.token ?? null;

export function storeCredentials(credentials: ConsoleCredentials): void {
  sessionStorage.setItem(KEY, JSON.stringify(credentials));
  emit();
}

export function clearCredentials(): void {
  sessionStorage.removeItem(KEY);
  emit();
}

export function useCredentials(): ConsoleCredentials | null {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    read,
    () => null,
  );
}

/** Admins run every institution; company users their own (spec 2.6). */
export const isAdmin = (user: SessionUser | null | undefined): boolean => Boolean(user?.isAdminType);
