import type { Exam, ProtocolItem } from '@portal/shared/schemas/delivery';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { notFound } from '../../lib/errors.js';
import type { AuthContext } from '../../plugins/auth.js';
import { recordAudit } from '../../plugins/audit.js';
import { studyUidsOfExamKeys } from '../dicom/dicom.repository.js';
import {
  auditPatient,
  auditUser,
  authoriseProtocol,
  institutionOf,
  loadViewer,
  protocolDetailItem,
} from './delivery.service.js';

/** One protocol with its exams (spec 2.8); the open is traced as VIEW_PROTOCOL. */
export async function protocolDetail(
  ctx: AppContext,
  auth: AuthContext,
  protocolId: string | undefined,
  request: FastifyRequest,
): Promise<ProtocolItem> {
  const viewer = loadViewer(auth);
  if (!protocolId) throw notFound();
  const protocol = await authoriseProtocol(ctx, viewer, protocolId);
  const [item, institution] = await Promise.all([
    protocolDetailItem(ctx, viewer, protocol, { external: viewer.role === 'EXTERNAL' }),
    institutionOf(ctx, viewer, protocol.institutionId),
  ]);
  await attachDicomStudies(ctx, protocol.institutionId, item.exams ?? []);
  // Answered only once the trace is committed (grouped with other calls' writes).
  await recordAudit(
    ctx,
    {
      event: 'VIEW_PROTOCOL',
      tenant: institution?.code ?? null,
      resource: { type: 'PROTOCOL', id: protocol.id, number: protocol.number },
      protocolId: protocol.id,
      systemUser: auditUser(viewer),
      sharedWith: viewer.sharedWith,
      patients: [auditPatient(protocol)],
    },
    request,
  );
  return item;
}

/**
 * Contract 9: an exam whose examKey is the Accession Number of a study the institution sent shows
 * it (unless the institution hides that exam type's image button), whichever arrived first.
 */
async function attachDicomStudies(ctx: AppContext, institutionId: string, exams: Exam[]): Promise<void> {
  // A result held from the viewer shows no study either.
  const hidden = (e: Exam) => e.hideImageButtonExam || e.hold?.withheld === true;
  const shown = exams.filter((e) => !hidden(e));
  const studies = await studyUidsOfExamKeys(
    ctx.database.reader,
    institutionId,
    shown.map((e) => e.examKey),
  );
  for (const exam of exams) {
    exam.dicomStudyUid = hidden(exam) ? null : (studies.get(exam.examKey) ?? null);
  }
}

export async function protocolExams(
  ctx: AppContext,
  auth: AuthContext,
  protocolId: string | undefined,
  request: FastifyRequest,
): Promise<Exam[]> {
  return (await protocolDetail(ctx, auth, protocolId, request)).exams ?? [];
}
