import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { HoldRuleSetting } from './holds.js';

/** The hold rules of some institutions by exam type (upper-cased), read inside the caller's transaction. */
export async function holdRulesOf(db: Db, institutionIds: readonly string[]) {
  const out = new Map<string, Map<string, HoldRuleSetting>>();
  if (institutionIds.length === 0) return out;
  const rows = await db
    .selectFrom('examHoldRules')
    .select(['institutionId', 'examTypeCode', 'rule', 'hours', 'message'])
    .where('institutionId', 'in', [...new Set(institutionIds)])
    .execute();
  for (const r of rows) {
    const rules = out.get(r.institutionId) ?? new Map<string, HoldRuleSetting>();
    rules.set(r.examTypeCode.trim().toUpperCase(), {
      rule: r.rule as HoldRuleSetting['rule'],
      hours: r.hours === null ? null : Number(r.hours),
      message: r.message,
    });
    out.set(r.institutionId, rules);
  }
  return out;
}

/** Whether the audit trail already tells that an exam's result was held (`RESULT_HELD`). */
export async function holdRecorded(db: Db, protocolId: string, resource: string): Promise<boolean> {
  const row = await db
    .selectFrom('auditEvents')
    .select('id')
    .where('protocolId', '=', protocolId)
    .where('event', '=', 'RESULT_HELD')
    .where('resource', '=', resource)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Exams under an HOURS hold received since `since` that no result-ready notice names yet: when
 * their hours are over, their notice is due.
 */
export async function heldForHours(db: Db, since: string): Promise<string[]> {
  const rows = await db
    .selectFrom('exams as e')
    .innerJoin('protocols as p', 'p.id', 'e.protocolId')
    .innerJoin('examHoldRules as h', (j) =>
      j
        .onRef('h.institutionId', '=', 'p.institutionId')
        .on(sql`upper(trim(h.exam_type_code))`, '=', sql`upper(trim(e.type))`),
    )
    .select('e.id')
    .where('h.rule', '=', 'HOURS')
    .where('e.holdReleasedAt', 'is', null)
    .where('e.createdAt', '>=', since)
    .where((eb) =>
      eb.not(eb.exists(eb.selectFrom('resultNotifications as n').select('n.id').whereRef('n.examId', '=', 'e.id'))),
    )
    .execute();
  return rows.map((r) => r.id);
}

/** What deciding on a result-ready notice needs about each exam, in one query. */
export async function notificationFacts(db: Db, examIds: readonly string[]) {
  if (examIds.length === 0) return [];
  return db
    .selectFrom('exams as e')
    .innerJoin('protocols as p', 'p.id', 'e.protocolId')
    .innerJoin('institutions as i', 'i.id', 'p.institutionId')
    .leftJoin('users as u', 'u.id', 'p.patientUserId')
    .select([
      'e.id as examId',
      'e.description',
      'e.type',
      'e.status',
      'e.isEnabled',
      'e.rectificationStatus',
      'e.deliveredAt',
      'e.createdAt',
      'e.holdReleasedAt',
      'e.requesterCrm',
      'e.requesterUf',
      'p.id as protocolId',
      'p.number',
      'p.disabled',
      'p.patientName',
      'p.patientEmail',
      'p.institutionId',
      'i.name as institutionName',
      'i.settings as institutionSettings',
      'u.id as userId',
      'u.email as userEmail',
      'u.frequencyReceiveEmail',
      'u.language as userLanguage',
      'u.disabled as userDisabled',
      (eb) =>
        eb
          .exists(
            eb
              .selectFrom('resources as r')
              .select('r.id')
              .whereRef('r.examId', '=', 'e.id')
              .where('r.type', '=', 'REPORT'),
          )
          .as('hasReport'),
      (eb) =>
        eb
          .exists(
            eb
              .selectFrom('visualizerSettings as v')
              .select('v.id')
              .whereRef('v.institutionId', '=', 'p.institutionId')
              .whereRef('v.examTypeCode', '=', 'e.type')
              .where('v.enable', '=', 0),
          )
          .as('typeDisabled'),
    ])
    .where('e.id', 'in', [...examIds])
    .execute();
}

export async function insertNotification(
  db: Db,
  row: {
    id: string;
    examId: string;
    recipientEmail: string;
    userId: string | null;
    frequency: string;
    language: string;
    createdAt: string;
    queuedAt: string | null;
  },
): Promise<boolean> {
  const result = await db
    .insertInto('resultNotifications')
    .values(row)
    .onConflict((oc) => oc.columns(['examId', 'recipientEmail']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Pending digest notices of a frequency created before `before`, with what the mail lists. */
export async function pendingDigest(db: Db, frequency: 'DAY' | 'WEEK', before: string) {
  return db
    .selectFrom('resultNotifications as n')
    .innerJoin('exams as e', 'e.id', 'n.examId')
    .innerJoin('protocols as p', 'p.id', 'e.protocolId')
    .select(['n.id', 'n.recipientEmail', 'n.language', 'p.patientName'])
    .where('n.queuedAt', 'is', null)
    .where('n.frequency', '=', frequency)
    .where('n.createdAt', '<', before)
    .orderBy('n.recipientEmail')
    .orderBy('n.createdAt')
    .execute();
}

export async function markQueued(db: Db, ids: readonly string[], at: string): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    await db
      .updateTable('resultNotifications')
      .set({ queuedAt: at })
      .where('id', 'in', ids.slice(i, i + 500))
      .where('queuedAt', 'is', null)
      .execute();
  }
}
