import type { ExamHold } from '@portal/shared/schemas/delivery';
import type { HoldRuleKind } from '@portal/shared/schemas/institution';
import type { Viewer } from './delivery.policy.js';

/**
 * Release holds for sensitive results (issue 22). This file is the one place that decides whether
 * an exam's result is held for a viewer: every read path (lists, protocol detail, files, merged
 * reports, batch prints and zips, history values, shares, FHIR and DICOMweb reads, result-ready
 * mails) asks `examHold` and serves a withheld exam without its files, values and images.
 */

/** An institution's rule for one exam type, as delivery keeps it in memory with the institution. */
export interface HoldRuleSetting {
  rule: HoldRuleKind;
  /** HOURS: how long after the exam's release. */
  hours: number | null;
  message: string | null;
}

/** Hold rules by exam type, the type upper-cased (see `holdRuleOf`). */
export type HoldRules = ReadonlyMap<string, HoldRuleSetting>;

/** What deciding on a hold needs of an exam. */
export interface HoldExamFacts {
  type: string;
  deliveredAt: string | null;
  createdAt: string;
  holdReleasedAt: string | null;
  requesterCrm: string | null;
  requesterUf: string | null;
}

/** What deciding on a hold needs of the exam's protocol. */
export interface HoldProtocolFacts {
  institutionId: string;
  /** The licenses the protocol names (kept from its exams' requesters); stand in for an exam that names none. */
  requesterLicenses?: ReadonlyArray<{ crm: string; uf: string }>;
}

export type HoldViewer = Pick<Viewer, 'role' | 'license'>;

/** The patient's side, for what is decided without a caller (result-ready mails). */
export const PATIENT_SIDE: HoldViewer = { role: 'PATIENT', license: null };

/** The rule of an exam type, exam types compared trimmed and case-insensitively. */
export function holdRuleOf(rules: HoldRules | undefined, type: string): HoldRuleSetting | undefined {
  return rules?.get(type.trim().toUpperCase());
}

/** Where "held for N hours" counts from: the release the institution sent, else when the portal received the exam. */
export function holdStart(exam: Pick<HoldExamFacts, 'deliveredAt' | 'createdAt'>): string {
  return exam.deliveredAt ?? exam.createdAt;
}

/**
 * The requesting physician: a physician whose license, in an institution that vouched for him,
 * is the exam's requester (or, when the exam names none, one of the protocol's requesters).
 */
export function isRequestingPhysician(viewer: HoldViewer, protocol: HoldProtocolFacts, exam: HoldExamFacts): boolean {
  const license = viewer.license;
  if (viewer.role !== 'PHYSICIAN' || license === null || !license.institutionIds.includes(protocol.institutionId)) {
    return false;
  }
  const same = (crm: string, uf: string) =>
    crm.trim() === license.crm.trim() && uf.trim().toUpperCase() === license.uf.toUpperCase();
  if (exam.requesterCrm) return same(exam.requesterCrm, exam.requesterUf ?? '');
  return (protocol.requesterLicenses ?? []).some((l) => same(l.crm, l.uf));
}

/**
 * The hold on an exam as `viewer` meets it at `now`, or null when no hold applies (no rule for its
 * type, released by a physician, or its hours are over). The requesting physician sees the result
 * (`withheld: false`) and may release it unless the rule is IN_PERSON; everyone else on the
 * delivery side (the patient, guests, shares, partner institutions' users, other physicians) gets
 * it withheld. The institution's staff read results in the administration console, which holds
 * do not touch.
 */
export function examHold(
  viewer: HoldViewer,
  protocol: HoldProtocolFacts,
  exam: HoldExamFacts,
  rules: HoldRules | undefined,
  now: Date,
): ExamHold | null {
  const rule = holdRuleOf(rules, exam.type);
  if (rule === undefined || exam.holdReleasedAt !== null) return null;
  let until: string | null = null;
  if (rule.rule === 'HOURS') {
    const ends = Date.parse(holdStart(exam)) + (rule.hours ?? 0) * 3_600_000;
    if (!(ends > now.getTime())) return null;
    until = new Date(ends).toISOString();
  }
  const requesting = isRequestingPhysician(viewer, protocol, exam);
  return {
    rule: rule.rule,
    until,
    message: rule.message,
    withheld: !requesting,
    canRelease: requesting && rule.rule !== 'IN_PERSON',
  };
}

/** Whether `viewer` is kept from the exam's result now (the question most read paths ask). */
export function isWithheld(
  viewer: HoldViewer,
  protocol: HoldProtocolFacts,
  exam: HoldExamFacts,
  rules: HoldRules | undefined,
  now: Date,
): boolean {
  return examHold(viewer, protocol, exam, rules, now)?.withheld ?? false;
}

/** The earliest moment one of some holds ends by itself (an answer built with them holds until then). */
export function earliestEnd(holds: Iterable<ExamHold | null | undefined>): string | null {
  let out: string | null = null;
  for (const h of holds) if (h?.until && (out === null || h.until < out)) out = h.until;
  return out;
}
