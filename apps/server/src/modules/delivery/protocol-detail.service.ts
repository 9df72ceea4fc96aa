import type { Exam, ProtocolItem } from '@portal/shared/schemas/delivery';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { notFound } from '../../lib/errors.js';
import type { AuthContext } from '../../plugins/auth.js';
import { recordAudit } from '../../plugins/audit.js';
import {
  auditPatient,
  auditUser,
  authoriseProtocol,
  buildProtocolItems,
  institutionOf,
  loadViewer,
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
  const [item] = await buildProtocolItems(ctx, viewer, [protocol], { external: viewer.role === 'EXTERNAL' });
  if (!item) throw notFound();
  const institution = await institutionOf(ctx, viewer, protocol.institutionId);
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

export async function protocolExams(
  ctx: AppContext,
  auth: AuthContext,
  protocolId: string | undefined,
  request: FastifyRequest,
): Promise<Exam[]> {
  return (await protocolDetail(ctx, auth, protocolId, request)).exams ?? [];
}
