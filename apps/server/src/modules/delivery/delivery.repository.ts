import { type Db, inList, SEPARATOR, type SqlReader } from '../../db/database.js';
import type { GroupedWrites } from '../../db/grouped-writes.js';
import type { Selectable } from 'kysely';
import type { ExamTable, InstitutionTable, ProtocolTable, ResourceTable } from '../../db/schema.js';
import type { ProtocolFacts, Viewer, VisualizerSetting } from './delivery.policy.js';
import type { HoldExamFacts, HoldRuleSetting } from './holds.js';

export type ProtocolRow = Omit<ProtocolTable, 'passwordHash'>;
export type ExamRow = Selectable<ExamTable>;
export type ResourceRow = ResourceTable;
export type InstitutionRow = Pick<InstitutionTable, 'id' | 'code' | 'name' | 'token' | 'settings'>;

export const PROTOCOL_COLUMNS = [
  'id',
  'institutionId',
  'number',
  'requestedAt',
  'sortAt',
  'tagId',
  'patientExternalId',
  'patientName',
  'patientNameSearch',
  'patientBirthDate',
  'patientGender',
  'patientEmail',
  'patientPhone',
  'patientCpf',
  'patientMotherName',
  'patientPreferredName',
  'patientUserId',
  'disabled',
  'createdAt',
  'updatedAt',
] as const;

/** What a protocol item shows of its protocol row. */
export const ITEM_PROTOCOL_COLUMNS = [
  'id',
  'institutionId',
  'number',
  'requestedAt',
  'tagId',
  'patientExternalId',
  'patientName',
  'patientBirthDate',
  'patientGender',
  'patientEmail',
  'patientPhone',
  'patientUserId',
] as const satisfies ReadonlyArray<(typeof PROTOCOL_COLUMNS)[number]>;
export type ItemProtocolRow = Pick<ProtocolRow, (typeof ITEM_PROTOCOL_COLUMNS)[number]>;

/** What a list needs of an exam and of a resource: lists never show exam details. */
export const EXAM_SUMMARY_COLUMNS = ['id', 'protocolId', 'type', 'isEnabled', 'rectificationStatus'] as const;
export const RESOURCE_SUMMARY_COLUMNS = ['id', 'examId', 'type', 'signedStorageKey'] as const;
export type ExamSummaryRow = Pick<ExamRow, (typeof EXAM_SUMMARY_COLUMNS)[number]>;
export type ResourceSummaryRow = Pick<ResourceRow, (typeof RESOURCE_SUMMARY_COLUMNS)[number]>;

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** `a.some_column as "someColumn", …`: hand-written reads answer with the rows' camelCase names. */
export function selectList(alias: string, columns: readonly string[]): string {
  return columns.map((c) => `${alias}.${snake(c)} as "${c}"`).join(', ');
}

/** The facts the access policy needs about one protocol, or undefined when it does not exist. */
export async function protocolFacts(
  db: Db,
  protocolId: string,
): Promise<(ProtocolRow & Pick<ProtocolFacts, 'requesterLicenses'>) | undefined> {
  const row = await db.selectFrom('protocols').select(PROTOCOL_COLUMNS).where('id', '=', protocolId).executeTakeFirst();
  if (!row) return undefined;
  const licenses = await db
    .selectFrom('protocolRequesters')
    .select(['crm', 'uf'])
    .where('protocolId', '=', protocolId)
    .execute();
  return { ...row, requesterLicenses: licenses };
}

/** Every column of an exam and of a resource, in the order the detail statements read them. */
const EXAM_COLUMNS = [
  'id',
  'protocolId',
  'examKey',
  'description',
  'type',
  'modalityCode',
  'modalityName',
  'requesterIdentifier',
  'requesterName',
  'requesterCrm',
  'requesterUf',
  'status',
  'statusCode',
  'rectificationStatus',
  'performedAt',
  'deliveredAt',
  'isEnabled',
  'position',
  'resourceKinds',
  'hasAnalytes',
  'holdReleasedAt',
  'holdReleasedBy',
  'createdAt',
  'updatedAt',
] as const satisfies ReadonlyArray<keyof ExamRow>;
const RESOURCE_COLUMNS = [
  'id',
  'examId',
  'identifier',
  'type',
  'storageKey',
  'contentType',
  'size',
  'sha256',
  'crc32',
  'pageCount',
  'signedStorageKey',
  'signedContentType',
  'signedSize',
  'signedSha256',
  'signedCrc32',
  'verificationCode',
  'signatureCheck',
  'createdAt',
  'updatedAt',
] as const satisfies ReadonlyArray<keyof ResourceRow>;

