import type { AppContext } from '../../context.js';
import { tryHoldSubject } from '../../plugins/call-rate.js';
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
 * (the portal's access log says who) and carrying no result.
 *
 * Every server process runs this each minute; one run at a time does the work. A run takes the
 * 'access-alerts' subject for its transaction (`tryHoldSubject`): on PostgreSQL the runs that find
 * it taken return at once without scanning the audit, on SQLite they wait for the write lock. The
 * claims on `access_alert_sends` and the mails to the outbox commit together, so an alert is queued
 * once; a run that dies rolls them all back, and the next run finds the same accesses again (it
 * looks back `ACCESS_ALERT_LOOKBACK_MS`).
 */
export async function runAccessAlerts(ctx: AppContext): Promise<number> {
  const now = ctx.clock.now();
  const nowIso = now.toISOString();
  const since = new Date(now.getTime() - ACCESS_ALERT_LOOKBACK_MS).toISOString();
  const windowStart = new Date(now.getTime() - ACCESS_ALERT_WINDOW_MS).toISOString();
  return ctx.db.transaction().execute(async (trx) => {
    if (!(await tryHoldSubject(trx, ctx.dialect, 'access-alerts', now))) return 0;
    let sent = 0;
    for (const c of await alertCandidates(trx, since, nowIso, windowStart)) {
      if (!(await claimAlert(trx, c.userId, c.protocolId, nowIso, windowStart))) continue;
      await queueMail(
        ctx,
        {
          kind: 'accessAlert',
          to: c.email,
          language: c.language,
          link: `/patient/accesses?protocol=${encodeURIComponent(c.protocolId)}`,
          institutionName: c.institutionName,
          institutionId: c.institutionId,
          params: { protocol: c.protocolNumber, count: Number(c.openings) },
        },
        trx,
      );
      sent += 1;
    }
    return sent;
  });
}
