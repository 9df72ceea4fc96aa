import { newVerificationCode } from '../signatures/verification-code.js';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { PNG } from 'pngjs';
import type { AppContext } from '../../context.js';
import { SEPARATOR } from '../../db/database.js';
import type { UserType } from '../../db/schema.js';
import { newId, sha256Hex } from '../../lib/ids.js';
import { FIELD_SEPARATOR, type ListedProtocolRow } from './delivery.repository.js';

/** Factories for delivery tests: each inserts exactly the rows a test asks for. */
let seq = 0;
const next = () => ++seq;
const NOW = '2026-11-20T12:00:00.000Z';

export async function makeInstitution(
  ctx: AppContext,
  input: { name?: string; code?: string; settings?: Record<string, unknown> } = {},
) {
  const n = next();
  const row = {
    id: newId(),
    code: input.code ?? `INST${n}`,
    name: input.name ?? `Clinic ${n}`,
    token: `tok-${n}-${newId().slice(0, 8)}`,
    apiKeyHash: sha256Hex(`key-${n}`),
    viewType: 1,
    logoPath: null,
    supportEmail: null,
    supportPhoneNumber: null,
    supportWhatsappNumber: null,
    settings: JSON.stringify(input.settings ?? {}),
    createdAt: NOW,
    updatedAt: NOW,
  };
  await ctx.db.insertInto('institutions').values(row).execute();
  return row;
}

export async function makeUser(
  ctx: AppContext,
  input: {
    type: UserType;
    name?: string;
    email?: string;
    crm?: string;
    uf?: string;
    institutionId?: string;
    /** Physicians: the institutions that vouch for the account (its license opens theirs only). */
    vouchedBy?: string[];
    frequency?: string;
    language?: string;
  },
) {
  const n = next();
  const row = {
    id: newId(),
    type: input.type,
    email: input.email ?? `user${n}@example.test`,
    passwordHash: null,
    name: input.name ?? `User ${n}`,
    active: 1,
    disabled: 0,
    birth: '1980-01-02',
    gender: 'FEMALE',
    cpf: null,
    phoneMobile: null,
    phoneLandline: null,
    mfaPhone: null,
    mfaChannel: null,
    mfaEnabled: 0,
    frequencyReceiveEmail: input.frequency ?? 'DEFAULT',
    language: input.language ?? 'pt-br',
    licenseNumber: input.crm ?? null,
    licenseState: input.uf ?? null,
    favoriteTagId: null,
    institutionId: input.institutionId ?? null,
    createdAt: NOW,
    updatedAt: NOW,
  };
  await ctx.db.insertInto('users').values(row).execute();
  for (const institutionId of input.vouchedBy ?? []) {
    await ctx.db
      .insertInto('physicianVouches')
      .values({ userId: row.id, institutionId, createdBy: null, createdAt: NOW })
      .execute();
  }
  return row;
}

export async function makeTag(ctx: AppContext, institutionId: string, members: string[] = [], tag?: string) {
  const id = newId();
  await ctx.db
    .insertInto('tags')
    .values({ id, institutionId, tag: tag ?? `tag-${next()}`, createdAt: NOW })
    .execute();
  for (const userId of members)
    await ctx.db.insertInto('tagMembers').values({ tagId: id, userId, createdAt: NOW }).execute();
  return { id };
}

/** An institution's visualizer settings (spec 6): per exam type, its image button hidden, and whether it is served at all. */
export async function makeVisualizerSettings(
  ctx: AppContext,
  institutionId: string,
  settings: Array<{ type: string; hideButton?: boolean; enable?: boolean }>,
) {
  await ctx.db
    .insertInto('visualizerSettings')
    .values(
      settings.map((v) => ({
        id: newId(),
        institutionId,
        examTypeCode: v.type,
        hideButton: v.hideButton ? 1 : 0,
        enable: v.enable === false ? 0 : 1,
      })),
    )
    .execute();
}

export interface ExamInput {
  examKey?: string;
  description?: string;
  type?: string;
  status?: string | null;
  rectificationStatus?: string | null;
  performedAt?: string | null;
  isEnabled?: boolean;
  requester?: { crm: string; uf: string; name?: string };
  analytes?: Array<{ code: string; name: string; unit?: string; value: string | number; min?: number; max?: number }>;
}