/** An object of `columns` from the values of a row read as an array, starting at `offset`. */
function fromValues<T>(columns: readonly string[], values: unknown[], offset: number): T {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < columns.length; i++) out[columns[i]!] = values[offset + i];
  return out as T;
}

const columnsOf = (alias: string, columns: readonly string[]) => columns.map((c) => `${alias}.${snake(c)}`).join(', ');

type ProtocolWithLicenses = ProtocolRow & Pick<ProtocolFacts, 'requesterLicenses'>;

/** The columns of a protocol's facts read by the reader: the row, then its requester licenses joined. */
const protocolFactsColumns = (r: SqlReader) =>
  `${columnsOf('p', PROTOCOL_COLUMNS)},
      (select ${r.joined(`pr.crm || '${FIELD_SEPARATOR}' || pr.uf`, 'pr.crm, pr.uf')}
        from protocol_requesters pr where pr.protocol_id = p.id)`;

/** A protocol's facts from the values `protocolFactsColumns` selected, starting at `offset`. */
function protocolFactsOf(values: unknown[], offset: number): ProtocolWithLicenses {
  const licenses = values[offset + PROTOCOL_COLUMNS.length] as string | null;
  return {
    ...fromValues<ProtocolRow>(PROTOCOL_COLUMNS, values, offset),
    requesterLicenses: licenses
      ? licenses.split(SEPARATOR).map((l) => {
          const [crm = '', uf = ''] = l.split(FIELD_SEPARATOR);
          return { crm, uf };
        })
      : [],
  };
}

/**
 * protocolFacts in one prepared statement of the reader (every page view that opens a protocol
 * authorises it): the protocol and its requester licenses.
 */
export async function readProtocolFacts(r: SqlReader, protocolId: string): Promise<ProtocolWithLicenses | undefined> {
  const [row] = await r.arrays(`select ${protocolFactsColumns(r)} from protocols p where p.id = ?`, [protocolId]);
  return row ? protocolFactsOf(row, 0) : undefined;
}

/** An enabled exam of a protocol with its resources and whether the reader key has read it. */
export interface ExamWithResources {
  row: ExamRow;
  resources: ResourceRow[];
  read: boolean;
  /**
   * The DICOM study of the protocol's institution whose Accession Number is the examKey (the first
   * in `studyOrderSql`'s order, as `studiesOfExamKeys` lists them), null when none.
   */
  studyUid: string | null;
}

/**
 * Whose read marks a viewer reads, as SQL over the protocol `p` (contract 8, as `readerKey`): an
 * account its own, a guest the protocol's patient or the protocol itself, a share session none
 * ('' is no viewer key, so it reads no mark).
 */
export function readerKeySql(viewer: Viewer): { sql: string; params: unknown[] } {
  if (viewer.role === 'GUEST') return { sql: `coalesce(p.patient_user_id, 'protocol:' || p.id)`, params: [] };
  if (viewer.role === 'SHARE') return { sql: `''`, params: [] };
  return { sql: '?', params: [viewer.userId ?? ''] };
}

/**
 * The order of an exam's studies, over the table or alias `d`: by study date, one without a date
 * after the dated ones (both databases alike: SQLite puts nulls first by default, PostgreSQL last),
 * then by arrival. The first of them is the one a protocol's detail opens.
 */
export function studyOrderSql(d: string): string {
  return `${d}.study_date asc nulls last, ${d}.created_at asc, ${d}.id asc`;
}

/**
 * What a protocol's detail shows: the protocol's facts, then each enabled exam with its resources,
 * its read mark for `readerKey` and its DICOM study. `authorise` gets the facts (undefined when
 * there is no such protocol) before anything else read is used, and throws when the viewer may not
 * see them. On PostgreSQL it is one statement (one round trip); on SQLite the protocol is read and
 * authorised on its own first, which also measured cheaper there than its columns repeated on
 * every exam's row (docs/decisions.md).
 */
