import { Readable } from 'node:stream';
import type { z } from 'zod';
import {
  type AccessAction,
  type AccessItem,
  type AccessPage,
  type AccessWho,
  type zAccessExportQuery,
  type zAccessQuery,
} from '@portal/shared/schemas/access-log';
import { EXAM_TIME_ZONE_OFFSET_MINUTES } from '@portal/shared/limits';
import type { AppContext } from '../../context.js';
import { forbidden, notFound } from '../../lib/errors.js';
import type { AuthContext } from '../../plugins/auth.js';
import { csvField } from '../administration/administration.service.js';
import { dayEnd, dayStart } from '../delivery/days.js';
import { parseInstitutionSettings } from '../institutions/institution.service.js';
import {
  type AccessFilter,
  type AccessRow,
  accessAlertsOf,
  accessPage,
  accessRows,
  examDescriptions,
  setAccessAlerts,
} from './access-log.repository.js';
import { EXPORT_TEXTS, actionText, whoText } from './access-log.texts.js';

const ACTION_OF: Record<string, AccessAction> = {
  VIEW_PROTOCOL: 'VIEW_PROTOCOL',
  VIEW_REPORT: 'OPEN_REPORT',
  VIEW_IMAGE: 'OPEN_IMAGE',
  DOWNLOAD_SIGNATURE: 'DOWNLOAD_SIGNED',
  BATCH_PRINT: 'PRINT',
  SHARE_OPENED: 'OPEN_SHARE',
  LOGIN: 'SIGN_IN_PROTOCOL',
  SMART_AUTH: 'OPEN_EXTERNAL_VIEWER',
  ADMIN_VIEW_PROTOCOL: 'STAFF_VIEW',
  PROTOCOL_DISABLED: 'STAFF_DISABLE',
  PROTOCOL_ENABLED: 'STAFF_ENABLE',
};

/**
 * The caller's own account, and only a patient's: the path's id must be the session's (another
 * id answers 404, as if it did not exist); other roles have no such screen (403).
 */
function ownPatient(auth: AuthContext, id: string): string {
  if (auth.role !== 'PATIENT' || !auth.userId) throw forbidden();
  if (id !== auth.userId) throw notFound();
  return auth.userId;
}

function filterOf(query: { protocol?: string; initialDate?: string; finalDate?: string }): AccessFilter {
  return {
    protocol: query.protocol || undefined,
    from: query.initialDate ? dayStart(query.initialDate) : undefined,
    to: query.finalDate ? dayEnd(query.finalDate) : undefined,
  };
}

