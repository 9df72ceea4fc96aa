import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../../context.js';

export default function ingestRoutes(_ctx: AppContext): FastifyPluginAsync {
  return async () => {};
}
