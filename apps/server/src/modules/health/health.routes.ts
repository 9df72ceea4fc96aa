import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../../context.js';

/** Liveness and readiness, outside the `{data}` envelope (contract 8). */
export default function healthRoutes(ctx: AppContext, ready: () => boolean): FastifyPluginAsync {
  return async (app) => {
    // Through the reader (SQLite: its read-only connection; PostgreSQL: the readers' pool): a
    // health check never waits in line behind writes such as a burst of sign-ins.
    const databaseAnswers = async () => {
      try {
        await ctx.database.reader.all('select 1', []);
        return true;
      } catch {
        return false;
      }
    };
    app.get('/healthz', async (_request, reply) =>
      (await databaseAnswers()) ? { status: 'ok' } : reply.status(503).send({ status: 'unavailable' }),
    );
    app.get('/readyz', async (_request, reply) =>
      ready() && (await databaseAnswers()) ? { status: 'ok' } : reply.status(503).send({ status: 'starting' }),
    );
  };
}
