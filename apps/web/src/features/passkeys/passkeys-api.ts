import type { LoginResponse } from '@portal/shared/schemas/auth';
import type { PasskeyAssertion, PasskeyItem } from '@portal/shared/schemas/passkeys';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api-client';

/* The passkey calls (WebAuthn) and the browser's ceremonies, through @simplewebauthn/browser. */

interface Challenge {
  challengeId: string;
  options: Record<string, unknown>;
}

// The WebAuthn code is loaded when a ceremony begins, not with the page.
const webauthn = () => import('@simplewebauthn/browser');

export async function passkeysSupported(): Promise<boolean> {
  return (await webauthn()).browserSupportsWebAuthn();
}

/** True when the person closed or refused the browser's passkey dialog (no error to show). */
export function isCancelled(error: unknown): boolean {
  return error instanceof Error && (error.name === 'NotAllowedError' || error.name === 'AbortError');
}

/**
 * Asks the browser for a passkey answering a fresh sign-in challenge. `autofill`: the login
 * form's conditional UI (the passkey is offered among the user name suggestions).
 */
export async function passkeyAssertion(autofill = false): Promise<PasskeyAssertion> {
  const lib = await webauthn();
  const { challengeId, options } = await api<Challenge>('/api/v2/auth/passkeys/signInOptions', {
    method: 'POST',
    body: {},
    auth: false,
    sessionExpiryOn401: false,
  });
  const credential = await lib.startAuthentication({
    optionsJSON: options as unknown as Parameters<typeof lib.startAuthentication>[0]['optionsJSON'],
    useBrowserAutofill: autofill,
  });
  return { challengeId, credential: credential as PasskeyAssertion['credential'] };
}

/** Whether the browser can offer passkeys in the user name's autofill. */
export async function passkeyAutofillSupported(): Promise<boolean> {
  return (await webauthn()).browserSupportsWebAuthnAutofill();
}

/** Ends a pending autofill request (the login form leaves the page). */
export async function cancelPasskeyRequest(): Promise<void> {
  (await webauthn()).WebAuthnAbortService.cancelCeremony();
}

export function passkeySignIn(assertion: PasskeyAssertion, customLogin?: string) {
  return api<LoginResponse['data']>('/api/v2/auth/passkeys/signIn', {
    body: { ...assertion, ...(customLogin ? { customLogin } : {}) },
    auth: false,
    sessionExpiryOn401: false,
  });
}

const PASSKEYS = ['passkeys'] as const;

export function usePasskeys() {
  return useQuery({ queryKey: PASSKEYS, queryFn: () => api<PasskeyItem[]>('/api/v2/auth/passkeys') });
}

/** Registers a passkey of this device: the browser creates it, the server checks and keeps it. */
async function registerPasskey(name: string): Promise<PasskeyItem> {
  const lib = await webauthn();
  const { challengeId, options } = await api<Challenge>('/api/v2/auth/passkeys/registrationOptions', {
    method: 'POST',
    body: {},
  });
  const credential = await lib.startRegistration({
    optionsJSON: options as unknown as Parameters<typeof lib.startRegistration>[0]['optionsJSON'],
  });
  return api<PasskeyItem>('/api/v2/auth/passkeys', { body: { challengeId, credential, name } });
}

export function usePasskeyMutations() {
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: PASSKEYS });
  return {
    add: useMutation({ mutationFn: registerPasskey, onSuccess: refresh }),
    rename: useMutation({
      mutationFn: ({ id, name }: { id: string; name: string }) =>
        api<PasskeyItem>(`/api/v2/auth/passkeys/${encodeURIComponent(id)}`, { method: 'PUT', body: { name } }),
      onSuccess: refresh,
    }),
    remove: useMutation({
      mutationFn: (id: string) => api<boolean>(`/api/v2/auth/passkeys/${encodeURIComponent(id)}`, { method: 'DELETE' }),
      onSuccess: refresh,
    }),
  };
}