export async function makeProtocol(
  ctx: AppContext,
  input: {
    institutionId: string;
    number?: string;
    requestedAt?: string | null;
    patientUserId?: string | null;
    patientName?: string;
    patientEmail?: string | null;
    birthDate?: string;
    tagId?: string | null;
    disabled?: boolean;
    exams?: ExamInput[];
  },
) {
  const n = next();
  const requestedAt = input.requestedAt === undefined ? '2026-11-18T13:00:00.000Z' : input.requestedAt;
  const name = input.patientName ?? `Patient ${n}`;
  const protocol = {
    id: newId(),
    institutionId: input.institutionId,
    number: input.number ?? `P${100000 + n}`,
    passwordHash: 'x',
    requestedAt,
    sortAt: requestedAt ?? NOW,
    tagId: input.tagId ?? null,
    patientExternalId: `PID${n}`,
    patientName: name,
    patientNameSearch: name
      .normalize('NFD')
      .replace(/\p{Diacritic}/gu, '')
      .toLowerCase(),
    patientBirthDate: input.birthDate ?? '1980-01-02',
    patientGender: 'FEMALE',
    patientEmail: input.patientEmail === undefined ? `patient${n}@example.test` : input.patientEmail,
    patientPhone: null,
    patientCpf: null,
    patientMotherName: null,
    patientUserId: input.patientUserId ?? null,
    disabled: input.disabled ? 1 : 0,
    createdAt: NOW,
    updatedAt: NOW,
  };
  await ctx.db.insertInto('protocols').values(protocol).execute();
  const exams = [];
  const licenses = new Set<string>();
  for (const [i, e] of (input.exams ?? [{}]).entries()) {
    const exam = {
      id: newId(),
      protocolId: protocol.id,
      examKey: e.examKey ?? `EX${n}-${i}`,
      description: e.description ?? `Exam ${i}`,
      type: e.type ?? 'LAB',
      modalityCode: 'LAB',
      modalityName: 'Laboratory',
      requesterIdentifier: e.requester ? `R-${e.requester.crm}` : null,
      requesterName: e.requester?.name ?? (e.requester ? 'Dr. Who' : null),
      requesterCrm: e.requester?.crm ?? null,
      requesterUf: e.requester?.uf ?? null,
      status: e.status === undefined ? 'RELEASED' : e.status,
      statusCode: 'L',
      rectificationStatus: e.rectificationStatus ?? null,
      performedAt: e.performedAt === undefined ? protocol.sortAt : e.performedAt,
      deliveredAt: null,
      isEnabled: e.isEnabled === false ? 0 : 1,
      position: i,
      createdAt: NOW,
      updatedAt: NOW,
    };
    await ctx.db.insertInto('exams').values(exam).execute();
    if (e.requester && !licenses.has(`${e.requester.crm}|${e.requester.uf}`)) {
      licenses.add(`${e.requester.crm}|${e.requester.uf}`);
      await ctx.db
        .insertInto('protocolRequesters')
        .values({ protocolId: protocol.id, crm: e.requester.crm, uf: e.requester.uf, sortAt: protocol.sortAt })
        .execute();
    }
    for (const [j, a] of (e.analytes ?? []).entries()) {
      await ctx.db
        .insertInto('analytes')
        .values({
          id: newId(),
          examId: exam.id,
          code: a.code,
          name: a.name,
          unit: a.unit ?? null,
          value: String(a.value),
          valueNumber: typeof a.value === 'number' ? a.value : null,
          referenceMin: a.min ?? null,
          referenceMax: a.max ?? null,
          referenceText: null,
          position: j,
        })
        .execute();
    }
    exams.push(exam);
  }
  return { protocol, exams };
}

/** A real PDF with `pages` pages, each carrying `label` so merged output can be checked. */
export async function pdfBytes(
  label: string,
  pages = 1,
  options: { objectStreams?: boolean; width?: number; paddingBytes?: number } = {},
): Promise<Buffer> {
  const doc = await PDFDocument.create();
  // An attached file of random bytes makes a large report (random bytes do not compress).
  if (options.paddingBytes) await doc.attach(randomBytes(options.paddingBytes), 'padding.bin', {});
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < pages; i++) {
    const page = doc.addPage([options.width ?? 595, 842]);
    page.drawText(`${label} page ${i + 1}`, { x: 50, y: 780, size: 18, font });
  }
  return Buffer.from(await doc.save({ useObjectStreams: options.objectStreams ?? false }));
}