export async function readProtocolDetail<P>(
  r: SqlReader,
  protocolId: string,
  readerKey: { sql: string; params: unknown[] },
  authorise: (facts: ProtocolWithLicenses | undefined) => P,
): Promise<{ protocol: P; exams: ExamWithResources[] }> {
  const alone = r.dialect === 'sqlite';
  const protocol = alone ? authorise(await readProtocolFacts(r, protocolId)) : undefined;
  const rows = await r.arrays(
    `select ${alone ? 'p.id' : protocolFactsColumns(r)}, ${columnsOf('e', EXAM_COLUMNS)}, ${columnsOf('r', RESOURCE_COLUMNS)},
      case when exists (select 1 from exam_reads er where er.exam_id = e.id and er.viewer_key = ${readerKey.sql})
        then 1 else 0 end,
      (select d.study_uid from dicom_studies d where d.institution_id = p.institution_id
        and d.accession_number = e.exam_key order by ${studyOrderSql('d')} limit 1)
      from protocols p left join exams e on e.protocol_id = p.id and e.is_enabled = 1
        left join resources r on r.exam_id = e.id
      where p.id = ?
      order by e.position, e.id, r.created_at, r.id`,
    [...readerKey.params, protocolId],
  );
  const first = rows[0];
  // Nothing read is used before the viewer is known to see the protocol.
  const authorised = alone ? protocol! : authorise(first && protocolFactsOf(first, 0));
  const examAt = alone ? 1 : PROTOCOL_COLUMNS.length + 1;
  const resourceAt = examAt + EXAM_COLUMNS.length;
  const readAt = resourceAt + RESOURCE_COLUMNS.length;
  const exams: ExamWithResources[] = [];
  for (const values of rows) {
    // A protocol without enabled exams comes as one row with no exam.
    if (values[examAt] === null) continue;
    let exam = exams.at(-1);
    if (exam === undefined || exam.row.id !== values[examAt]) {
      exam = {
        row: fromValues<ExamRow>(EXAM_COLUMNS, values, examAt),
        resources: [],
        read: Number(values[readAt]) === 1,
        studyUid: (values[readAt + 1] as string | null) ?? null,
      };
      exams.push(exam);
    }
    if (values[resourceAt] !== null) exam.resources.push(fromValues<ResourceRow>(RESOURCE_COLUMNS, values, resourceAt));
  }
  return { protocol: authorised, exams };
}

/** One exam row, in one prepared statement of the reader. */
export async function readExam(r: SqlReader, examId: string): Promise<ExamRow | undefined> {
  const [values] = await r.arrays(`select ${columnsOf('e', EXAM_COLUMNS)} from exams e where e.id = ?`, [examId]);
  return values ? fromValues<ExamRow>(EXAM_COLUMNS, values, 0) : undefined;
}

/**
 * A resource and its exam, in one prepared statement of the reader. The resource is read first as
 * a materialised row and then joined: SQLite 3.53 ran the plain join (the same two index searches)
 * at about 45 µs a call against 10 µs for this form, on the 10,000-protocol benchmark clinic.
 */
export async function readResourceWithExam(
  r: SqlReader,
  resourceId: string,
): Promise<{ resource: ResourceRow; exam: ExamRow } | undefined> {
  const [values] = await r.arrays(
    `with r as materialized (select * from resources where id = ?)
      select ${columnsOf('e', EXAM_COLUMNS)}, ${columnsOf('r', RESOURCE_COLUMNS)}
      from r join exams e on e.id = r.exam_id`,
    [resourceId],
  );
  if (!values) return undefined;
  return {
    exam: fromValues<ExamRow>(EXAM_COLUMNS, values, 0),
    resource: fromValues<ResourceRow>(RESOURCE_COLUMNS, values, EXAM_COLUMNS.length),
  };
}

/**
 * A resource, its exam and its protocol's facts: what opening a file must authorise. On PostgreSQL
 * one statement (each is a round trip of the read pool, and a file is opened on every report
 * view); on SQLite the two statements above, which it runs faster than their join (28 to 35 µs
 * against 50 to 60 on the 10,000-protocol benchmark clinic).
 */
