import { ServerMessage } from '@portal/shared/errors';
import type { HoldRule, HoldRules } from '@portal/shared/schemas/institution';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { recordAudit } from '../../plugins/audit.js';
import type { InstitutionActor } from '../accounts/accounts.policy.js';
import { canManageInstitution } from './institution.policy.js';
import { findInstitutionRowById, holdInstitutionRow } from './institution.repository.js';

/**
 * Release holds (issue 22): an institution's rules per exam type, edited in the administration
 * console by admins and the institution's own company users. Every change is traced
 * (HOLD_RULES_CHANGED, with the rules before and after); delivery reads them with the institution.
 */
export async function holdRulesAs(ctx: AppContext, actor: InstitutionActor, institutionId: string): Promise<HoldRules> {
  if (!canManageInstitution(actor, institutionId)) throw notFound(ServerMessage.institutionNotFound);
  if (!(await findInstitutionRowById(ctx.db, institutionId))) throw notFound(ServerMessage.institutionNotFound);
  return { rules: await readRules(ctx, institutionId) };
}

async function readRules(ctx: Pick<AppContext, 'db'>, institutionId: string): Promise<HoldRule[]> {
  const rows = await ctx.db
    .selectFrom('examHoldRules')
    .select(['examTypeCode', 'rule', 'hours', 'message'])
    .where('institutionId', '=', institutionId)
    .execute();
  // In the order a person reads them, whatever the database's collation.
  rows.sort((a, b) => a.examTypeCode.localeCompare(b.examTypeCode, 'pt-BR', { sensitivity: 'base' }));
  return rows.map((r) => ({
    examTypeCode: r.examTypeCode,
    rule: r.rule as HoldRule['rule'],
    hours: r.hours === null ? null : Number(r.hours),
    message: r.message,
  }));
}

/**
 * Replaces an institution's rules with `input` (one transaction, with the institution's row held):
 * replacements in flight take effect one after the other, so the rules left are one call's list,
 * never a mix of several, and each trail entry's "before" is what the previous one left.
 */
export async function replaceHoldRulesAs(
  ctx: AppContext,
  request: FastifyRequest,
  actor: InstitutionActor,
  institutionId: string,
  input: HoldRules,
): Promise<HoldRules> {
  if (!canManageInstitution(actor, institutionId)) throw notFound(ServerMessage.institutionNotFound);
  const now = ctx.clock.now().toISOString();
  await ctx.db.transaction().execute(async (trx) => {
    const institution = await holdInstitutionRow(trx, ctx.dialect, institutionId);
    if (!institution) throw notFound(ServerMessage.institutionNotFound);
    const before = await readRules({ db: trx }, institutionId);
    await trx.deleteFrom('examHoldRules').where('institutionId', '=', institutionId).execute();
    if (input.rules.length > 0) {
      await trx
        .insertInto('examHoldRules')
        .values(
          input.rules.map((r) => ({
            id: newId(),
            institutionId,
            examTypeCode: r.examTypeCode,
            rule: r.rule,
            hours: r.rule === 'HOURS' ? r.hours : null,
            message: r.message,
            createdAt: now,
            updatedAt: now,
          })),
        )
        .execute();
    }
    await recordAudit(
      ctx,
      {
        event: 'HOLD_RULES_CHANGED',
        tenant: institution.code,
        resource: { type: 'INSTITUTION', id: institutionId },
        systemUser: { id: actor.userId, name: null, role: actor.role },
        macro: { before, after: input.rules },
      },
      request,
      trx,
    );
  });
  return { rules: await readRules(ctx, institutionId) };
}