export function pngBytes(): Buffer {
  const png = new PNG({ width: 4, height: 4 });
  png.data.fill(200);
  return PNG.sync.write(png);
}

/** Stores a file through the portal's storage, as ingest does. */
export async function storeBytes(ctx: AppContext, key: string, bytes: Buffer, contentType: string) {
  return ctx.storage.put(key, Readable.from([bytes]), { contentType, maxBytes: 1 << 30 });
}

export async function makeResource(
  ctx: AppContext,
  input: {
    examId: string;
    type: 'REPORT' | 'REPORT_PHYSICIAN' | 'IMAGE' | 'ANALYSIS';
    bytes: Buffer;
    contentType?: string;
    signed?: { bytes: Buffer; contentType: string };
    createdAt?: string;
  },
) {
  const id = newId();
  const contentType = input.contentType ?? (input.type === 'IMAGE' ? 'image/png' : 'application/pdf');
  const key = `results/${id}`;
  const stored = await storeBytes(ctx, key, input.bytes, contentType);
  const signed = input.signed
    ? await storeBytes(ctx, `${key}-signed`, input.signed.bytes, input.signed.contentType)
    : null;
  await ctx.db
    .insertInto('resources')
    .values({
      id,
      examId: input.examId,
      identifier: `ID-${next()}`,
      type: input.type,
      storageKey: key,
      contentType,
      size: stored.size,
      sha256: stored.sha256,
      crc32: stored.crc32,
      pageCount: null,
      signedStorageKey: signed ? `${key}-signed` : null,
      signedContentType: input.signed?.contentType ?? null,
      signedSize: signed?.size ?? null,
      signedSha256: signed?.sha256 ?? null,
      signedCrc32: signed?.crc32 ?? null,
      verificationCode: newVerificationCode(),
      createdAt: input.createdAt ?? NOW,
      updatedAt: NOW,
    })
    .execute();
  return { id, storageKey: key };
}

/** A share of some protocols and its session; `revoke()` ends the share. */
export async function makeShare(
  ctx: AppContext,
  patientUserId: string,
  protocolIds: string[],
  sessionFor: (input: { role: 'SHARE'; username: string; shareId: string; protocolIds: string[] }) => Promise<string>,
) {
  const id = newId();
  await ctx.db
    .insertInto('shares')
    .values({
      id,
      patientUserId,
      email: `friend${next()}@example.test`,
      tokenHash: sha256Hex(id),
      message: null,
      daysExpiration: 3,
      language: 'pt-br',
      institutionId: null,
      active: 1,
      createdAt: NOW,
      expiresAt: '2026-12-31T00:00:00.000Z',
      canceledAt: null,
    })
    .execute();
  for (const protocolId of protocolIds)
    await ctx.db.insertInto('shareProtocols').values({ shareId: id, protocolId }).execute();
  const token = await sessionFor({ role: 'SHARE', username: 'share', shareId: id, protocolIds });
  return {
    id,
    token,
    revoke: () => ctx.db.updateTable('shares').set({ active: 0, canceledAt: NOW }).where('id', '=', id).execute(),
  };
}

type SessionFor = (input: {
  role: 'PATIENT' | 'PHYSICIAN' | 'EXTERNAL' | 'GUEST' | 'SHARE' | 'ADMIN' | 'COMPANY';
  userId?: string;
  username: string;
  protocolIds?: string[];
  shareId?: string;
}) => Promise<string>;

/**
 * One clinic with: protocol A of `owner` (requested by `physician`, a report, an image and a
 * lab analyte), protocol B of `otherPatient`, protocol C carrying the tag of `external`; plus a
 * sign-in for every kind of caller of the access matrix.
 */
