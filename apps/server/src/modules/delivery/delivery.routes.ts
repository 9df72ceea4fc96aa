import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../../context.js';

export default function deliveryRoutes(_ctx: AppContext): FastifyPluginAsync {
  return async () => {};
}
