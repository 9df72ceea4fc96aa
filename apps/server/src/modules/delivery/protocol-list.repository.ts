import { inList, SEPARATOR, type SqlReader } from '../../db/database.js';
import { dayOf, dayStart, nextDay } from './days.js';
import type { Viewer } from './delivery.policy.js';
import {
  FIELD_SEPARATOR,
  ITEM_PROTOCOL_COLUMNS,
  listedExamsColumn,
  listedRow,
  type ListedProtocolRow,
  readerKeySql,
  selectList,
} from './delivery.repository.js';

export interface ListFilter {
  /** Inclusive lower bound on sortAt (ISO). */
  from?: string;
  /** Exclusive upper bound on sortAt (ISO). */
  to?: string;
  tagId?: string;
  institutionCode?: string;
  /** Lower-case, accent-free text. */
  search?: string;
  read?: 'read' | 'unread';
  birthDate?: string;
  /** Spec 2.7 advanced filters: lower-case part of the number, accent-free part of the patient's name. */
  protocolNumber?: string;
  patientName?: string;
  /** The institutions whose name holds the advanced filter's text (none: nothing matches). */
  institutionIds?: string[];
  orderBy: 'date' | 'patient' | 'institution';
  offset: number;
  limit: number;
}

/** A piece of WHERE clause and its parameters, in order. */
interface Clause {
  sql: string;
  params: unknown[];
}

const PAGE_SELECT = selectList('p', ITEM_PROTOCOL_COLUMNS);

const NOTHING: Clause = { sql: '1 = 0', params: [] };

function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The viewer's reach as SQL, so each role's list walks its own index (spec 6). */
function reach(r: SqlReader, viewer: Viewer, filter: ListFilter): Clause {
  const tags = [...viewer.tagIds];
  const byTags = (): Clause =>
    tags.length === 1
      ? { sql: 'p.tag_id = ?', params: [tags[0]] }
      : { sql: `p.tag_id in ${r.listParam}`, params: [r.list(tags)] };
  switch (viewer.role) {
    case 'PATIENT':
      return { sql: 'p.patient_user_id = ?', params: [viewer.userId ?? ''] };
    case 'GUEST':
    case 'SHARE':
      return {
        sql: 'p.id in (select sp.protocol_id from session_protocols sp where sp.session_id = ?)',
        params: [viewer.sessionId],
      };
    case 'PHYSICIAN': {
      // Both forms bound the requester's own sort key, so the range is read from his index.
      const range: Clause = { sql: '', params: [] };
      if (filter.from) {
        range.sql += ' and pr.sort_at >= ?';
        range.params.push(filter.from);
      }
      if (filter.to) {
        range.sql += ' and pr.sort_at < ?';
        range.params.push(filter.to);
      }
      const parts: Clause[] = [];
      const license = viewer.license;
      if (license) {
        // The license opens the protocols of the institutions that vouched for the physician only.
        if (walksRequesters(viewer)) {
          // Each requester row carries its protocol's institution.
          const vouched = inList(r, 'pr.institution_id', license.institutionIds);
          // The page walks the physician's requester index itself (see listProtocols).
          return {
            sql: `pr.crm = ? and pr.uf = ?${range.sql} and ${vouched.sql}`,
            params: [license.crm, license.uf, ...range.params, ...vouched.params],
          };
        }
        const vouched = inList(r, 'p.institution_id', license.institutionIds);
        parts.push({
          sql: `(${vouched.sql} and p.id in (select pr.protocol_id from protocol_requesters pr
            where pr.crm = ? and pr.uf = ?${range.sql}))`,
          params: [...vouched.params, license.crm, license.uf, ...range.params],
        });
      }
      if (tags.length > 0) parts.push(byTags());
      if (parts.length === 0) return NOTHING;
      if (parts.length === 1) return parts[0]!;
      return { sql: `(${parts.map((c) => c.sql).join(' or ')})`, params: parts.flatMap((c) => c.params) };
    }
    case 'EXTERNAL':
      return tags.length > 0 ? byTags() : NOTHING;
    default:
      return NOTHING;
  }
}

/**
 * A physician reached through his license alone: his page walks protocol_requesters_license in
 * date order and stops at the page, instead of sorting every protocol of the range.
 */
function walksRequesters(viewer: Viewer): boolean {
  return viewer.role === 'PHYSICIAN' && viewer.license !== null && viewer.tagIds.size === 0;
}

/** Whether a list names nothing of its protocols but their dates (and its reach). */
function plainFilter(filter: ListFilter): boolean {
  return (
    filter.orderBy === 'date' &&
    !filter.tagId &&
    !filter.institutionCode &&
    !filter.birthDate &&
    !filter.protocolNumber &&
    !filter.patientName &&
    !filter.institutionIds &&
    !filter.search &&
    !filter.read
  );
}

