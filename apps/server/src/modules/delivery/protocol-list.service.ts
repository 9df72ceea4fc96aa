import { DEFAULT_RANGE, PAGE_SIZE, PAGE_SIZE_MAX } from '@portal/shared/limits';
import type { ProtocolItem, ProtocolListQuery } from '@portal/shared/schemas/delivery';
import type { AppContext } from '../../context.js';
import { forbidden } from '../../lib/errors.js';
import { JsonAnswer } from '../../lib/json-answer.js';
import type { AuthContext } from '../../plugins/auth.js';
import { dayEnd, dayStart } from './days.js';
import { buildListItems, buildListPage, type DeliveryViewer, loadViewer } from './delivery.service.js';
import { listAnswersOf } from './list-cache.js';
import { firstOfReach, institutionIdsNamed, listProtocols, type ListFilter } from './protocol-list.repository.js';

export type ListKind = 'dashboard' | 'physician' | 'external' | 'guestForm';

export interface Paged<T> {
  items: T[];
  total: number;
  page: number;
  size: number;
}

/** Lower-case and accent-free, the way patient names are stored for search. */
export function searchText(value: string): string {
  return value
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase()
    .trim();
}

/** An advanced filter's text as stored for search, or undefined when blank. */
function advancedText(value: string | undefined): string | undefined {
  return value ? searchText(value) || undefined : undefined;
}

function defaultFrom(now: Date, range: { amount: number; unit: 'day' | 'month' }): string {
  const d = new Date(now);
  if (range.unit === 'month') d.setUTCMonth(d.getUTCMonth() - range.amount);
  else d.setUTCDate(d.getUTCDate() - range.amount);
  return d.toISOString();
}

function rangeOf(
  ctx: AppContext,
  query: ProtocolListQuery,
  fallback: { amount: number; unit: 'day' | 'month' } | null,
) {
  if (query.initialDate || query.finalDate) {
    return {
      from: query.initialDate ? dayStart(query.initialDate) : undefined,
      to: query.finalDate ? dayEnd(query.finalDate) : undefined,
    };
  }
  return { from: fallback ? defaultFrom(ctx.clock.now(), fallback) : undefined, to: undefined };
}

const ROLES_OF: Record<ListKind, ReadonlyArray<string>> = {
  dashboard: ['PATIENT', 'GUEST', 'SHARE'],
  guestForm: ['GUEST', 'SHARE', 'PATIENT'],
  physician: ['PHYSICIAN'],
  // A physician's "external exams" (spec 2.7's variant) are those his institution groups bring him.
  external: ['EXTERNAL', 'PHYSICIAN'],
};

/** Who asks for which list, and the filter of the call (with its role's defaults). */
async function listCall(ctx: AppContext, auth: AuthContext, kind: ListKind, query: ProtocolListQuery) {
  const caller = loadViewer(auth);
  if (!ROLES_OF[kind].includes(caller.role)) throw forbidden();
  // A physician's list by tags reaches through his tags alone, as an external user's does.
  const viewer = kind === 'external' && caller.role === 'PHYSICIAN' ? { ...caller, license: null } : caller;
  const guest = viewer.role === 'GUEST' || viewer.role === 'SHARE';
  const defaults =
    kind === 'physician'
      ? { size: PAGE_SIZE.physician, range: DEFAULT_RANGE.physician }
      : kind === 'external'
        ? { size: PAGE_SIZE.external, range: DEFAULT_RANGE.external }
        : { size: PAGE_SIZE.patient, range: guest ? null : DEFAULT_RANGE.patient };
  const size = Math.min(query.size ?? defaults.size, PAGE_SIZE_MAX);
  // Written out rather than spread: V8 gave the spread literal about 2 KB of its old generation
  // per call, which only a full collection frees (docs/decisions.md, pretenuring).
  const range = rangeOf(ctx, query, defaults.range);
  const filter: ListFilter = {
    from: range.from,
    to: range.to,
    tagId: query.tag || undefined,
    institutionCode: query.institutionCode || undefined,
    search: query.search ? searchText(query.search) || undefined : undefined,
    read: query.read === 'read' || query.read === 'unread' ? query.read : undefined,
    birthDate: query.birthdate,
    protocolNumber: advancedText(query.protocol),
    patientName: advancedText(query.patient),
    institutionIds: query.institution?.trim()
      ? await institutionIdsNamed(ctx.database.reader, searchText(query.institution), searchText)
      : undefined,
    orderBy: query.orderBy ?? 'date',
    offset: (query.page - 1) * size,
    limit: size,
  };
  // A default range starts at this very moment: its start is not part of what names the answer.
  const movingStart = !query.initialDate && !query.finalDate && defaults.range !== null;
  return { viewer, filter, size, movingStart };
}

