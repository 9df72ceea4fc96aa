import { examStatusCode } from '@portal/shared/exam-status';
import { ServerMessage } from '@portal/shared/errors';
import { DEFAULT_LANGUAGE, TOKEN_TTL_MS, type Language } from '@portal/shared/limits';
import type { IngestExam, IngestProtocol, IngestProtocolResult } from '@portal/shared/schemas/ingest';
import { digitsOnly } from '@portal/shared/formats';
import type { Insertable } from 'kysely';
import type { AppContext } from '../../context.js';
import { type Db, isTransientConflict, isUniqueViolation } from '../../db/database.js';
import type { AnalyteTable, ExamTable, ProtocolTable } from '../../db/schema.js';
import { addMs } from '../../lib/clock.js';
import { badRequest, notFound } from '../../lib/errors.js';
import { newId, newSecretToken, sha256Hex } from '../../lib/ids.js';
import { hashPassword, LOCKED_PASSWORD_HASH, verifyPassword } from '../../lib/passwords.js';
import { queueMail } from '../outbox/outbox.service.js';
import type { Institution } from '../institutions/institution.service.js';
import { onExamsChanged } from './exam-changes.js';
import {
  deleteAnalyteRows,
  deleteRequesterRow,
  claimAutoInvitation,
  findOrCreateTagId,
  hasAccount,
  findProtocolRow,
  insertAnalyteRows,
  insertExamRow,
  insertOneTimeTokenRow,
  insertProtocolRow,
  insertRequesterRows,
  listAnalyteRows,
  listExamRows,
  listRecentPatientInvitations,
  listRequesterRows,
  updateAnalyteRow,
  updateExamRow,
  updateProtocolRow,
  type ProtocolRow,
} from './ingest.repository.js';

/** Lower-case and accent-free: how patient names are stored for search (compare with the same function). */
export function searchableName(name: string): string {
  return name
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
}

/** A numeric analyte value, also in the Brazilian decimal comma ("13,5"); null for text values. */
export function numericValue(value: number | string): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  const text = value.trim();
  if (!/^[-+]?\d+([.,]\d+)?$/.test(text)) return null;
  return Number(text.replace(',', '.'));
}

/** Only the keys whose value differs from the current row: an identical re-send writes nothing. */
function changedFields<T extends object>(current: T, next: Partial<T>): Partial<T> {
  const changes: Partial<T> = {};
  for (const key of Object.keys(next) as Array<keyof T>) {
    if (next[key] !== undefined && current[key] !== next[key]) changes[key] = next[key];
  }
  return changes;
}

export const protocolNotFound = () => notFound(ServerMessage.protocolDoesNotExist);

export async function requireProtocol(db: Db, institution: Institution, number: string): Promise<ProtocolRow> {
  const protocol = await findProtocolRow(db, institution.id, number);
  if (!protocol) throw protocolNotFound();
  return protocol;
}

/**
 * What the other doors (HL7, FHIR) hand to the same service: a protocol whose password may be
 * absent (null). A stored protocol then keeps its password; a new one is refused, or stored locked
 * (no password opens it) with `IngestMerge.lockWithoutPassword`.
 */
export type IngestProtocolInput = Omit<IngestProtocol, 'password'> & { password: string | null };

/**
 * How the FHIR door merges into a stored protocol instead of replacing it (contract 5's PUT lists
 * every exam): exams the body does not list stay as they are, and what was sent with FHIR's
 * `ifNoneExist` is left as stored when it exists. Decided inside the write's transaction, so
 * concurrent Bundles of one protocol never undo each other's exams.
 */
export interface IngestMerge {
  /** The existing protocol keeps its request date and tag. */
  keepProtocol?: boolean;
  /** The existing protocol keeps its patient. */
  keepPatient?: boolean;
  /** Existing exams of these keys stay as they are (with their analytes). */
  keepExams?: ReadonlySet<string>;
  /** A new protocol without a password is stored locked (no password opens it) instead of refused. */
  lockWithoutPassword?: boolean;
}