/**
 * Where a viewer's list rows come from: a physician reached by his license alone walks his
 * requester rows, which carry their protocol's date, institution, state and list row (`listing`,
 * kept by triggers), so a plain page of his reads nothing else; other filters join the protocol.
 */
function reachTable(viewer: Viewer, filter: ListFilter): { from: string; requesters: boolean; listing: boolean } {
  if (!walksRequesters(viewer)) return { from: 'protocols p', requesters: false, listing: false };
  return plainFilter(filter)
    ? { from: 'protocol_requesters pr', requesters: true, listing: true }
    : { from: 'protocol_requesters pr join protocols p on p.id = pr.protocol_id', requesters: true, listing: false };
}

/** Guest and share sessions reach a few protocols of their own, whatever the size of the clinic. */
function boundedReach(viewer: Viewer): boolean {
  return viewer.role === 'GUEST' || viewer.role === 'SHARE';
}

/**
 * How many protocols a range may hold for a kept plan to serve its page. A plan made without the
 * values may sort the range instead of walking the index (PostgreSQL decides by statistics): cheap
 * for a few hundred rows, slow for a heavy user's thousands.
 */
const KEPT_PLAN_MAX_TOTAL = 200;
/** Reaches seen holding more (bounded; forgetting one costs one slower page). */
const heavyReaches = new Set<string>();

/**
 * The scope of a newest-first page that one index serves in its own order: a counted list of one
 * scope (a patient, a physician reached by his license alone, an external user with one tag).
 */
function plainPageReach(viewer: Viewer, filter: ListFilter): string | null {
  const scopes = filter.orderBy === 'date' ? countedScopes(viewer, filter) : null;
  return scopes?.length === 1 && viewer.tagIds.size <= 1 ? scopes[0]! : null;
}

/** Whether the page is planned for its values, and what to remember once its total is known. */
function pagePlan(viewer: Viewer, filter: ListFilter) {
  const reach = plainPageReach(viewer, filter);
  return {
    // A guest's or share's page ranges over its own few protocols: one plan serves every call.
    planWithValues: !boundedReach(viewer) && (reach === null || heavyReaches.has(reach)),
    learn: (total: number) => {
      if (reach === null || total <= KEPT_PLAN_MAX_TOTAL) return;
      if (heavyReaches.size >= 10_000) heavyReaches.clear();
      heavyReaches.add(reach);
    },
  };
}

function conditions(r: SqlReader, viewer: Viewer, filter: ListFilter): Clause {
  const parts: Clause[] = [reach(r, viewer, filter)];
  if (walksRequesters(viewer)) {
    // The requester row's own copy of the protocol's state; its reach bounds the dates.
    parts.push({ sql: 'pr.disabled = 0', params: [] });
  } else {
    parts.push({ sql: 'p.disabled = 0', params: [] });
    if (filter.from) parts.push({ sql: 'p.sort_at >= ?', params: [filter.from] });
    if (filter.to) parts.push({ sql: 'p.sort_at < ?', params: [filter.to] });
  }
  if (filter.tagId) parts.push({ sql: 'p.tag_id = ?', params: [filter.tagId] });
  if (filter.institutionCode) parts.push({ sql: 'i.code = ?', params: [filter.institutionCode] });
  if (filter.birthDate) parts.push({ sql: 'p.patient_birth_date = ?', params: [filter.birthDate] });
  if (filter.protocolNumber) {
    parts.push({ sql: `lower(p.number) like ? escape '\\'`, params: [likePattern(filter.protocolNumber)] });
  }
  if (filter.patientName) {
    parts.push({ sql: `p.patient_name_search like ? escape '\\'`, params: [likePattern(filter.patientName)] });
  }
  if (filter.institutionIds) {
    parts.push(filter.institutionIds.length > 0 ? inList(r, 'p.institution_id', filter.institutionIds) : NOTHING);
  }
  if (filter.search) {
    const pattern = likePattern(filter.search);
    parts.push({
      sql: `(lower(p.number) like ? escape '\\' or p.patient_name_search like ? escape '\\'
        or exists (select 1 from exams e where e.protocol_id = p.id and e.is_enabled = 1
          and lower(e.description) like ? escape '\\'))`,
      params: [pattern, pattern, pattern],
    });
  }
  if (filter.read) {
    const key = readerKeySql(viewer);
    const served = `e.protocol_id = p.id and e.is_enabled = 1 and not exists (select 1 from visualizer_settings v
      where v.institution_id = p.institution_id and v.exam_type_code = e.type and v.enable = 0)`;
    const allRead = `(exists (select 1 from exams e where ${served})
      and not exists (select 1 from exams e where ${served}
        and not exists (select 1 from exam_reads er where er.exam_id = e.id and er.viewer_key = ${key.sql})))`;
    parts.push({ sql: filter.read === 'read' ? allRead : `not ${allRead}`, params: key.params });
  }
  return { sql: parts.map((c) => c.sql).join(' and '), params: parts.flatMap((c) => c.params) };
}

