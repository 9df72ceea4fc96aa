import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../../context.js';
import adminDirectoryRoutes from './admin-directory.routes.js';
import batchPrintRoutes from './batch-print.routes.js';
import historyRoutes from './history.routes.js';
import holdReleaseRoutes from './hold-release.routes.js';
import protocolDetailRoutes from './protocol-detail.routes.js';
import protocolListRoutes from './protocol-list.routes.js';
import resourceRoutes from './resources.routes.js';
import smartRoutes from './smart.routes.js';
import traceRoutes from './trace.routes.js';

/** Results delivery: every delivery call, plus the administration reads this feature owns. */
export default function deliveryRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (app) => {
    await app.register(protocolListRoutes(ctx));
    await app.register(protocolDetailRoutes(ctx));
    await app.register(resourceRoutes(ctx));
    await app.register(batchPrintRoutes(ctx));
    await app.register(historyRoutes(ctx));
    await app.register(traceRoutes(ctx));
    await app.register(adminDirectoryRoutes(ctx));
    await app.register(smartRoutes(ctx));
    await app.register(holdReleaseRoutes(ctx));
  };
}