/**
 * Contract 5: creates or replaces a protocol and its exams in one transaction. Exams the body no
 * longer lists are disabled, never deleted; an identical call changes nothing.
 */
export async function ingestProtocol(
  ctx: AppContext,
  institution: Institution,
  number: string,
  body: IngestProtocolInput,
  merge?: IngestMerge,
): Promise<{ created: boolean; result: IngestProtocolResult }> {
  // argon2 is slow on purpose: hash before the transaction so the write lock is held briefly.
  const before = await findProtocolRow(ctx.db, institution.id, number);
  const password = body.password;
  // Without a password nothing is hashed: the transaction keeps the stored hash, or locks a new protocol.
  let passwordHash: string | null = null;
  if (password === null) {
    if (!before && !merge?.lockWithoutPassword) {
      throw badRequest(ServerMessage.validation, [{ field: 'password', message: 'required' }]);
    }
  } else {
    passwordHash =
      before && (await verifyPassword(before.passwordHash, password))
        ? before.passwordHash
        : await hashPassword(password);
  }
  // Two calls writing the same new protocol or exam at once: the loser, rolled back, runs again
  // against what the winner committed and becomes an update. Calls that update the same day
  // counts (docs/decisions.md) may deadlock on PostgreSQL: the one it aborts runs again too.
  return runAgainOnConflict(
    () => writeProtocol(ctx, institution, number, body, passwordHash, merge),
    (error) => isUniqueViolation(error) || isTransientConflict(error),
  );
}

/** Runs `write` (one transaction) again, up to three times in all, while it fails with `retry`. */
async function runAgainOnConflict<T>(write: () => Promise<T>, retry: (error: unknown) => boolean): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= 3 || !retry(error)) throw error;
    }
  }
}

function writeProtocol(
  ctx: AppContext,
  institution: Institution,
  number: string,
  body: IngestProtocolInput,
  passwordHash: string | null,
  merge: IngestMerge | undefined,
): Promise<{ created: boolean; result: IngestProtocolResult }> {
  return ctx.db.transaction().execute(async (trx) => {
    const now = ctx.clock.now().toISOString();
    const existing = await findProtocolRow(trx, institution.id, number);
    const tagId = body.tag ? await findOrCreateTagId(trx, institution.id, body.tag, now) : null;
    const requestedAt = body.requestedAt ?? null;
    const patient = body.patient;
    const cpf = patient.cpf ? digitsOnly(patient.cpf) : '';
    const fields = {
      passwordHash: passwordHash ?? existing?.passwordHash ?? LOCKED_PASSWORD_HASH,
      requestedAt,
      sortAt: requestedAt ?? existing?.createdAt ?? now,
      tagId,
      patientExternalId: patient.patientId,
      patientName: patient.name,
      patientNameSearch: searchableName(patient.name),
      patientBirthDate: patient.birthDate,
      patientGender: patient.gender,
      patientEmail: patient.email ?? null,
      patientPhone: patient.phone ?? null,
      patientCpf: cpf === '' ? null : cpf,
      patientMotherName: patient.motherName ?? null,
      patientPreferredName: patient.preferredName ?? null,
      // A protocol pushed again is live again, also after a DELETE.
      disabled: 0,
    } satisfies Partial<Insertable<ProtocolTable>>;
    if (existing && merge?.keepProtocol) {
      Object.assign(fields, { requestedAt: existing.requestedAt, sortAt: existing.sortAt, tagId: existing.tagId });
    }
    if (existing && merge?.keepPatient) {
      for (const key of Object.keys(fields) as Array<keyof typeof fields>) {
        if (key.startsWith('patient')) Object.assign(fields, { [key]: existing[key] });
      }
    }

    let protocolId: string;
    if (existing) {
      protocolId = existing.id;
      const changes = changedFields(existing, fields);
      if (Object.keys(changes).length > 0) await updateProtocolRow(trx, protocolId, { ...changes, updatedAt: now });
    } else {
      protocolId = newId();
      await insertProtocolRow(trx, {
        id: protocolId,
        institutionId: institution.id,
        number,
        ...fields,
        patientUserId: null,
        createdAt: now,
        updatedAt: now,
      });
    }

    const changedExamIds = await writeExams(trx, protocolId, body, now, merge);
    await syncRequesters(trx, protocolId, body, fields.sortAt, merge !== undefined);
    if (changedExamIds.length > 0) await onExamsChanged(ctx, trx, changedExamIds);
    await autoInvitePatient(ctx, trx, institution, {
      ...fields,
      id: protocolId,
      number,
      patientUserId: existing?.patientUserId ?? null,
    });
    return { created: !existing, result: { requestId: protocolId, number } };
  });
}