/** One page of the protocol lists of spec 2.7 and 7.3-7.4, each role over its own reach. */
async function listPage(
  ctx: AppContext,
  viewer: DeliveryViewer,
  kind: ListKind,
  query: ProtocolListQuery,
  filter: ListFilter,
  size: number,
): Promise<Paged<ProtocolItem> & { until: string | null }> {
  let { rows, total } = await listProtocols(ctx.database.reader, viewer, filter);
  if (viewer.role === 'PATIENT' && query.forceRefresh && total === 0 && query.page === 1) {
    // Spec 9: a forced refresh that finds nothing in the range falls back to the latest protocols.
    ({ rows, total } = await listProtocols(ctx.database.reader, viewer, { orderBy: 'date', offset: 0, limit: 10 }));
  }
  const { items, until } = await buildListPage(ctx, viewer, rows, { external: kind === 'external' });
  return { items, total, page: query.page, size, until };
}

/** Roles whose list answers are kept: their revisions (list_revisions) cover all their lists show. */
const KEPT_ROLES: ReadonlySet<string> = new Set(['PATIENT', 'PHYSICIAN', 'EXTERNAL']);

/**
 * A list call's answer as the JSON it is sent as. Patients', physicians' and external users'
 * answers are kept in memory, with their compressed forms, and served again while nothing they
 * show has changed (`ListAnswers`); `forceRefresh` builds the answer anew (spec 9). Every call is
 * authorised by its session first.
 */
export async function listAnswer(
  ctx: AppContext,
  auth: AuthContext,
  kind: ListKind,
  query: ProtocolListQuery,
): Promise<JsonAnswer> {
  const { viewer, filter, size, movingStart } = await listCall(ctx, auth, kind, query);
  let expiresAt: string | null = null;
  const answer = async () => {
    const { until, ...page } = await listPage(ctx, viewer, kind, query, filter, size);
    expiresAt = until;
    return new JsonAnswer(JSON.stringify({ data: page }));
  };
  // A forced call neither reads nor keeps an answer: its patient fallback is not the list's.
  if (!KEPT_ROLES.has(viewer.role) || query.forceRefresh) return answer();
  const key = JSON.stringify([
    kind,
    viewer.role,
    viewer.userId,
    viewer.license,
    [...viewer.tagIds].sort(),
    { ...filter, from: movingStart ? null : filter.from },
  ]);
  const answers = listAnswersOf(ctx.database.reader);
  const revisions = { listRevision: auth.listRevision, settingsRevision: auth.settingsRevision };
  const kept = answers.get(key, revisions, filter.from, ctx.clock.now().toISOString());
  if (kept !== undefined) return kept;
  const start = movingStart ? filter.from : undefined;
  const [body, until] = await Promise.all([
    answer(),
    start ? firstOfReach(ctx.database.reader, viewer, start) : Promise.resolve(null),
  ]);
  answers.set(key, revisions, body, start ? { from: start, until } : null, expiresAt);
  return body;
}

/** Spec 7.3: the patient's latest protocols, whatever their date. */
export async function topForPatient(
  ctx: AppContext,
  auth: AuthContext,
  total: number,
  institutionCode: string | undefined,
): Promise<Paged<ProtocolItem>> {
  const viewer = loadViewer(auth);
  if (viewer.role !== 'PATIENT') throw forbidden();
  const { rows } = await listProtocols(ctx.database.reader, viewer, {
    orderBy: 'date',
    offset: 0,
    limit: total,
    institutionCode: institutionCode || undefined,
  });
  const items = await buildListItems(ctx, viewer, rows, {});
  return { items, total: items.length, page: 1, size: total };
}