const ORDER: Record<ListFilter['orderBy'], string> = {
  date: 'p.sort_at desc, p.id desc',
  patient: 'p.patient_name_search asc, p.sort_at desc, p.id desc',
  institution: 'i.name asc, p.sort_at desc, p.id desc',
};

/**
 * The list scopes whose per-day counts (protocol_day_counts) add up to this list's total: the
 * patient's, the tags' of an external user, the license of a physician reached by it alone; null
 * when the list must count its rows (other filters, several kinds of reach, guests).
 */
function countedScopes(viewer: Viewer, filter: ListFilter): string[] | null {
  if (filter.search || filter.read || filter.institutionCode || filter.birthDate) return null;
  if (filter.protocolNumber || filter.patientName || filter.institutionIds) return null;
  switch (viewer.role) {
    case 'PATIENT':
      return viewer.userId && !filter.tagId ? [`patient:${viewer.userId}`] : null;
    case 'EXTERNAL': {
      const tags = [...viewer.tagIds].filter((t) => !filter.tagId || t === filter.tagId);
      return tags.length > 0 ? tags.map((t) => `tag:${t}`) : null;
    }
    case 'PHYSICIAN': {
      // One count per institution that vouched for the physician (protocol_day_counts).
      const license = viewer.license;
      return walksRequesters(viewer) && !filter.tagId
        ? license!.institutionIds.map((i) => `license:${license!.crm}/${license!.uf}@${i}`)
        : null;
    }
    default:
      return null;
  }
}

const TWO_DAYS_MS = 2 * 24 * 3600_000;

/**
 * The exact total of a list as one statement: the per-day counts of its whole days, plus the rows
 * of a day the range starts or ends inside (the default ranges run from this very moment), so a
 * range of any length reads at most one count per day and one day of rows at each end.
 */
function totalStatement(
  r: SqlReader,
  viewer: Viewer,
  filter: ListFilter,
  from: string,
): Clause & { planWithValues: boolean } {
  const rows = (range: ListFilter): Clause => {
    const where = conditions(r, viewer, range);
    return { sql: `(select count(*) from ${from} where ${where.sql})`, params: where.params };
  };
  const scopes = countedScopes(viewer, filter);
  const short = filter.from && filter.to && Date.parse(filter.to) - Date.parse(filter.from) < TWO_DAYS_MS;
  if (!scopes || short) return { ...rows(filter), planWithValues: !boundedReach(viewer) };
  const parts: Clause[] = [];
  const days = inList(r, 'c.scope', scopes);
  if (filter.from) {
    const first = dayOf(filter.from);
    const firstWhole = dayStart(first) === filter.from ? first : nextDay(first);
    days.sql += ' and c.day >= ?';
    days.params.push(firstWhole);
    if (firstWhole !== first) parts.push(rows({ ...filter, to: dayStart(firstWhole) }));
  }
  if (filter.to) {
    const last = dayOf(filter.to);
    days.sql += ' and c.day < ?';
    days.params.push(last);
    if (dayStart(last) !== filter.to) parts.push(rows({ ...filter, from: dayStart(last) }));
  }
  parts.unshift({
    sql: `(select coalesce(sum(c.n), 0) from protocol_day_counts c where ${days.sql})`,
    params: days.params,
  });
  return { sql: parts.map((c) => c.sql).join(' + '), params: parts.flatMap((c) => c.params), planWithValues: false };
}

/**
 * One page of a viewer's protocols with their exams, and the exact total: one statement for the
 * page, and a count only when the page cannot tell the total by itself.
 */