async function writeExams(
  trx: Db,
  protocolId: string,
  body: IngestProtocolInput,
  now: string,
  merge: IngestMerge | undefined,
): Promise<string[]> {
  const current = new Map((await listExamRows(trx, protocolId)).map((e) => [e.examKey, e]));
  const changed: string[] = [];
  const listed = new Map<string, string>();
  // Merged exams keep their place; new ones come after the stored ones.
  let nextPosition = Math.max(-1, ...[...current.values()].map((e) => e.position)) + 1;
  const kept = new Set<string>();

  for (const [index, exam] of body.exams.entries()) {
    const row = current.get(exam.examKey);
    if (row && merge?.keepExams?.has(exam.examKey)) {
      kept.add(exam.examKey);
      continue;
    }
    const position = !merge ? index : row ? row.position : nextPosition++;
    const fields = {
      description: exam.description,
      type: exam.type,
      modalityCode: exam.modalityCode,
      modalityName: exam.modalityName,
      requesterIdentifier: exam.requester?.identifier ?? null,
      requesterName: exam.requester?.name ?? null,
      requesterCrm: exam.requester?.crm?.trim() || null,
      requesterUf: exam.requester?.uf || null,
      status: exam.status ?? null,
      statusCode: examStatusCode(exam.status),
      rectificationStatus: exam.rectificationStatus ?? null,
      performedAt: exam.performedAt ?? null,
      deliveredAt: exam.deliveredAt ?? null,
      isEnabled: exam.isEnabled === false ? 0 : 1,
      position,
    } satisfies Partial<Insertable<ExamTable>>;
    if (row) {
      const changes = changedFields(row, fields);
      if (Object.keys(changes).length > 0) {
        await updateExamRow(trx, row.id, { ...changes, updatedAt: now });
        changed.push(row.id);
      }
      listed.set(exam.examKey, row.id);
    } else {
      const id = newId();
      await insertExamRow(trx, { id, protocolId, examKey: exam.examKey, ...fields, createdAt: now, updatedAt: now });
      changed.push(id);
      listed.set(exam.examKey, id);
    }
  }

  for (const row of merge ? [] : current.values()) {
    if (!listed.has(row.examKey) && row.isEnabled === 1) {
      await updateExamRow(trx, row.id, { isEnabled: 0, updatedAt: now });
      changed.push(row.id);
    }
  }

  await writeAnalytes(
    trx,
    body.exams.filter((e) => !kept.has(e.examKey)),
    listed,
  );
  return changed;
}

/**
 * Analytes are upserted by (exam, code). An exam that carries an `analytes` list gives its full
 * list (analytes missing from it are removed); an exam without the key keeps what it had.
 */