export async function readResourceForOpening(
  r: SqlReader,
  resourceId: string,
): Promise<{ resource: ResourceRow; exam: ExamRow; protocol: ProtocolWithLicenses } | undefined> {
  if (r.dialect === 'sqlite') {
    const found = await readResourceWithExam(r, resourceId);
    const protocol = found && (await readProtocolFacts(r, found.exam.protocolId));
    return found && protocol && { ...found, protocol };
  }
  const [values] = await r.arrays(
    `with r as materialized (select * from resources where id = ?)
      select ${columnsOf('e', EXAM_COLUMNS)}, ${columnsOf('r', RESOURCE_COLUMNS)}, ${protocolFactsColumns(r)}
      from r join exams e on e.id = r.exam_id join protocols p on p.id = e.protocol_id`,
    [resourceId],
  );
  if (!values) return undefined;
  return {
    exam: fromValues<ExamRow>(EXAM_COLUMNS, values, 0),
    resource: fromValues<ResourceRow>(RESOURCE_COLUMNS, values, EXAM_COLUMNS.length),
    protocol: protocolFactsOf(values, EXAM_COLUMNS.length + RESOURCE_COLUMNS.length),
  };
}

/** protocolFacts for many protocols in two queries. */
export async function protocolFactsMany(
  db: Db,
  protocolIds: readonly string[],
): Promise<Map<string, ProtocolRow & Pick<ProtocolFacts, 'requesterLicenses'>>> {
  if (protocolIds.length === 0) return new Map();
  const ids = [...new Set(protocolIds)];
  const [rows, licenses] = await Promise.all([
    db.selectFrom('protocols').select(PROTOCOL_COLUMNS).where('id', 'in', ids).execute(),
    db.selectFrom('protocolRequesters').select(['protocolId', 'crm', 'uf']).where('protocolId', 'in', ids).execute(),
  ]);
  const out = new Map(rows.map((r) => [r.id, { ...r, requesterLicenses: [] as Array<{ crm: string; uf: string }> }]));
  for (const l of licenses) out.get(l.protocolId)?.requesterLicenses.push({ crm: l.crm, uf: l.uf });
  return out;
}

export async function protocolsByIds(db: Db, ids: readonly string[]): Promise<ProtocolRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('protocols').select(PROTOCOL_COLUMNS).where('id', 'in', ids).execute();
}

/** Every enabled exam of a page of protocols, in one query. */
export async function enabledExamsOf(db: Db, protocolIds: readonly string[]): Promise<ExamRow[]> {
  if (protocolIds.length === 0) return [];
  return db
    .selectFrom('exams')
    .selectAll()
    .where('protocolId', 'in', protocolIds)
    .where('isEnabled', '=', 1)
    .orderBy('protocolId')
    .orderBy('position')
    .execute();
}

/** Separates the fields of one exam in a list row's `exams` column (exams are SEPARATOR-joined). */
export const FIELD_SEPARATOR = '\u001e';

/** A protocol of a list page with the exams the list shows (see `listedExamsColumn`). */
export type ListedProtocolRow = ItemProtocolRow & {
  /**
   * Per enabled exam, in order: id, type, rectification status ('' where none) and flags (1 report,
   * + 2 image, + 4 history results, + 8 read by the viewer); null when no exam is enabled.
   */
  exams: string | null;
  /** Exams read by the viewer, where the flags above do not say it (a physician's kept list rows). */
  readExamIds?: ReadonlySet<string>;
};

/** A list page row from its values, selected as ITEM_PROTOCOL_COLUMNS and then the `exams` column. */
export function listedRow(v: unknown[]): ListedProtocolRow {
  return {
    id: v[0] as string,
    institutionId: v[1] as string,
    number: v[2] as string,
    requestedAt: v[3] as string | null,
    tagId: v[4] as string | null,
    patientExternalId: v[5] as string,
    patientName: v[6] as string,
    patientBirthDate: v[7] as string,
    patientGender: v[8] as string,
    patientEmail: v[9] as string | null,
    patientPhone: v[10] as string | null,
    patientUserId: v[11] as string | null,
    exams: v[12] as string | null,
  };
}

/**
 * The `exams` column of a list page over its protocol `p`: every exam fact a list shows, read from
 * the index entries of exams_protocol_list (resource kinds and history results are kept on the
 * exam by triggers) in the page's own statement. `readerKey` is the viewer's read key as SQL.
 */
export function listedExamsColumn(r: SqlReader, readerKey: { sql: string; params: unknown[] }) {
  const f = `'${FIELD_SEPARATOR}'`;
  const read = `case when exists (select 1 from exam_reads er where er.exam_id = e.id and er.viewer_key = ${readerKey.sql}) then 8 else 0 end`;
  // The description comes last: whatever it holds, the fields before it stay where they are.
  const exam = `e.id || ${f} || e.type || ${f} || coalesce(e.rectification_status, '') || ${f} || cast(e.resource_kinds + 4 * e.has_analytes + ${read} as text) || ${f} || coalesce(e.status, '') || ${f} || e.description`;
  return {
    sql: `(select ${r.joined(exam, 'e.position, e.id')} from exams e where e.protocol_id = p.id and e.is_enabled = 1) as "exams"`,
    params: readerKey.params,
  };
}

