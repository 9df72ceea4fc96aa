import type { Db } from '../../db/database.js';
import type { ExamTable, InstitutionTable, ProtocolTable, ResourceTable } from '../../db/schema.js';
import type { ProtocolFacts, VisualizerSetting } from './delivery.policy.js';

export type ProtocolRow = Omit<ProtocolTable, 'passwordHash'>;
export type ExamRow = ExamTable;
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
  'patientUserId',
  'disabled',
  'createdAt',
  'updatedAt',
] as const;

/** What a list needs of an exam and of a resource: lists never show exam details. */
export const EXAM_SUMMARY_COLUMNS = ['id', 'protocolId', 'type', 'isEnabled', 'rectificationStatus'] as const;
export const RESOURCE_SUMMARY_COLUMNS = ['id', 'examId', 'type', 'signedStorageKey'] as const;
export type ExamSummaryRow = Pick<ExamRow, (typeof EXAM_SUMMARY_COLUMNS)[number]>;
export type ResourceSummaryRow = Pick<ResourceRow, (typeof RESOURCE_SUMMARY_COLUMNS)[number]>;

/** The session's own protocols (guest and share sessions). */
export async function sessionProtocolIds(db: Db, sessionId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('sessionProtocols')
    .select('protocolId')
    .where('sessionId', '=', sessionId)
    .execute();
  return rows.map((r) => r.protocolId);
}

export async function shareRecipient(db: Db, shareId: string): Promise<string | null> {
  const row = await db.selectFrom('shares').select('email').where('id', '=', shareId).executeTakeFirst();
  return row?.email ?? null;
}

export async function userAccessFacts(
  db: Db,
  userId: string,
  /** Only physicians and external users reach protocols through tags; others skip that query. */
  withTags = true,
): Promise<{
  license: { crm: string; uf: string } | null;
  tagIds: string[];
  name: string;
  institutionId: string | null;
}> {
  const user = await db
    .selectFrom('users')
    .select(['licenseNumber', 'licenseState', 'name', 'institutionId'])
    .where('id', '=', userId)
    .executeTakeFirst();
  const tags = withTags ? await db.selectFrom('tagMembers').select('tagId').where('userId', '=', userId).execute() : [];
  return {
    license:
      user?.licenseNumber && user.licenseState
        ? { crm: user.licenseNumber, uf: user.licenseState.toUpperCase() }
        : null,
    tagIds: tags.map((t) => t.tagId),
    name: user?.name ?? '',
    institutionId: user?.institutionId ?? null,
  };
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

export async function institutionsByIds(db: Db, ids: readonly string[]): Promise<Map<string, InstitutionRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('institutions')
    .select(['id', 'code', 'name', 'token', 'settings'])
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((r) => [r.id, r]));
}

/** Visualizer settings keyed by `<institutionId>|<examTypeCode>`. */
export async function visualizerSettings(
  db: Db,
  institutionIds: readonly string[],
): Promise<Map<string, VisualizerSetting>> {
  if (institutionIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('visualizerSettings')
    .select(['institutionId', 'examTypeCode', 'hideButton', 'enable'])
    .where('institutionId', 'in', [...new Set(institutionIds)])
    .execute();
  return new Map(
    rows.map((r) => [
      `${r.institutionId}|${r.examTypeCode}`,
      { hideButton: r.hideButton === 1, enable: r.enable === 1 },
    ]),
  );
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

/** enabledExamsOf with only the columns a list needs (fewer values to decode per row). */
export async function enabledExamSummariesOf(db: Db, protocolIds: readonly string[]): Promise<ExamSummaryRow[]> {
  if (protocolIds.length === 0) return [];
  return db
    .selectFrom('exams')
    .select(EXAM_SUMMARY_COLUMNS)
    .where('protocolId', 'in', protocolIds)
    .where('isEnabled', '=', 1)
    .orderBy('protocolId')
    .orderBy('position')
    .execute();
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

/** resourcesOfProtocols with only the columns a list needs. */
export async function resourceSummariesOfProtocols(
  db: Db,
  protocolIds: readonly string[],
): Promise<ResourceSummaryRow[]> {
  const out: ResourceSummaryRow[] = [];
  for (let i = 0; i < protocolIds.length; i += 500) {
    const columns = RESOURCE_SUMMARY_COLUMNS.map((c) => `r.${c}` as const);
    out.push(
      ...(await resourcesQuery(db, protocolIds.slice(i, i + 500))
        .select(columns)
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
export async function readsOf(db: Db, examIds: readonly string[], viewerKeys: readonly string[]): Promise<Set<string>> {
  if (examIds.length === 0 || viewerKeys.length === 0) return new Set();
  const out = new Set<string>();
  for (let i = 0; i < examIds.length; i += 500) {
    const rows = await db
      .selectFrom('examReads')
      .select(['viewerKey', 'examId'])
      .where('examId', 'in', examIds.slice(i, i + 500))
      .where('viewerKey', 'in', [...new Set(viewerKeys)])
      .execute();
    for (const r of rows) out.add(`${r.viewerKey}|${r.examId}`);
  }
  return out;
}

export async function examsWithAnalytes(db: Db, examIds: readonly string[]): Promise<Set<string>> {
  if (examIds.length === 0) return new Set();
  const out = new Set<string>();
  for (let i = 0; i < examIds.length; i += 500) {
    const rows = await db
      .selectFrom('analytes')
      .select('examId')
      .distinct()
      .where('examId', 'in', examIds.slice(i, i + 500))
      .execute();
    for (const r of rows) out.add(r.examId);
  }
  return out;
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
