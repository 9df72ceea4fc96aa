import { ApiError } from './api-client';
import { errorKey } from './error-keys';
import { i18n } from './i18n';

/** The translated text for a failed call (spec 8): catalogue match by substring, else the fallback. */
export function errorText(error: unknown, fallbackKey = 'errors.default'): string {
  const message = error instanceof ApiError ? error.serverMessage : '';
  return i18n.t(`errors:${errorKey(message, fallbackKey)}`);
}

export function isServerError(error: unknown): boolean {
  return error instanceof ApiError && error.status >= 500 && error.status <= 511;
}

export function statusOf(error: unknown): number {
  return error instanceof ApiError ? error.status : 0;
}

export function serverMessageOf(error: unknown): string {
  return error instanceof ApiError ? error.serverMessage : '';
}
