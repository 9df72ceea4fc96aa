import { DELAY_MS, TOAST_MS } from '@portal/shared/limits';
import { i18n } from './i18n';
import { navigateTo } from './navigation';
import { notify } from './notify';
import { clearCredentials, getToken, loginPath } from './session';

/** A failed call: the HTTP status and the server's `message` (contract 2), matched by substring. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly serverMessage: string,
    readonly data?: unknown,
  ) {
    super(serverMessage || `HTTP ${status}`);
    this.name = 'ApiError';
  }
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  query?: Record<string, string | number | boolean | null | undefined>;
  body?: unknown;
  /** Sends the stored bearer token (default true). */
  auth?: boolean;
  /**
   * A 401 of an authenticated call means the session is over; sign-in calls answer 401 for a
   * wrong password instead, so they turn this off.
   */
  sessionExpiryOn401?: boolean;
  signal?: AbortSignal;
}

export interface ApiResponse<T> {
  data: T;
  message?: string;
}

let expiring = false;

function onSessionExpired(serverMessage: string): void {
  if (expiring) return;
  expiring = true;
  const key = serverMessage.includes('is expired!') ? 'errors:errors.shareExpired' : 'common:session.expired';
  notify('warning', i18n.t(key), TOAST_MS.long);
  clearCredentials();
  setTimeout(() => {
    expiring = false;
    navigateTo(loginPath(), { replace: true });
  }, DELAY_MS.unauthorizedRedirect);
}

export function buildUrl(path: string, query?: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null) params.set(key, String(value));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/** Calls the API and answers the whole envelope `{data, message}`. */
export async function apiCall<T>(path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = options.auth === false ? null : getToken();
  if (token) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';

  let response: Response;
  try {
    response = await fetch(buildUrl(path, options.query), {
      method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
      credentials: 'same-origin',
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, '');
  }

  const text = await response.text();
  let body: { data?: unknown; message?: unknown } = {};
  if (text) {
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      body = {};
    }
  }
  const message = typeof body.message === 'string' ? body.message : '';

  if (!response.ok) {
    if (response.status === 401 && token && options.sessionExpiryOn401 !== false) onSessionExpired(message);
    if (response.status === 504) notify('info', i18n.t('common:session.timeout'), TOAST_MS.long);
    throw new ApiError(response.status, message, body.data);
  }
  return { data: body.data as T, message: message || undefined };
}

/** Calls the API and answers `data`. */
export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  return (await apiCall<T>(path, options)).data;
}
