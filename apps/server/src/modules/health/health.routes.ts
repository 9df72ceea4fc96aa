import type { FastifyPluginAsync } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from '../../context.js';

/** Liveness and readiness, outside the `{data}` envelope (contract 8). */
export default function healthRoutes(ctx: AppContext, ready: () => boolean): FastifyPluginAsync {
  return async (app) => {
    const databaseAnswers = async () => {
      try {
        await sql`select 1`.execute(ctx.db);
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
