import { getToken, clearCredentials } from './session';

/** A failed call: the HTTP status and the server's `message` (contract 2). */
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

type Query = Record<string, string | number | boolean | null | undefined>;

export interface CallOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  query?: Query;
  body?: unknown;
  /** Sign-in answers 401 for a wrong password: that is not the end of a session. */
  signIn?: boolean;
}

let onExpired: () => void = () => undefined;
/** What to do when the session ends under the user (the app sends them to the sign-in). */
export function onSessionExpired(handler: () => void): void {
  onExpired = handler;
}

export function buildUrl(path: string, query?: Query): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/** Calls the portal's API (administration calls only) and answers `data`. */
export async function api<T>(path: string, options: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = options.signIn ? null : getToken();
  if (token) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(buildUrl(path, options.query), {
      method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: 'same-origin',
    });
  } catch {
    throw new ApiError(0, '');
  }
  const text = await response.text();
  let body: { data?: unknown; message?: unknown } = {};
  try {
    body = text ? (JSON.parse(text) as typeof body) : {};
  } catch {
    body = {};
  }
  const message = typeof body.message === 'string' ? body.message : '';
  if (!response.ok) {
    if (response.status === 401 && token) {
      clearCredentials();
      onExpired();
    }
    throw new ApiError(response.status, message, body.data);
  }
  return body.data as T;
}

/**
 * Downloads a file the API streams (the audit CSV) with the session's token, and saves it under
 * the name the server gives.
 */
export async function download(path: string, query: Query, fallbackName: string): Promise<void> {
  const token = getToken();
  const response = await fetch(buildUrl(path, query), {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  if (!response.ok) throw new ApiError(response.status, '');
  const disposition = response.headers.get('content-disposition') ?? '';
  const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? fallbackName;
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