export async function listProtocols(
  r: SqlReader,
  viewer: Viewer,
  filter: ListFilter,
): Promise<{ rows: ListedProtocolRow[]; total: number }> {
  const where = conditions(r, viewer, filter);
  const table = reachTable(viewer, filter);
  let from = table.from;
  // The institution is joined only when a filter or the order names it: every protocol has one.
  if (filter.institutionCode !== undefined || filter.orderBy === 'institution') {
    from += ' join institutions i on i.id = p.institution_id';
  }
  const order =
    table.requesters && filter.orderBy === 'date' ? 'pr.sort_at desc, pr.protocol_id desc' : ORDER[filter.orderBy];
  // A plain page of a user with few protocols keeps one plan; other pages are planned for their
  // values, since a kept plan may sort a heavy user's whole range (docs/decisions.md).
  const plan = pagePlan(viewer, filter);
  let rows: ListedProtocolRow[];
  if (table.listing) {
    // The viewer's read marks: on PostgreSQL in the page's statement (a round trip saved), on
    // SQLite in one more statement, which measured cheaper there than parsing every row's listing.
    const inline = r.dialect === 'postgres';
    const read = inline ? readMarksColumn(r, viewer) : { sql: 'null', params: [] };
    const values = await r.arrays(
      `select pr.listing, ${read.sql} from ${from} where ${where.sql} order by ${order} limit ? offset ?`,
      [...read.params, ...where.params, filter.limit, filter.offset],
      { planWithValues: plan.planWithValues },
    );
    rows = inline ? values.map(listingRow) : await withReadMarks(r, viewer, values.map(listingRow));
  } else {
    // The page brings its exams along: one statement instead of a second one over the page's ids.
    const exams = listedExamsColumn(r, readerKeySql(viewer));
    // Rows come as arrays (one object literal each is cheaper than the driver's objects).
    const values = await r.arrays(
      `select ${PAGE_SELECT}, ${exams.sql} from ${from} where ${where.sql} order by ${order} limit ? offset ?`,
      [...exams.params, ...where.params, filter.limit, filter.offset],
      { planWithValues: plan.planWithValues },
    );
    rows = values.map(listedRow);
  }
  // A page that is not full tells the total by itself; counting is for full or empty later pages.
  if ((rows.length > 0 || filter.offset === 0) && rows.length < filter.limit) {
    return { rows, total: filter.offset + rows.length };
  }
  const total = totalStatement(r, viewer, filter, from);
  // A counted total reads a row per day and at most a day of protocols at each end: one plan
  // serves every call. Counting rows is planned for its values.
  const [count] = await r.all<{ n: number }>(`select ${total.sql} as "n"`, total.params, {
    planWithValues: total.planWithValues,
  });
  const n = Number(count?.n ?? 0);
  plan.learn(n);
  return { rows, total: n };
}

/**
 * The date of the viewer's first live protocol on or after `from` (any filter aside), or null: a
 * range starting at `from` keeps the same protocols while its start moves no further than this.
 */
export async function firstOfReach(r: SqlReader, viewer: Viewer, from: string): Promise<string | null> {
  const filter: ListFilter = { from, orderBy: 'date', offset: 0, limit: 1 };
  const { from: source, requesters } = reachTable(viewer, filter);
  const where = conditions(r, viewer, filter);
  const sortAt = requesters ? 'pr.sort_at' : 'p.sort_at';
  const [first] = await r.all<{ sortAt: string }>(
    `select ${sortAt} as "sortAt" from ${source} where ${where.sql} order by ${sortAt} limit 1`,
    where.params,
  );
  return first?.sortAt ?? null;
}

/**
 * PostgreSQL: the viewer's read marks of a requester row's exams, by the exam ids its `listing`
 * ends with: the ids joined by SEPARATOR, or null when he read none of them.
 */
function readMarksColumn(r: SqlReader, viewer: Viewer): Clause {
  const key = readerKeySql(viewer);
  return {
    sql: `(select ${r.joined('er.exam_id', 'er.exam_id')} from exam_reads er
      where er.viewer_key = ${key.sql} and er.exam_id in (select json_array_elements_text(pr.listing::json -> 13)))`,
    params: key.params,
  };
}

/** The rows with the viewer's read marks of their exams, read in one statement over their ids. */
async function withReadMarks(r: SqlReader, viewer: Viewer, rows: ListedProtocolRow[]): Promise<ListedProtocolRow[]> {
  const ids: string[] = [];
  for (const row of rows) {
    for (const exam of row.exams ? row.exams.split(SEPARATOR) : [])
      ids.push(exam.slice(0, exam.indexOf(FIELD_SEPARATOR)));
  }
  if (ids.length === 0) return rows;
  const key = readerKeySql(viewer);
  const read = await r.all<{ examId: string }>(
    `select er.exam_id as "examId" from exam_reads er where er.viewer_key = ${key.sql} and er.exam_id in ${r.listParam}`,
    [...key.params, r.list(ids)],
  );
  if (read.length === 0) return rows;
  const readExamIds = new Set(read.map((e) => e.examId));
  for (const row of rows) row.readExamIds = readExamIds;
  return rows;
}

/** A physician's list row from its requester row's `listing` and his read marks (see reachTable). */
function listingRow(values: unknown[]): ListedProtocolRow {
  const [listing, read] = values;
  if (typeof listing !== 'string') throw new Error('A requester row has no list row');
  const row = listedRow(JSON.parse(listing) as unknown[]);
  if (typeof read === 'string') row.readExamIds = new Set(read.split(SEPARATOR));
  return row;
}

/** The institutions whose name, accents and case aside, holds `text` (a handful of rows). */
export async function institutionIdsNamed(r: SqlReader, text: string, fold: (s: string) => string): Promise<string[]> {
  const rows = await r.all<{ id: string; name: string }>('select id, name from institutions', []);
  return rows.filter((row) => fold(row.name).includes(text)).map((row) => row.id);
}
