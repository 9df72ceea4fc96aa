import { examStatusCode } from '@portal/shared/exam-status';
import { normalizeLanguage } from '@portal/shared/formats';
import type { AppContext } from '../../context.js';
import type { Db } from '../../db/database.js';
import { newId } from '../../lib/ids.js';
import { holdSubject } from '../../plugins/call-rate.js';
import { queueMail } from '../outbox/outbox.service.js';
import { parseInstitutionSettings } from '../institutions/institution.service.js';
import { addDays, dayOf, daysSinceMonday, dayStart } from './days.js';
import { isReportWithheld } from './delivery.policy.js';
import { examHold, PATIENT_SIDE } from './holds.js';
import { recordAudit } from '../../plugins/audit.js';
import {
  heldForHours,
  holdRecorded,
  holdRulesOf,
  insertNotification,
  markQueued,
  notificationFacts,
  pendingDigest,
} from './notifications.repository.js';
import { HOLD_HOURS_MAX } from '@portal/shared/schemas/institution';

type Frequency = 'EXAM' | 'DAY' | 'WEEK' | 'DISABLED';

/** Display codes under which a result counts as released to the patient. */
const RELEASED_CODES = new Set(['L', 'RF']);

/** The patient's own choice wins; DEFAULT (or none) takes the institution's setting (spec 3). */
export function effectiveFrequency(userFrequency: string | null, institutionDefault: Frequency): Frequency {
  const f = (userFrequency ?? 'DEFAULT').toUpperCase();
  return f === 'EXAM' || f === 'DAY' || f === 'WEEK' || f === 'DISABLED' ? f : institutionDefault;
}

/**
 * Result-ready notices. Call inside the transaction that changed the exams (ingest's
 * `onExamsChanged`): for every exam that just became deliverable (released, enabled, not
 * withheld, with a report) its patient is told, by the linked account's e-mail or else the
 * protocol's. The unique (exam, recipient) row makes it once only; an EXAM-frequency mail is
 * queued in the same transaction, DAY/WEEK ones wait for `runDigests`.
 */
export async function notifyExamsChanged(ctx: AppContext, trx: Db, examIds: readonly string[]): Promise<void> {
  const facts = await notificationFacts(trx, [...new Set(examIds)]);
  const now = ctx.clock.now().toISOString();
  const rules = await holdRulesOf(
    trx,
    facts.map((f) => f.institutionId),
  );
  for (const f of facts) {
    const deliverable =
      f.isEnabled === 1 &&
      f.disabled === 0 &&
      !f.typeDisabled &&
      Boolean(f.hasReport) &&
      RELEASED_CODES.has(examStatusCode(f.status)) &&
      !isReportWithheld(f);
    if (!deliverable) continue;
    // A result held from the patient is not announced: its notice waits for the hold to end
    // (a physician's release, or `notifyEndedHolds` once its hours are over). The hold is traced once.
    const hold = examHold(PATIENT_SIDE, f, f, rules.get(f.institutionId), ctx.clock.now());
    if (hold?.withheld) {
      const resource = { type: 'EXAM', id: f.examId };
      if (!(await holdRecorded(trx, f.protocolId, JSON.stringify(resource)))) {
        await recordAudit(
          ctx,
          {
            event: 'RESULT_HELD',
            application: 'results-portal',
            resource,
            protocolId: f.protocolId,
            macro: { rule: hold.rule, until: hold.until, examType: f.type },
          },
          undefined,
          trx,
        );
      }
      continue;
    }
    const linked = f.userId !== null && f.userDisabled === 0;
    const recipient = (linked ? f.userEmail : f.patientEmail)?.trim().toLowerCase();
    if (!recipient) continue;
    const settings = parseInstitutionSettings(f.institutionSettings);
    const frequency = effectiveFrequency(linked ? f.frequencyReceiveEmail : null, settings.emailFrequencyDefault);
    const language = normalizeLanguage(linked ? f.userLanguage : null) ?? 'pt-br';
    const id = newId();
    const inserted = await insertNotification(trx, {
      id,
      examId: f.examId,
      recipientEmail: recipient,
      userId: linked ? f.userId : null,
      frequency,
      language,
      createdAt: now,
      // DISABLED is recorded as handled, so a later change of mind does not mail old results.
      queuedAt: frequency === 'EXAM' || frequency === 'DISABLED' ? now : null,
    });
    if (!inserted || frequency !== 'EXAM') continue;
    await queueMail(
      ctx,
      {
        kind: 'resultReady',
        to: recipient,
        language,
        institutionName: f.institutionName,
        institutionId: f.institutionId,
        // Health data stays out of mails: the notice names neither the exam nor its result.
        params: { name: f.patientName },
        dedupeKey: `result-ready:${f.examId}:${recipient}`,
      },
      trx,
    );
  }
}

/**
 * Result-ready notices of exams whose hold of N hours is over: they were held when they arrived,
 * so nothing announced them. Run with the digests; a notice is still made once only.
 */
export async function notifyEndedHolds(ctx: AppContext): Promise<number> {
  const since = new Date(ctx.clock.now().getTime() - (HOLD_HOURS_MAX + 24) * 3_600_000).toISOString();
  return ctx.db.transaction().execute(async (trx) => {
    const ids = await heldForHours(trx, since);
    if (ids.length > 0) await notifyExamsChanged(ctx, trx, ids);
    return ids.length;
  });
}

/** Start of the current day, and of the current week (Monday), in Brazil's time, as UTC ISO. */
export function periodStarts(now: Date): { day: string; week: string } {
  const today = dayOf(now.toISOString());
  return { day: dayStart(today), week: dayStart(addDays(today, -daysSinceMonday(today))) };
}

/**
 * Sends the DAY and WEEK digests: every pending notice from before the current day (DAY) or
 * week (WEEK) becomes one mail per recipient. Safe to run at any time and from several
 * processes: each period is read, queued and marked by one process at a time, in one
 * transaction, and the mail's dedupe key names the recipient and period.
 */
export async function runDigests(ctx: AppContext): Promise<{ mails: number; notices: number }> {
  await notifyEndedHolds(ctx);
  const starts = periodStarts(ctx.clock.now());
  let mails = 0;
  let notices = 0;
  for (const [frequency, before] of [
    ['DAY', starts.day],
    ['WEEK', starts.week],
  ] as const) {
    await ctx.db.transaction().execute(async (trx) => {
      // One process at a time: two reading the same notices would both queue a mail under one
      // dedupe key, and a notice only the second read would be marked queued without being sent.
      await holdSubject(trx, 'result-digests', ctx.clock.now());
      const pending = await pendingDigest(trx, frequency, before);
      const byRecipient = new Map<string, typeof pending>();
      for (const p of pending) byRecipient.set(p.recipientEmail, [...(byRecipient.get(p.recipientEmail) ?? []), p]);
      for (const [to, items] of byRecipient) {
        await queueMail(
          ctx,
          {
            kind: 'resultDigest',
            to,
            language: items[0]!.language,
            params: { name: items[0]!.patientName, count: items.length, period: frequency },
            dedupeKey: `result-digest:${frequency}:${before}:${to}`,
          },
          trx,
        );
        await markQueued(
          trx,
          items.map((i) => i.id),
          ctx.clock.now().toISOString(),
        );
        mails++;
        notices += items.length;
      }
    });
  }
  return { mails, notices };
}
