import { ensureBuilt } from './build.js';

/**
 * Vitest's global setup of the journeys: a missing build is made here, once, before the files
 * that run at once would each start making it.
 */
export default function buildOnce(): void {
  ensureBuilt();
}
