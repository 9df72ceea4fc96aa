import { ServerMessage } from '@portal/shared/errors';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { conflict, forbidden, notFound } from '../../lib/errors.js';
import type { AuthContext } from '../../plugins/auth.js';
import { recordAudit } from '../../plugins/audit.js';
import { isExamServed } from './delivery.policy.js';
import { readExam } from './delivery.repository.js';
import { auditPatient, auditUser, authoriseProtocol, institutionOf, loadViewer } from './delivery.service.js';
import { examHold } from './holds.js';
import { notifyExamsChanged } from './notifications.service.js';

/**
 * "Release to the patient": the requesting physician ends the hold on one exam's result. The
 * release, its trace (RESULT_RELEASED) and the patient's result-ready notice commit together; of
 * several calls at once, one releases and the others answer 409.
 */
export async function releaseHold(
  ctx: AppContext,
  auth: AuthContext,
  examId: string,
  request: FastifyRequest,
): Promise<{ examId: string; releasedAt: string }> {
  const viewer = loadViewer(auth);
  if (viewer.role !== 'PHYSICIAN') throw forbidden();
  const exam = await readExam(ctx.database.reader, examId);
  if (!exam) throw notFound();
  const protocol = await authoriseProtocol(ctx, viewer, exam.protocolId);
  const institution = await institutionOf(ctx, viewer, protocol.institutionId);
  if (!isExamServed({ isEnabled: exam.isEnabled === 1 }, institution?.visualizer.get(exam.type))) throw notFound();
  const now = ctx.clock.now();
  const hold = examHold(viewer, protocol, exam, institution?.holds, now);
  if (hold === null || hold.rule === 'IN_PERSON') throw conflict(ServerMessage.holdNotReleasable);
  // Only the requesting physician releases; a colleague reaching the protocol by a tag does not.
  if (!hold.canRelease) throw forbidden();
  const releasedAt = now.toISOString();
  await ctx.db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('exams')
      .set({ holdReleasedAt: releasedAt, holdReleasedBy: viewer.userId })
      .where('id', '=', exam.id)
      .where('holdReleasedAt', 'is', null)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) throw conflict(ServerMessage.holdNotReleasable);
    await recordAudit(
      ctx,
      {
        event: 'RESULT_RELEASED',
        tenant: institution?.code ?? null,
        resource: { type: 'EXAM', id: exam.id, examKey: exam.examKey, description: exam.description },
        protocolId: protocol.id,
        systemUser: auditUser(viewer),
        patients: [auditPatient(protocol)],
        macro: { rule: hold.rule, until: hold.until },
      },
      request,
      trx,
    );
    await notifyExamsChanged(ctx, trx, [exam.id]);
  });
  return { examId: exam.id, releasedAt };
}
