import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Logger } from 'pino';

/**
 * The request being answered, reachable from any code it runs (services log through ctx.log,
 * not through request.log): the log mixin stamps its id on every line written meanwhile.
 */
const current = new AsyncLocalStorage<string>();

/** Marks the loggers Fastify made for one request: they already carry `reqId` as a binding. */
const BOUND = Symbol('portal.requestBound');

/** Makes every hook and handler of a request, and all they start, run in its context. */
export function trackRequests(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => current.run(request.id, done));
}

/** The id of the request being answered, if any. */
export function currentRequestId(): string | undefined {
  return current.getStore();
}

/** pino mixin: adds the current request's id unless the logger already binds it. */
export function requestIdMixin(_merge: object, _level: number, logger?: Logger): { reqId?: string } {
  if (logger && (logger as unknown as Record<symbol, unknown>)[BOUND]) return {};
  const id = current.getStore();
  return id === undefined ? {} : { reqId: id };
}

/** Fastify's childLoggerFactory: the usual child, marked so the mixin leaves it alone. */
export const requestChildLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = (
  logger,
  bindings,
  options,
) => {
  const child = logger.child(bindings, options);
  (child as unknown as Record<symbol, unknown>)[BOUND] = true;
  return child;
};