/** Some institutions with their visualizer settings and hold rules by exam type code. */
export async function institutionsWithSettings(
  r: SqlReader,
  ids: readonly string[],
): Promise<
  Map<string, { row: InstitutionRow; visualizer: Map<string, VisualizerSetting>; holds: Map<string, HoldRuleSetting> }>
> {
  const out = new Map<
    string,
    { row: InstitutionRow; visualizer: Map<string, VisualizerSetting>; holds: Map<string, HoldRuleSetting> }
  >();
  if (ids.length === 0) return out;
  const where = inList(r, 'i.id', [...new Set(ids)]);
  const holdWhere = inList(r, 'h.institution_id', [...new Set(ids)]);
  const [rows, holdRows] = await Promise.all([
    r.all<InstitutionRow & { examTypeCode: string | null; hideButton: number | null; enable: number | null }>(
      `select i.id, i.code, i.name, i.token, i.settings, v.exam_type_code as "examTypeCode",
        v.hide_button as "hideButton", v.enable
      from institutions i left join visualizer_settings v on v.institution_id = i.id
      where ${where.sql}`,
      where.params,
    ),
    r.all<{ institutionId: string; examTypeCode: string; rule: string; hours: number | null; message: string | null }>(
      `select h.institution_id as "institutionId", h.exam_type_code as "examTypeCode", h.rule, h.hours, h.message
        from exam_hold_rules h where ${holdWhere.sql}`,
      holdWhere.params,
    ),
  ]);
  for (const row of rows) {
    let entry = out.get(row.id);
    if (!entry) {
      const { id, code, name, token, settings } = row;
      entry = { row: { id, code, name, token, settings }, visualizer: new Map(), holds: new Map() };
      out.set(row.id, entry);
    }
    if (row.examTypeCode !== null) {
      entry.visualizer.set(row.examTypeCode, { hideButton: row.hideButton === 1, enable: row.enable === 1 });
    }
  }
  for (const h of holdRows) {
    out.get(h.institutionId)?.holds.set(h.examTypeCode.trim().toUpperCase(), {
      rule: h.rule as HoldRuleSetting['rule'],
      hours: h.hours === null ? null : Number(h.hours),
      message: h.message,
    });
  }
  return out;
}

/** What a list needs to decide the holds of some exams (`examHold`), with their protocol's requesters. */
export async function holdFactsOf(
  r: SqlReader,
  examIds: readonly string[],
): Promise<Map<string, HoldExamFacts & { protocolId: string; requesterLicenses: Array<{ crm: string; uf: string }> }>> {
  const out = new Map<
    string,
    HoldExamFacts & { protocolId: string; requesterLicenses: Array<{ crm: string; uf: string }> }
  >();
  if (examIds.length === 0) return out;
  const where = inList(r, 'e.id', [...new Set(examIds)]);
  const rows = await r.all<HoldExamFacts & { id: string; protocolId: string; licenses: string | null }>(
    `select e.id, e.protocol_id as "protocolId", e.type, e.delivered_at as "deliveredAt", e.created_at as "createdAt",
        e.hold_released_at as "holdReleasedAt", e.requester_crm as "requesterCrm", e.requester_uf as "requesterUf",
        (select ${r.joined(`pr.crm || '${FIELD_SEPARATOR}' || pr.uf`, 'pr.crm, pr.uf')}
          from protocol_requesters pr where pr.protocol_id = e.protocol_id) as "licenses"
      from exams e where ${where.sql}`,
    where.params,
  );
  for (const { id, licenses, ...facts } of rows) {
    out.set(id, {
      ...facts,
      requesterLicenses: licenses
        ? licenses.split(SEPARATOR).map((l) => {
            const [crm = '', uf = ''] = l.split(FIELD_SEPARATOR);
            return { crm, uf };
          })
        : [],
    });
  }
  return out;
}

/** The resources of every enabled exam of some protocols, fetched alongside the exams themselves. */
export async function resourcesOfProtocols(db: Db, protocolIds: readonly string[]): Promise<ResourceRow[]> {
  const out: ResourceRow[] = [];
  for (let i = 0; i < protocolIds.length; i += 500) {
    out.push(
      ...(await resourcesQuery(db, protocolIds.slice(i, i + 500))
        .selectAll('r')
        .execute()),
    );
  }
  return out;
}

