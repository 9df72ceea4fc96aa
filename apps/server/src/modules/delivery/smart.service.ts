import { jwtVerify, SignJWT } from 'jose';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { newId } from '../../lib/ids.js';
import { notFound, unauthorized } from '../../lib/errors.js';
import type { AuthContext } from '../../plugins/auth.js';
import { recordAudit } from '../../plugins/audit.js';
import { parseInstitutionSettings } from '../institutions/institution.service.js';
import {
  auditPatient,
  auditUser,
  authoriseProtocol,
  institutionOf,
  loadViewer,
  servedExams,
} from './delivery.service.js';

/** Lifetime of the token handed to an institution's SMART system. */
const SMART_TOKEN_TTL_S = 300;
const AUDIENCE = 'smart-interlocution';

export function isSmartExam(examKey: string): boolean {
  return examKey.toUpperCase().startsWith('SMART');
}

async function smartExam(ctx: AppContext, auth: AuthContext, institutionId: string, examId: string) {
  const viewer = loadViewer(auth);
  const exam = await ctx.db
    .selectFrom('exams')
    .select(['id', 'protocolId'])
    .where('id', '=', examId)
    .executeTakeFirst();
  if (!exam) throw notFound();
  const protocol = await authoriseProtocol(ctx, viewer, exam.protocolId);
  const served = ((await servedExams(ctx, viewer, [protocol])).get(protocol.id) ?? []).find(
    (e) => e.row.id === exam.id,
  );
  if (!served || !isSmartExam(served.row.examKey) || protocol.institutionId !== institutionId) throw notFound();
  const institution = await institutionOf(ctx, viewer, institutionId);
  const smart = institution?.settings.smart;
  if (!institution || !smart) throw notFound();
  return { viewer, protocol, exam: served.row, institution, smart };
}

/**
 * GET interlocution/smart/auth: a short-lived token, signed with the institution's SMART secret,
 * naming the exam and who opens it; the institution's system trusts it instead of a password.
 */
export async function smartAuth(
  ctx: AppContext,
  auth: AuthContext,
  query: { institution: string; exam: string },
  request: FastifyRequest,
) {
  const { viewer, protocol, exam, institution, smart } = await smartExam(ctx, auth, query.institution, query.exam);
  const now = Math.floor(ctx.clock.now().getTime() / 1000);
  const token = await new SignJWT({
    exam: exam.examKey,
    protocol: protocol.number,
    institution: institution.code,
    role: viewer.role,
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(viewer.userId ?? `session:${viewer.sessionId}`)
    .setAudience(AUDIENCE)
    .setIssuer(ctx.config.publicUrl)
    .setJti(newId())
    .setIssuedAt(now)
    .setExpirationTime(now + SMART_TOKEN_TTL_S)
    .sign(new TextEncoder().encode(smart.secret));
  await recordAudit(
    ctx,
    {
      event: 'SMART_AUTH',
      tenant: institution.code,
      resource: { type: 'EXAM', id: exam.id, examKey: exam.examKey },
      protocolId: protocol.id,
      systemUser: auditUser(viewer),
      sharedWith: viewer.sharedWith,
      patients: [auditPatient(protocol)],
    },
    request,
  );
  return { token, url: smart.url, expiresIn: SMART_TOKEN_TTL_S };
}

/**
 * POST interlocution/smart/updatestatus: the institution's system reports an exam's status,
 * proving itself with a token we signed for that exam (checked with the institution's secret).
 */
export async function smartUpdateStatus(
  ctx: AppContext,
  body: { authentication: string; request: string; exam: string; status?: string },
) {
  const exam = await ctx.db
    .selectFrom('exams as e')
    .innerJoin('protocols as p', 'p.id', 'e.protocolId')
    .innerJoin('institutions as i', 'i.id', 'p.institutionId')
    .select(['e.id', 'e.examKey', 'p.id as protocolId', 'p.number', 'p.institutionId', 'i.settings', 'i.code'])
    .where('p.id', '=', body.request)
    .where((eb) => eb.or([eb('e.id', '=', body.exam), eb('e.examKey', '=', body.exam)]))
    .executeTakeFirst();
  const smart = exam ? parseInstitutionSettings(exam.settings).smart : null;
  if (!exam || !smart) throw notFound();
  try {
    const { payload } = await jwtVerify(body.authentication, new TextEncoder().encode(smart.secret), {
      algorithms: ['HS256'],
      audience: AUDIENCE,
      currentDate: ctx.clock.now(),
    });
    if (payload.exam !== exam.examKey || payload.protocol !== exam.number || payload.institution !== exam.code) {
      throw new Error('token names another exam');
    }
  } catch {
    throw unauthorized();
  }
  const status = (body.status ?? 'VIEWED').toUpperCase();
  await ctx.db
    .insertInto('smartStatus')
    .values({
      id: newId(),
      institutionId: exam.institutionId,
      protocolId: exam.protocolId,
      examId: exam.id,
      status,
      createdAt: ctx.clock.now().toISOString(),
    })
    .execute();
  return { exam: exam.id, status };
}