function parseJson(text: string | null): Record<string, unknown> | null {
  if (!text) return null;
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Who did it, named only as far as the rules of `zAccessWho` allow. */
export function whoOf(row: AccessRow, patientUserId: string): AccessWho {
  const none = { name: null, license: null, tag: null, email: null };
  switch (row.role) {
    case 'PATIENT':
      // Only the protocol's own patient signs in as a patient to it; anyone else is never named.
      return { ...none, kind: row.systemUserId === patientUserId ? 'YOU' : 'SYSTEM' };
    case 'PHYSICIAN':
      return {
        ...none,
        kind: 'PHYSICIAN',
        name: row.userName ?? null,
        license:
          row.licenseNumber && row.licenseState ? `${row.licenseNumber}/${row.licenseState.toUpperCase()}` : null,
      };
    case 'EXTERNAL':
      return { ...none, kind: 'PARTNER', tag: row.tag ?? null };
    case 'SHARE':
      return { ...none, kind: 'SHARE_RECIPIENT', email: row.sharedWith };
    case 'GUEST':
      return { ...none, kind: 'GUEST' };
    case 'COMPANY': {
      const named = parseInstitutionSettings(row.institutionSettings).accessLogStaffNames;
      return { ...none, kind: 'STAFF', name: named ? (row.userName ?? null) : null };
    }
    case 'ADMIN':
      return { ...none, kind: 'PORTAL_SUPPORT' };
    default:
      return { ...none, kind: 'SYSTEM' };
  }
}

/** The exams an event's resource names: files (reports, images, signed files), an exam, or a study's exam key. */
function examRefs(resource: Record<string, unknown> | null) {
  const resourceIds: string[] = [];
  const examIds: string[] = [];
  const examKeys: string[] = [];
  if (resource) {
    if (Array.isArray(resource.resources)) {
      for (const r of resource.resources as Array<{ id?: unknown }>)
        if (typeof r?.id === 'string') resourceIds.push(r.id);
    }
    if (resource.type === 'EXAM' && typeof resource.id === 'string') examIds.push(resource.id);
    if (typeof resource.examKey === 'string') examKeys.push(resource.examKey);
  }
  return { resourceIds, examIds, examKeys };
}

/** Rows to items: one read of the exam descriptions the rows name, limited to their protocols. */
async function toItems(ctx: AppContext, rows: AccessRow[], patientUserId: string): Promise<AccessItem[]> {
  const parsed = rows.map((row) => ({ row, refs: examRefs(parseJson(row.resource)) }));
  const { byResource, byExam, byKey } = await examDescriptions(ctx.db, [...new Set(rows.map((r) => r.protocolId))], {
    resourceIds: [...new Set(parsed.flatMap((p) => p.refs.resourceIds))],
    examIds: [...new Set(parsed.flatMap((p) => p.refs.examIds))],
    examKeys: [...new Set(parsed.flatMap((p) => p.refs.examKeys))],
  });
  return parsed.map(({ row, refs }) => {
    const exams = [
      ...refs.resourceIds.map((id) => byResource.get(id)),
      ...refs.examIds.map((id) => byExam.get(id)),
      ...refs.examKeys.map((key) => byKey.get(`${row.protocolId}\u0000${key}`)),
    ].filter((d): d is string => typeof d === 'string');
    const channel = parseJson(row.macro)?.channel === 'FHIR R4' ? 'FHIR' : 'PORTAL';
    return {
      id: row.id,
      occurredAt: row.occurredAt,
      action: ACTION_OF[row.event] ?? 'VIEW_PROTOCOL',
      who: whoOf(row, patientUserId),
      protocolId: row.protocolId,
      protocolNumber: row.protocolNumber,
      institutionName: row.institutionName,
      exams: [...new Set(exams)],
      channel,
    };
  });
}

/** `GET /api/auth/patient/{id}/accesses`: the accesses to the patient's own protocols, newest first. */
export async function accessList(
  ctx: AppContext,
  auth: AuthContext,
  id: string,
  query: z.output<typeof zAccessQuery>,
): Promise<AccessPage> {
  const me = ownPatient(auth, id);
  const { rows, total } = await accessPage(ctx.db, me, filterOf(query), (query.page - 1) * query.size, query.size);
  return { items: await toItems(ctx, rows, me), total, page: query.page, size: query.size };
}

/** `dd/MM/yyyy HH:mm` in Brasília time (the exams' zone, spec 9). */
function localTime(iso: string): string {
  const local = new Date(Date.parse(iso) + EXAM_TIME_ZONE_OFFSET_MINUTES * 60_000).toISOString();
  return `${local.slice(8, 10)}/${local.slice(5, 7)}/${local.slice(0, 4)} ${local.slice(11, 16)}`;
}

/**
 * The same accesses as CSV in the patient's language, streamed 500 rows at a time (memory stays
 * flat for any size); a byte-order mark lets spreadsheets read the accents.
 */
export function accessCsv(
  ctx: AppContext,
  auth: AuthContext,
  id: string,
  query: z.output<typeof zAccessExportQuery>,
): Readable {
  const me = ownPatient(auth, id);
  const texts = EXPORT_TEXTS[query.language ?? 'pt-br'];
  const filter = filterOf(query);
  async function* lines() {
    yield `\uFEFF${texts.headings.map(csvField).join(',')}\r\n`;
    for await (const rows of accessRows(ctx.db, me, filter)) {
      if (rows.length === 0) continue;
      const items = await toItems(ctx, rows, me);
      yield items
        .map(
          (item) =>
            `${[
              localTime(item.occurredAt),
              item.protocolNumber,
              item.institutionName,
              actionText(texts, item),
              whoText(texts, item.who),
              item.exams.join('; '),
            ]
              .map(csvField)
              .join(',')}\r\n`,
        )
        .join('');
    }
  }
  return Readable.from(lines(), { objectMode: false });
}

export async function accessAlertsSetting(ctx: AppContext, auth: AuthContext, id: string) {
  const me = ownPatient(auth, id);
  const enabled = await accessAlertsOf(ctx.db, me);
  if (enabled === null) throw notFound();
  return { enabled };
}

export async function changeAccessAlerts(ctx: AppContext, auth: AuthContext, id: string, enabled: boolean) {
  const me = ownPatient(auth, id);
  await setAccessAlerts(ctx.db, me, enabled, ctx.clock.now().toISOString());
  return { enabled };
}