function resourcesQuery(db: Db, protocolIds: readonly string[]) {
  return db
    .selectFrom('resources as r')
    .innerJoin('exams as e', 'e.id', 'r.examId')
    .where('e.protocolId', 'in', protocolIds)
    .where('e.isEnabled', '=', 1)
    .orderBy('r.createdAt')
    .orderBy('r.id');
}

/** The exams among `examIds` that `viewerKeys` have read, as `<viewerKey>|<examId>`. */
export async function readsOf(
  r: SqlReader,
  examIds: readonly string[],
  viewerKeys: readonly string[],
): Promise<Set<string>> {
  if (examIds.length === 0 || viewerKeys.length === 0) return new Set();
  const rows = await r.all<{ viewerKey: string; examId: string }>(
    `select viewer_key as "viewerKey", exam_id as "examId" from exam_reads
      where exam_id in ${r.listParam} and viewer_key in ${r.listParam}`,
    [r.list(examIds), r.list([...new Set(viewerKeys)])],
  );
  return new Set(rows.map((row) => `${row.viewerKey}|${row.examId}`));
}

export async function examsWithAnalytes(r: SqlReader, examIds: readonly string[]): Promise<Set<string>> {
  if (examIds.length === 0) return new Set();
  const rows = await r.all<{ examId: string }>(
    `select distinct exam_id as "examId" from analytes where exam_id in ${r.listParam}`,
    [r.list(examIds)],
  );
  return new Set(rows.map((row) => row.examId));
}

/** Marks exams read for a viewer; already-read exams keep their first read time. */
export async function markRead(db: Db, viewerKey: string, examIds: readonly string[], readAt: string): Promise<void> {
  const unique = [...new Set(examIds)];
  for (let i = 0; i < unique.length; i += 500) {
    await db
      .insertInto('examReads')
      .values(unique.slice(i, i + 500).map((examId) => ({ viewerKey, examId, readAt })))
      .onConflict((oc) => oc.columns(['viewerKey', 'examId']).doNothing())
      .execute();
  }
}

/**
 * markRead as one of the process's grouped writes: committed with the other audit records and
 * read marks of the same group; resolves once committed. On SQLite, a mark the reader already sees
 * is committed (the reader sees nothing else) and its insert would be skipped (the first read time
 * is kept), so it is not sent to the writes again: reopening a report reads one index entry
 * instead of inserting a row in the next group. On PostgreSQL that read is a round trip of its
 * own, dearer than a row more in the group's one insert, whose conflict rule skips it.
 */
export async function markReadGrouped(
  target: { writes: GroupedWrites; reader: SqlReader },
  viewerKey: string,
  examIds: readonly string[],
  readAt: string,
): Promise<void> {
  const unique = [...new Set(examIds)];
  if (unique.length === 0) return;
  const r = target.reader;
  const marked =
    r.dialect !== 'sqlite'
      ? []
      : unique.length === 1
        ? await r.arrays('select exam_id from exam_reads where viewer_key = ? and exam_id = ?', [viewerKey, unique[0]])
        : await r.arrays(`select exam_id from exam_reads where viewer_key = ? and exam_id in ${r.listParam}`, [
            viewerKey,
            r.list(unique),
          ]);
  const done = new Set(marked.map((values) => values[0] as string));
  const rows = unique.filter((examId) => !done.has(examId)).map((examId) => ({ viewerKey, examId, readAt }));
  if (rows.length === 0) return;
  await target.writes.write({ table: 'examReads', rows, ignoreConflicts: ['viewerKey', 'examId'] });
}

export async function resourceWithExam(
  db: Db,
  resourceId: string,
): Promise<{ resource: ResourceRow; exam: ExamRow } | undefined> {
  const resource = await db.selectFrom('resources').selectAll().where('id', '=', resourceId).executeTakeFirst();
  if (!resource) return undefined;
  const exam = await db.selectFrom('exams').selectAll().where('id', '=', resource.examId).executeTakeFirst();
  return exam ? { resource, exam } : undefined;
}

export async function examById(db: Db, examId: string): Promise<ExamRow | undefined> {
  return db.selectFrom('exams').selectAll().where('id', '=', examId).executeTakeFirst();
}
