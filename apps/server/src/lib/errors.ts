import { ServerMessage } from '@portal/shared/errors';

/** An error meant for the client: HTTP status, the catalogue's exact message, optional detail. */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly data?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const notFound = (message: string = ServerMessage.notFound) => new AppError(404, message);
export const forbidden = (message: string = ServerMessage.forbidden) => new AppError(403, message);
export const unauthorized = (message: string = ServerMessage.unauthorized) => new AppError(401, message);
export const badRequest = (message: string = ServerMessage.validation, data?: unknown) =>
  new AppError(400, message, data);
export const conflict = (message: string) => new AppError(409, message);
export const tooManyAttempts = (retryAfterSeconds: number) =>
  new AppError(
    429,
    ServerMessage.tooManyAttempts,
    { retryAfter: retryAfterSeconds },
    {
      'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))),
    },
  );