async function writeAnalytes(trx: Db, exams: IngestExam[], examIds: Map<string, string>): Promise<void> {
  const withAnalytes = exams.filter((e) => Array.isArray(e.analytes));
  if (withAnalytes.length === 0) return;
  const ids = withAnalytes.map((e) => examIds.get(e.examKey)).filter((id): id is string => !!id);
  const current = new Map((await listAnalyteRows(trx, ids)).map((a) => [`${a.examId}\n${a.code}`, a]));
  const inserts: Insertable<AnalyteTable>[] = [];
  const kept = new Set<string>();
  for (const exam of withAnalytes) {
    const examId = examIds.get(exam.examKey);
    if (!examId) continue;
    const seen = new Set<string>();
    for (const [position, analyte] of (exam.analytes ?? []).entries()) {
      // A repeated code inside one exam: the first one wins, as the unique key requires.
      if (seen.has(analyte.code)) continue;
      seen.add(analyte.code);
      const fields = {
        name: analyte.name,
        unit: analyte.unit ?? null,
        value: String(analyte.value),
        valueNumber: numericValue(analyte.value),
        referenceMin: analyte.referenceMin ?? null,
        referenceMax: analyte.referenceMax ?? null,
        referenceText: analyte.referenceText ?? null,
        abnormalFlag: analyte.abnormalFlag ?? null,
        position,
      } satisfies Partial<Insertable<AnalyteTable>>;
      const key = `${examId}\n${analyte.code}`;
      const row = current.get(key);
      kept.add(key);
      if (!row) {
        inserts.push({ id: newId(), examId, code: analyte.code, ...fields });
      } else {
        const changes = changedFields(row, fields);
        if (Object.keys(changes).length > 0) await updateAnalyteRow(trx, row.id, changes);
      }
    }
  }
  await insertAnalyteRows(trx, inserts);
  await deleteAnalyteRows(
    trx,
    [...current.entries()].filter(([key]) => !kept.has(key)).map(([, row]) => row.id),
  );
}

/** A requester license as one text, to compare and order licenses. */
const licenseKey = (r: { crm: string; uf: string }) => `${r.crm}\n${r.uf}`;

/**
 * One row per requester license (CRM + UF) of the protocol's enabled exams: the physician list
 * reads these instead of scanning exams.
 */
async function syncRequesters(
  trx: Db,
  protocolId: string,
  body: IngestProtocolInput,
  sortAt: string,
  merged: boolean,
): Promise<void> {
  const wanted = new Map<string, { crm: string; uf: string }>();
  // A merge lists only some exams: the licenses are those of every stored exam after it.
  const exams = merged
    ? (await listExamRows(trx, protocolId)).map((e) => ({
        isEnabled: e.isEnabled === 1,
        requester: { crm: e.requesterCrm, uf: e.requesterUf },
      }))
    : body.exams;
  for (const exam of exams) {
    const crm = exam.requester?.crm?.trim();
    const uf = exam.requester?.uf;
    if (exam.isEnabled === false || !crm || !uf) continue;
    wanted.set(licenseKey({ crm, uf }), { crm, uf });
  }
  // Licenses in one order, whatever the order of the exams: concurrent ingests then update the
  // licenses' day counts in the same order.
  const current = await listRequesterRows(trx, protocolId);
  current.sort((a, b) => (licenseKey(a) < licenseKey(b) ? -1 : 1));
  for (const row of current) {
    if (!wanted.delete(licenseKey(row))) await deleteRequesterRow(trx, protocolId, row.crm, row.uf);
  }
  await insertRequesterRows(
    trx,
    [...wanted].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, r]) => ({ protocolId, crm: r.crm, uf: r.uf, sortAt })),
  );
}

/** Contract 5: DELETE disables the protocol; nothing is erased. */
export async function disableProtocol(
  ctx: AppContext,
  institution: Institution,
  number: string,
): Promise<IngestProtocolResult> {
  return runAgainOnConflict(
    () =>
      ctx.db.transaction().execute(async (trx) => {
        const protocol = await requireProtocol(trx, institution, number);
        if (protocol.disabled !== 1) {
          await updateProtocolRow(trx, protocol.id, { disabled: 1, updatedAt: ctx.clock.now().toISOString() });
        }
        return { requestId: protocol.id, number };
      }),
    isTransientConflict,
  );
}

/** How long a repeated invitation call is taken as a retry of the first (no second mail). */
const INVITATION_RETRY_WINDOW_MS = 24 * 3600_000;

/**
 * Contract 5: mails the protocol's patient an invitation to create an account. The token is kept
 * as its sha256 only and lives 7 days. A repeat within a day is a retry and mails nothing new.
 */
