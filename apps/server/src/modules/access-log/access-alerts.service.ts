import type { AppContext } from '../../context.js';
import { queueMail } from '../outbox/outbox.service.js';
import { alertCandidates, claimAlert } from './access-log.repository.js';

/** At most one alert per patient and protocol in this window: the accesses in between wait for the next one. */
export const ACCESS_ALERT_WINDOW_MS = 6 * 3600_000;
/** How far back each run looks: a run missed (a restart, a busy machine) within it loses nothing. */
export const ACCESS_ALERT_LOOKBACK_MS = 30 * 60_000;
/** How often the server looks for accesses to tell. */
export const ACCESS_ALERT_INTERVAL_MS = 60_000;

/**
 * Mails each patient who asked for it (account setting, off by default) when someone other than
 * himself opened one of his results: one mail per protocol at most every 6 hours, naming no one
 * (the portal's access log says who) and carrying no result. Several servers may run this at once:
 * the claim on `access_alert_sends` lets one of them send.
 */
export async function runAccessAlerts(ctx: AppContext): Promise<number> {
  const now = ctx.clock.now();
  const nowIso = now.toISOString();
  const since = new Date(now.getTime() - ACCESS_ALERT_LOOKBACK_MS).toISOString();
  const windowStart = new Date(now.getTime() - ACCESS_ALERT_WINDOW_MS).toISOString();
  let sent = 0;
  for (const c of await alertCandidates(ctx.db, since, nowIso, windowStart)) {
    const queued = await ctx.db.transaction().execute(async (trx) => {
      if (!(await claimAlert(trx, c.userId, c.protocolId, nowIso, windowStart))) return false;
      await queueMail(
        ctx,
        {
          kind: 'accessAlert',
          to: c.email,
          language: c.language,
          link: `/patient/accesses?protocol=${encodeURIComponent(c.protocolId)}`,
          institutionName: c.institutionName,
          params: { protocol: c.protocolNumber, count: Number(c.openings) },
        },
        trx,
      );
      return true;
    });
    if (queued) sent += 1;
  }
  return sent;
}
