import type { Exam, ProtocolItem } from '@portal/shared/schemas/delivery';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { notFound } from '../../lib/errors.js';
import type { AuthContext } from '../../plugins/auth.js';
import { recordAudit } from '../../plugins/audit.js';
import { type ExamWithResources, readerKeySql, readProtocolDetail } from './delivery.repository.js';
import {
  auditPatient,
  auditUser,
  authorisedProtocol,
  institutionOf,
  loadViewer,
  protocolDetailItem,
} from './delivery.service.js';

/**
 * One protocol with its exams (spec 2.8); the open is traced as VIEW_PROTOCOL. The protocol is
 * authorised before anything read with it is used (on PostgreSQL it comes in the same statement as
 * its exams, resources, read marks and DICOM studies).
 */
export async function protocolDetail(
  ctx: AppContext,
  auth: AuthContext,
  protocolId: string | undefined,
  request: FastifyRequest,
): Promise<ProtocolItem> {
  const viewer = loadViewer(auth);
  if (!protocolId) throw notFound();
  const { protocol, exams } = await readProtocolDetail(ctx.database.reader, protocolId, readerKeySql(viewer), (facts) =>
    authorisedProtocol(viewer, facts),
  );
  const institution = await institutionOf(ctx, viewer, protocol.institutionId);
  const item = protocolDetailItem(ctx, viewer, protocol, institution, exams, {
    external: viewer.role === 'EXTERNAL',
  });
  attachDicomStudies(item.exams ?? [], exams);
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
function attachDicomStudies(exams: Exam[], read: readonly ExamWithResources[]): void {
  const studies = new Map(read.map((e) => [e.row.id, e.studyUid]));
  for (const exam of exams) {
    // A result held from the viewer shows no study either.
    const hidden = exam.hideImageButtonExam || exam.hold?.withheld === true;
    exam.dicomStudyUid = hidden ? null : (studies.get(exam.id) ?? null);
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