export async function invitePatient(
  ctx: AppContext,
  institution: Institution,
  number: string,
  language: Language = DEFAULT_LANGUAGE,
): Promise<IngestProtocolResult> {
  const protocol = await requireProtocol(ctx.db, institution, number);
  const email = protocol.patientEmail;
  if (!email) {
    throw badRequest(ServerMessage.validation, [
      { field: 'patient.email', message: 'the protocol has no patient e-mail to invite' },
    ]);
  }
  const now = ctx.clock.now();
  const since = addMs(now, -INVITATION_RETRY_WINDOW_MS).toISOString();
  await ctx.db.transaction().execute(async (trx) => {
    const recent = await listRecentPatientInvitations(trx, institution.id, email, since);
    const alreadySent = recent.some((r) => {
      try {
        return (JSON.parse(r.payload) as { protocolId?: string }).protocolId === protocol.id;
      } catch {
        return false;
      }
    });
    if (alreadySent) return;
    await queuePatientInvitation(ctx, trx, institution, protocol, email, language, 'INVITE_SEND');
  });
  return { requestId: protocol.id, number };
}

/** The protocol fields an invitation carries (the new account's fixed name and the protocol it links). */
type InvitedProtocol = Pick<ProtocolRow, 'id' | 'number' | 'patientName' | 'patientBirthDate' | 'patientCpf'>;

/**
 * Stores a patient invitation (7 days, only its sha256 kept) and queues its mail in `trx`: the
 * token and the mail commit together.
 */
async function queuePatientInvitation(
  ctx: AppContext,
  trx: Db,
  institution: Institution,
  protocol: InvitedProtocol,
  email: string,
  language: Language,
  status: 'INVITE_SEND' | 'AUTO_INVITE',
  id: string = newId(),
): Promise<void> {
  const now = ctx.clock.now();
  const token = newSecretToken();
  await insertOneTimeTokenRow(trx, {
    id,
    kind: 'INVITE_PATIENT',
    tokenHash: sha256Hex(token),
    userId: null,
    email,
    institutionId: institution.id,
    payload: JSON.stringify({
      protocolId: protocol.id,
      protocolNumber: protocol.number,
      name: protocol.patientName,
      birthDate: protocol.patientBirthDate,
      cpf: protocol.patientCpf,
    }),
    status,
    language,
    expiresAt: addMs(now, TOKEN_TTL_MS.invitation).toISOString(),
    usedAt: null,
    createdAt: now.toISOString(),
  });
  const link = `${ctx.config.publicUrl}/patient/create?token=${encodeURIComponent(token)}&language=${language}`;
  await queueMail(
    ctx,
    {
      kind: 'patientInvitation',
      to: email,
      language,
      link,
      institutionName: institution.name,
      institutionId: institution.id,
      params: { name: protocol.patientName, protocolNumber: protocol.number },
    },
    trx,
  );
}

/**
 * `autoInvitePatients`: a protocol ingested for a patient with an e-mail and without an account
 * (no account has that e-mail or CPF, the protocol is linked to none) invites him by itself, with
 * spec 3's status AUTO_INVITE. Once per institution and patient: the row keyed by the patient id
 * is taken first, so of concurrent ingests of that patient exactly one queues the mail. Runs last
 * in the ingest's transaction (its lock is the last one taken) and commits or rolls back with it.
 */
async function autoInvitePatient(
  ctx: AppContext,
  trx: Db,
  institution: Institution,
  protocol: InvitedProtocol & { patientUserId: string | null; patientExternalId: string; patientEmail: string | null },
): Promise<void> {
  const email = protocol.patientEmail;
  if (!institution.settings.autoInvitePatients || !email || protocol.patientUserId) return;
  if (await hasAccount(trx, email, protocol.patientCpf)) return;
  const tokenId = newId();
  const claimed = await claimAutoInvitation(trx, {
    institutionId: institution.id,
    patientExternalId: protocol.patientExternalId,
    tokenId,
    createdAt: ctx.clock.now().toISOString(),
  });
  if (claimed) {
    await queuePatientInvitation(ctx, trx, institution, protocol, email, DEFAULT_LANGUAGE, 'AUTO_INVITE', tokenId);
  }
}
