import type { ValidateAnswer } from '@portal/shared/schemas/signatures';
import type { AppContext } from '../../context.js';
import { isReportWithheld } from '../delivery/delivery.policy.js';
import { isWithheld, PATIENT_SIDE } from '../delivery/holds.js';
import { holdRulesOf } from '../delivery/notifications.repository.js';
import { storedSignatureCheck } from './signature-check.service.js';

/** Small words of Portuguese and Spanish names that initials leave out. */
const PARTICLES = new Set(['da', 'das', 'de', 'del', 'do', 'dos', 'e', 'y', 'la', 'las', 'los']);

/** "Maria da Silva Souza" → "M. S. S.": all a public page may tell of a patient. */
export function initialsOf(name: string): string {
  return name
    .trim()
    .split(/\s+/)
    .filter((w) => w && !PARTICLES.has(w.toLowerCase()))
    .map((w) => `${w[0]!.toLocaleUpperCase('pt-BR')}.`)
    .join(' ');
}

/**
 * Issue 22.3, the public `/validar` check: is this (by its SHA-256) a file the institution
 * delivered under this code? The answer names the institution, the delivery date and the
 * patient's initials only, with the stored check of the report's signature. A code of a report
 * no longer served (disabled, awaiting rectification) or held back from the patient (a release
 * hold, issue 22.2) answers like an unknown one: the page tells no more than the patient sees.
 */
export async function validateDelivered(ctx: AppContext, code: string, sha256: string): Promise<ValidateAnswer> {
  const row = await ctx.db
    .selectFrom('resources as r')
    .innerJoin('exams as e', 'e.id', 'r.examId')
    .innerJoin('protocols as p', 'p.id', 'e.protocolId')
    .innerJoin('institutions as i', 'i.id', 'p.institutionId')
    .select([
      'r.sha256',
      'r.signedSha256',
      'r.id as resourceId',
      'r.signatureCheck',
      'r.createdAt',
      'e.deliveredAt',
      'e.createdAt as examCreatedAt',
      'e.type',
      'e.holdReleasedAt',
      'e.requesterCrm',
      'e.requesterUf',
      'e.isEnabled',
      'e.rectificationStatus',
      'p.patientName',
      'p.patientPreferredName',
      'i.name as institutionName',
      'p.institutionId',
    ])
    .where('r.verificationCode', '=', code)
    .executeTakeFirst();
  const unknown: ValidateAnswer = { outcome: 'unknown-code', report: null, file: null, signature: null };
  if (!row || Number(row.isEnabled) !== 1 || isReportWithheld(row)) return unknown;
  const rules = (await holdRulesOf(ctx.db, [row.institutionId])).get(row.institutionId);
  const exam = { ...row, createdAt: row.examCreatedAt };
  if (isWithheld(PATIENT_SIDE, row, exam, rules, ctx.clock.now())) return unknown;
  const file =
    sha256 === row.sha256
      ? 'report'
      : sha256 === row.signedSha256
        ? 'signed-file'
        : (await isStampedCopy(ctx, row.resourceId, sha256))
          ? 'stamped-report'
          : null;
  return {
    outcome: file ? 'match' : 'different-file',
    report: {
      institution: row.institutionName,
      deliveredAt: row.deliveredAt ?? row.createdAt,
      patientInitials: initialsOf(row.patientPreferredName ?? row.patientName),
    },
    file,
    signature: storedSignatureCheck(row),
  };
}

/** Whether the file is one of the stamped copies of the report handed out (any language). */
async function isStampedCopy(ctx: AppContext, resourceId: string, sha256: string): Promise<boolean> {
  const copy = await ctx.db
    .selectFrom('stampedCopies')
    .select('sha256')
    .where('resourceId', '=', resourceId)
    .where('sha256', '=', sha256)
    .executeTakeFirst();
  return copy !== undefined;
}