export async function makeWorld(ctx: AppContext, sessionFor: SessionFor) {
  const institution = await makeInstitution(ctx, { name: 'Clinica Alfa' });
  const owner = await makeUser(ctx, { type: 'PATIENT', name: 'Ana Owner' });
  const otherPatient = await makeUser(ctx, { type: 'PATIENT', name: 'Otto Other' });
  const vouchedBy = [institution.id];
  const physician = await makeUser(ctx, { type: 'PHYSICIAN', name: 'Dr Pedro', crm: '12345', uf: 'SP', vouchedBy });
  const otherPhysician = await makeUser(ctx, { type: 'PHYSICIAN', name: 'Dr Outro', crm: '999', uf: 'RJ', vouchedBy });
  const external = await makeUser(ctx, { type: 'EXTERNAL', name: 'Ext User' });
  const otherExternal = await makeUser(ctx, { type: 'EXTERNAL', name: 'Ext Other' });
  const admin = await makeUser(ctx, { type: 'ADMIN', name: 'Admin' });
  const tag = await makeTag(ctx, institution.id, [external.id]);
  const otherTag = await makeTag(ctx, institution.id, [otherExternal.id]);
  const a = await makeProtocol(ctx, {
    institutionId: institution.id,
    patientUserId: owner.id,
    patientName: 'Ana Owner',
    exams: [
      {
        description: 'Hemograma completo',
        requester: { crm: '12345', uf: 'SP' },
        analytes: [{ code: 'HB', name: 'Hemoglobina', unit: 'g/dL', value: 13.5, min: 12, max: 16 }],
      },
      { description: 'Raio X torax', type: 'XRAY', requester: { crm: '12345', uf: 'SP' } },
    ],
  });
  const b = await makeProtocol(ctx, { institutionId: institution.id, patientUserId: otherPatient.id });
  const c = await makeProtocol(ctx, { institutionId: institution.id, tagId: tag.id, patientName: 'Caio Tagged' });
  const [examA0, examA1] = a.exams as [(typeof a.exams)[number], (typeof a.exams)[number]];
  const reportA = await makeResource(ctx, {
    examId: examA0.id,
    type: 'REPORT',
    bytes: await pdfBytes('A report', 2),
    signed: { bytes: Buffer.from('signed-bytes'), contentType: 'application/pkcs7-signature' },
  });
  const imageA = await makeResource(ctx, { examId: examA1.id, type: 'IMAGE', bytes: pngBytes() });
  const reportB = await makeResource(ctx, { examId: b.exams[0]!.id, type: 'REPORT', bytes: await pdfBytes('B') });
  const reportC = await makeResource(ctx, { examId: c.exams[0]!.id, type: 'REPORT', bytes: await pdfBytes('C') });
  const share = await makeShare(ctx, owner.id, [a.protocol.id], (i) => sessionFor(i));
  const tokens = {
    owner: await sessionFor({ role: 'PATIENT', userId: owner.id, username: owner.email }),
    otherPatient: await sessionFor({ role: 'PATIENT', userId: otherPatient.id, username: otherPatient.email }),
    physician: await sessionFor({ role: 'PHYSICIAN', userId: physician.id, username: physician.email }),
    otherPhysician: await sessionFor({ role: 'PHYSICIAN', userId: otherPhysician.id, username: otherPhysician.email }),
    external: await sessionFor({ role: 'EXTERNAL', userId: external.id, username: external.email }),
    otherExternal: await sessionFor({ role: 'EXTERNAL', userId: otherExternal.id, username: otherExternal.email }),
    guestA: await sessionFor({ role: 'GUEST', username: a.protocol.number, protocolIds: [a.protocol.id] }),
    guestB: await sessionFor({ role: 'GUEST', username: b.protocol.number, protocolIds: [b.protocol.id] }),
    share: share.token,
    admin: await sessionFor({ role: 'ADMIN', userId: admin.id, username: admin.email }),
  };
  return {
    institution,
    users: { owner, otherPatient, physician, otherPhysician, external, otherExternal, admin },
    tag,
    otherTag,
    a,
    b,
    c,
    resources: { reportA, imageA, reportB, reportC },
    share,
    tokens,
  };
}

/**
 * A list row as a person sees it: each exam's read mark folded into its flags, whether the row
 * carried it there or in `readExamIds` (a physician's kept list rows).
 */
export function shownRow(row: ListedProtocolRow) {
  const { readExamIds, exams, ...columns } = row;
  const list = (exams ? exams.split(SEPARATOR) : []).map((exam) => {
    const [id = '', type, rectification, flags = '0', ...rest] = exam.split(FIELD_SEPARATOR);
    const read = readExamIds?.has(id) ? 8 : 0;
    return [id, type, rectification, String(Number(flags) | read), ...rest].join(FIELD_SEPARATOR);
  });
  return { ...columns, exams: list };
}
