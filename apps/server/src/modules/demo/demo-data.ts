import type { AppContext } from '../../context.js';

/** Placeholder until the demo clinic lands. */
export async function loadDemoData(ctx: AppContext): Promise<void> {
  ctx.log.info('demo data: nothing to load yet');
}
