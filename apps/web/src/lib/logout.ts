import { api } from './api-client';
import { navigateTo } from './navigation';
import { clearCredentials, getToken, loginPath } from './session';

/** Revokes the session on the server (best effort), clears it here and returns to the right login (spec 4.3). */
export function logout(options: { revoke?: boolean } = {}): void {
  if (options.revoke !== false && getToken()) {
    api('/api/v2/auth/logout', { method: 'POST', body: {}, sessionExpiryOn401: false }).catch(() => undefined);
  }
  clearCredentials();
  navigateTo(loginPath(), { replace: true });
}
