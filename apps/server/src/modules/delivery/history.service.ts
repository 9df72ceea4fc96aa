import { DEFAULT_RANGE } from '@portal/shared/limits';
import { formatBrDate } from '@portal/shared/formats';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { forbidden } from '../../lib/errors.js';
import type { AuthContext } from '../../plugins/auth.js';
import { recordAudit } from '../../plugins/audit.js';
import { canViewHistory, isExamServed } from './delivery.policy.js';
import { auditUser, institutionsOf, loadViewer } from './delivery.service.js';
import { isWithheld } from './holds.js';
import { type HistoryPoint, historyPoints } from './history.repository.js';
import { dayEnd, dayOf, dayStart } from './days.js';

interface Range {
  initialDate?: string;
  finalDate?: string;
}

function rangeOf(ctx: AppContext, q: Range): { from: string; to: string } {
  const now = ctx.clock.now();
  const from = new Date(now);
  from.setUTCMonth(from.getUTCMonth() - DEFAULT_RANGE.history.amount);
  return {
    from: q.initialDate ? dayStart(q.initialDate) : from.toISOString(),
    to: q.finalDate ? dayEnd(q.finalDate) : new Date(now.getTime() + 24 * 3600_000).toISOString(),
  };
}

/** Exam types are per institution: the id carries institution, type and description. */
export function examTypeId(p: Pick<HistoryPoint, 'institutionId' | 'type' | 'description'>): string {
  return Buffer.from(JSON.stringify([p.institutionId, p.type, p.description])).toString('base64url');
}
function parseExamTypeId(id: string): { institutionId: string; type: string; description: string } | null {
  try {
    const v = JSON.parse(Buffer.from(id, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(v) && v.length === 3) {
      const [institutionId, type, description] = v as unknown[];
      if (typeof institutionId === 'string' && typeof type === 'string' && typeof description === 'string') {
        return { institutionId, type, description };
      }
    }
  } catch {
    // An id we did not make finds nothing.
  }
  return null;
}

async function patientPoints(ctx: AppContext, auth: AuthContext, q: Range, only?: Parameters<typeof historyPoints>[3]) {
  const viewer = loadViewer(auth);
  if (!canViewHistory(viewer.role) || !viewer.userId) throw forbidden();
  const points = await historyPoints(ctx.db, viewer.userId, rangeOf(ctx, q), only);
  const institutions = await institutionsOf(
    ctx,
    viewer,
    points.map((p) => p.institutionId),
  );
  const now = ctx.clock.now();
  return {
    viewer,
    institutions,
    // A result held from the patient gives the history no value (release holds, issue 22).
    points: points.filter((p) => {
      const institution = institutions.get(p.institutionId);
      return (
        isExamServed({ isEnabled: true }, institution?.visualizer.get(p.type)) &&
        !isWithheld(viewer, p, p, institution?.holds, now)
      );
    }),
  };
}

function uniqueById<T extends { id: string; name: string }>(items: T[]): T[] {
  const seen = new Map<string, T>();
  for (const item of items) if (!seen.has(item.id)) seen.set(item.id, item);
  return [...seen.values()].sort((a, b) => a.name.localeCompare(b.name, 'pt-BR'));
}

/** GET /api/delivery/examtypes/range: the exam types with analytes in the period. */
export async function examTypesInRange(ctx: AppContext, auth: AuthContext, q: Range) {
  const { points } = await patientPoints(ctx, auth, q);
  return uniqueById(points.map((p) => ({ id: examTypeId(p), name: p.description })));
}

/** GET /api/delivery/history/attributes: the analytes of one exam type in the period. */
export async function attributesOf(ctx: AppContext, auth: AuthContext, q: Range & { examTypeInstitutionId: string }) {
  const only = parseExamTypeId(q.examTypeInstitutionId);
  if (!only) {
    if (!canViewHistory(loadViewer(auth).role)) throw forbidden();
    return [];
  }
  const { points } = await patientPoints(ctx, auth, q, only);
  return uniqueById(points.map((p) => ({ id: p.code, name: p.name })));
}

function referenceOf(p: HistoryPoint): string {
  if (p.referenceMin !== null && p.referenceMax !== null) return `${p.referenceMin} a ${p.referenceMax}`;
  if (p.referenceText) return p.referenceText;
  if (p.referenceMin !== null) return `>= ${p.referenceMin}`;
  if (p.referenceMax !== null) return `<= ${p.referenceMax}`;
  return '';
}

/** GET /api/delivery/history: contract 8's table (one column per date, ascending) and chart series. */
export async function historyOf(
  ctx: AppContext,
  auth: AuthContext,
  q: Range & { examTypeInstitutionId: string; attributeId: string },
  request: FastifyRequest,
) {
  const only = parseExamTypeId(q.examTypeInstitutionId);
  const { viewer, points, institutions } = only
    ? await patientPoints(ctx, auth, q, { ...only, code: q.attributeId })
    : { viewer: loadViewer(auth), points: [] as HistoryPoint[], institutions: undefined };
  if (!canViewHistory(viewer.role)) throw forbidden();
  // One value per day: the latest result of that day wins.
  const byDay = new Map<string, HistoryPoint>();
  for (const p of [...points].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0))) byDay.set(dayOf(p.at), p);
  const days = [...byDay.keys()].sort();
  const chosen = days.map((d) => byDay.get(d)!);
  const first = chosen[0];
  const last = chosen[chosen.length - 1];
  const label = first ? (first.unit ? `${first.name} (${first.unit})` : first.name) : '';
  await recordAudit(
    ctx,
    {
      event: 'HISTORY_VIEWED',
      resource: { type: 'HISTORY', examType: only?.description ?? null, attribute: q.attributeId },
      systemUser: auditUser(viewer),
      macro: { initialDate: q.initialDate ?? null, finalDate: q.finalDate ?? null, points: chosen.length },
    },
    request,
  );
  return {
    columns: [only?.description ?? '', ...days.map((d) => formatBrDate(d))],
    rows: first
      ? [
          [label, ...chosen.map((p) => p.value)],
          ['Referência', ...chosen.map(referenceOf)],
        ]
      : [],
    series: chosen.map((p) => ({
      date: p.at,
      value: p.valueNumber ?? p.value,
      unit: p.unit,
      referenceMin: p.referenceMin,
      referenceMax: p.referenceMax,
      abnormalFlag: p.abnormalFlag,
    })),
    // The latest protocol names the patient, as the institution last sent him.
    patient: last ? { name: last.patientName, birthDate: last.patientBirthDate } : null,
    institution:
      only && first ? { id: only.institutionId, name: institutions?.get(only.institutionId)?.name ?? '' } : null,
  };
}
