import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { Viewer } from './delivery.policy.js';
import { PROTOCOL_COLUMNS, type ProtocolRow } from './delivery.repository.js';

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
  orderBy: 'date' | 'patient' | 'institution';
  offset: number;
  limit: number;
}

type Eb = ExpressionBuilder<Database & { p: Database['protocols']; i: Database['institutions'] }, 'p' | 'i'>;

function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The viewer's reach as SQL, so each role's list walks its own index (spec 6). */
function reach(eb: Eb, viewer: Viewer, filter: ListFilter): Expression<SqlBool> {
  const tags = [...viewer.tagIds];
  switch (viewer.role) {
    case 'PATIENT':
      return eb('p.patientUserId', '=', viewer.userId ?? '');
    case 'GUEST':
    case 'SHARE':
      return eb(
        'p.id',
        'in',
        eb
          .selectFrom('sessionProtocols')
          .select('sessionProtocols.protocolId')
          .where('sessionId', '=', viewer.sessionId),
      );
    case 'PHYSICIAN': {
      const parts: Expression<SqlBool>[] = [];
      if (viewer.license) {
        let sub = eb
          .selectFrom('protocolRequesters as pr')
          .select('pr.protocolId')
          .where('pr.crm', '=', viewer.license.crm)
          .where('pr.uf', '=', viewer.license.uf);
        if (filter.from) sub = sub.where('pr.sortAt', '>=', filter.from);
        if (filter.to) sub = sub.where('pr.sortAt', '<', filter.to);
        parts.push(eb('p.id', 'in', sub));
      }
      if (tags.length > 0) parts.push(eb('p.tagId', 'in', tags));
      return parts.length > 0 ? eb.or(parts) : sql<SqlBool>`1 = 0`;
    }
    case 'EXTERNAL':
      return tags.length > 0 ? eb('p.tagId', 'in', tags) : sql<SqlBool>`1 = 0`;
    default:
      return sql<SqlBool>`1 = 0`;
  }
}

/** The viewer's read-state key as SQL (guests read as the protocol's patient). */
function viewerKeySql(viewer: Viewer) {
  if (viewer.role === 'GUEST') return sql<string>`coalesce(p.patient_user_id, 'protocol:' || p.id)`;
  if (viewer.role === 'SHARE') return sql<string>`''`;
  return sql<string>`${viewer.userId ?? ''}`;
}

function conditions(eb: Eb, viewer: Viewer, filter: ListFilter): Expression<SqlBool>[] {
  const out: Expression<SqlBool>[] = [reach(eb, viewer, filter), eb('p.disabled', '=', 0)];
  if (filter.from) out.push(eb('p.sortAt', '>=', filter.from));
  if (filter.to) out.push(eb('p.sortAt', '<', filter.to));
  if (filter.tagId) out.push(eb('p.tagId', '=', filter.tagId));
  if (filter.institutionCode) out.push(eb('i.code', '=', filter.institutionCode));
  if (filter.birthDate) out.push(eb('p.patientBirthDate', '=', filter.birthDate));
  if (filter.search) {
    const pattern = likePattern(filter.search);
    out.push(
      eb.or([
        sql<SqlBool>`lower(p.number) like ${pattern} escape '\\'`,
        sql<SqlBool>`p.patient_name_search like ${pattern} escape '\\'`,
        sql<SqlBool>`exists (select 1 from exams e where e.protocol_id = p.id and e.is_enabled = 1
          and lower(e.description) like ${pattern} escape '\\')`,
      ]),
    );
  }
  if (filter.read) {
    const key = viewerKeySql(viewer);
    const served = sql`e.protocol_id = p.id and e.is_enabled = 1 and not exists (select 1 from visualizer_settings v
      where v.institution_id = p.institution_id and v.exam_type_code = e.type and v.enable = 0)`;
    const allRead = sql<SqlBool>`(exists (select 1 from exams e where ${served})
      and not exists (select 1 from exams e where ${served}
        and not exists (select 1 from exam_reads r where r.exam_id = e.id and r.viewer_key = ${key})))`;
    out.push(filter.read === 'read' ? allRead : sql<SqlBool>`not ${allRead}`);
  }
  return out;
}

export async function listProtocols(
  db: Db,
  viewer: Viewer,
  filter: ListFilter,
): Promise<{ rows: ProtocolRow[]; total: number }> {
  // The institution is joined only when a filter or the order names it: every protocol has one.
  const withInstitution = filter.institutionCode !== undefined || filter.orderBy === 'institution';
  const from = withInstitution
    ? joinInstitutions(db)
    : (db.selectFrom('protocols as p') as unknown as ReturnType<typeof joinInstitutions>);
  const base = from.where((eb) => eb.and(conditions(eb as unknown as Eb, viewer, filter)));
  let page = base.select(PROTOCOL_COLUMNS.map((c) => `p.${c}` as const));
  if (filter.orderBy === 'patient') page = page.orderBy('p.patientNameSearch', 'asc');
  if (filter.orderBy === 'institution') page = page.orderBy('i.name', 'asc');
  const rows = await page
    .orderBy('p.sortAt', 'desc')
    .orderBy('p.id', 'desc')
    .limit(filter.limit)
    .offset(filter.offset)
    .execute();
  // A page that is not full tells the total by itself; counting is for full or empty later pages.
  if ((rows.length > 0 || filter.offset === 0) && rows.length < filter.limit) {
    return { rows, total: filter.offset + rows.length };
  }
  const countRow = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
  return { rows, total: Number(countRow?.n ?? 0) };
}

function joinInstitutions(db: Db) {
  return db.selectFrom('protocols as p').innerJoin('institutions as i', 'i.id', 'p.institutionId');
}
