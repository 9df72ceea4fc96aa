import fs from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { PNG } from 'pngjs';
import { type Insertable, sql } from 'kysely';
import type { AppContext } from '../apps/server/src/context.js';
import type { Database } from '../apps/server/src/db/schema.js';
import { newId, sha256Hex } from '../apps/server/src/lib/ids.js';
import { VERIFICATION_CODE_ALPHABET, VERIFICATION_CODE_LENGTH } from '@portal/shared/schemas/signatures';

/** A seeded generator, so every run builds the same clinic. */
export function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export interface ClinicSizes {
  protocols: number;
  examsPerProtocol: number;
}

/**
 * The users whose lists are measured. The first four have the same amount of their own data at
 * every clinic size, as real users do (a patient's protocols do not multiply because the clinic
 * grows); the two heavy ones own a fixed share of the clinic, to show what their lists cost.
 */
export interface Clinic {
  institutionId: string;
  /** 24 protocols over the year. */
  patientId: string;
  /** Requests 2,000 protocols a year (about 38 a week). */
  physicianId: string;
  /** Member of a tag carried by 5,000 protocols a year (about 96 a week). */
  externalId: string;
  guestProtocolId: string;
  /** 1 in 40 of the clinic's protocols. */
  heavyPatientId: string;
  /** Requests 1 in 20 of the clinic's protocols. */
  heavyPhysicianId: string;
  sampleProtocolIds: string[];
}

export const BENCH_NOW = Date.parse('2026-11-20T12:00:00.000Z');

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Ordered UUID-shaped ids: rows land at the end of their primary-key index, as with UUIDv7. */
function idMaker(kind: number) {
  let n = 0;
  return () => {
    const hex = (n++).toString(16).padStart(12, '0');
    return `${kind.toString(16).padStart(8, '0')}-0000-7000-8000-${hex}`;
  };
}

type Row = Record<string, unknown>;
type Batch = Array<[string, Row[]]>;

/**
 * Bulk rows into the tables without query building: on SQLite one prepared statement per table
 * inside one transaction per batch; on PostgreSQL one `json_populate_recordset` insert per table.
 */
function bulkWriter(ctx: AppContext): (batches: Batch) => Promise<void> {
  const sqlite = ctx.database.sqlite;
  if (!sqlite) {
    return async (batches) => {
      await ctx.db.transaction().execute(async (trx) => {
        for (const [table, rows] of batches) {
          if (rows.length === 0) continue;
          // Only the columns given: the others keep their defaults (a record would make them null).
          const columns = sql.join(Object.keys(rows[0]!).map((c) => sql.ref(snake(c))));
          for (let i = 0; i < rows.length; i += 20_000) {
            const json = JSON.stringify(
              rows
                .slice(i, i + 20_000)
                .map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [snake(k), v]))),
            );
            await sql`insert into ${sql.table(snake(table))} (${columns}) select ${columns} from json_populate_recordset(null::${sql.table(snake(table))}, ${json}::json)`.execute(
              trx,
            );
          }
        }
      });
    };
  }
  const statements = new Map<string, (row: Row) => void>();
  const insertOne = (table: string, row: Row) => {
    let insert = statements.get(table);
    if (!insert) {
      const columns = Object.keys(row);
      const stmt = sqlite.prepare(
        `insert into ${snake(table)} (${columns.map(snake).join(', ')}) values (${columns.map(() => '?').join(', ')})`,
      );
      insert = (r) => void stmt.run(columns.map((c) => r[c] as unknown));
      statements.set(table, insert);
    }
    insert(row);
  };
  const write = sqlite.transaction((batches: Batch) => {
    for (const [table, rows] of batches) for (const row of rows) insertOne(table, row);
  });
  return async (batches) => write(batches);
}

/**
 * A large clinic straight into the tables: protocols spread over the year before BENCH_NOW,
 * `examsPerProtocol` exams each with one stored report, one requester license per protocol, a tag
 * on every protocol, one patient account per 4 protocols and one physician per 500.
 */
export async function generateClinic(
  ctx: AppContext,
  sizes: ClinicSizes,
  progress: (done: number) => void = () => {},
): Promise<Clinic> {
  const random = rng(42);
  const iso = new Date(BENCH_NOW).toISOString();
  const institutionId = newId();
  await ctx.db
    .insertInto('institutions')
    .values({
      id: institutionId,
      code: 'BIG',
      name: 'Big Clinic',
      token: 'big-token',
      apiKeyHash: sha256Hex('bench'),
      viewType: 1,
      logoPath: null,
      supportEmail: null,
      supportPhoneNumber: null,
      supportWhatsappNumber: null,
      settings: '{}',
      createdAt: iso,
      updatedAt: iso,
    })
    .execute();
  const write = bulkWriter(ctx);
  const userId = idMaker(1);
  const user = (type: 'PATIENT' | 'PHYSICIAN' | 'EXTERNAL', i: number, crm: string | null = null) => ({
    id: userId(),
    type,
    email: `${type.toLowerCase()}${i}@bench.test`,
    passwordHash: null,
    name: `${type} ${i}`,
    active: 1,
    disabled: 0,
    birth: '1980-01-01',
    gender: 'FEMALE',
    cpf: null,
    phoneMobile: null,
    phoneLandline: null,
    mfaPhone: null,
    mfaChannel: null,
    mfaEnabled: 0,
    frequencyReceiveEmail: 'DEFAULT',
    language: 'pt-br',
    licenseNumber: crm,
    licenseState: crm ? 'SP' : null,
    favoriteTagId: null,
    institutionId: null,
    createdAt: iso,
    updatedAt: iso,
  });
  const patients = Array.from({ length: Math.max(10, Math.floor(sizes.protocols / 4)) }, (_, i) => user('PATIENT', i));
  const physicians = Array.from({ length: Math.max(200, Math.floor(sizes.protocols / 500)) }, (_, i) =>
    user('PHYSICIAN', i, String(10000 + i)),
  );
  const external = user('EXTERNAL', 0);
  const tags = Array.from({ length: Math.max(20, Math.floor(sizes.protocols / 5000)) }, (_, i) => ({
    id: newId(),
    institutionId,
    tag: `tag-${i}`,
    createdAt: iso,
  }));
  await write([
    ['users', [...patients, ...physicians, external]],
    ['tags', tags],
    ['tagMembers', [{ tagId: tags[0]!.id, userId: external.id, createdAt: iso }]],
    // The clinic vouches for its physicians: their licenses open its protocols.
    ['physicianVouches', physicians.map((p) => ({ userId: p.id, institutionId, createdBy: null, createdAt: iso }))],
  ]);

  // One stored report shared by every exam row: lists never read file bytes.
  const report = await reportPdf('bench', 1, 1);
  const reportFacts = { size: report.length, sha256: sha256Hex(report), crc32: zlib.crc32(report) >>> 0 };
  const key = 'bench/shared-report';
  const file = ctx.storage.localPath!(key);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, report);

  // Every `every(n)`-th protocol belongs to a measured user, so their volumes are fixed.
  const every = (perYear: number) => Math.max(1, Math.floor(sizes.protocols / perYear));
  const patientEvery = every(24);
  const physicianEvery = every(2000);
  const tagEvery = every(5000);
  const [patient, heavyPatient, physician, heavyPhysician] = [
    patients[0]!,
    patients[1]!,
    physicians[0]!,
    physicians[1]!,
  ];
  const protocolId = idMaker(2);
  const examId = idMaker(3);
  const resourceId = idMaker(4);
  // Verification codes in sequence (unique, as the index wants), written in the codes' alphabet.
  let codeSeq = 0;
  const nextCode = () => {
    let k = codeSeq++;
    let code = '';
    for (let i = 0; i < VERIFICATION_CODE_LENGTH; i++) {
      code = VERIFICATION_CODE_ALPHABET[k % VERIFICATION_CODE_ALPHABET.length] + code;
      k = Math.floor(k / VERIFICATION_CODE_ALPHABET.length);
    }
    return code;
  };
  const chunk = ctx.database.sqlite ? 20_000 : 5000;
  const sample: string[] = [];
  for (let start = 0; start < sizes.protocols; start += chunk) {
    const protocols: Database['protocols'][] = [];
    const exams: Insertable<Database['exams']>[] = [];
    const requesters: Insertable<Database['protocolRequesters']>[] = [];
    const resources: Database['resources'][] = [];
    for (let n = start; n < Math.min(sizes.protocols, start + chunk); n++) {
      const id = protocolId();
      const sortAt = new Date(BENCH_NOW - Math.floor(random() * 365 * 24 * 3600_000)).toISOString();
      const owner =
        n % patientEvery === 0
          ? patient
          : n % 40 === 1
            ? heavyPatient
            : patients[2 + Math.floor(random() * (patients.length - 2))]!;
      const requester =
        n % physicianEvery === 0
          ? physician
          : n % 20 === 1
            ? heavyPhysician
            : physicians[2 + Math.floor(random() * (physicians.length - 2))]!;
      const tag = n % tagEvery === 0 ? tags[0]! : tags[1 + Math.floor(random() * (tags.length - 1))]!;
      const name = `paciente ${n}`;
      protocols.push({
        id,
        institutionId,
        number: `B${String(n).padStart(8, '0')}`,
        passwordHash: 'x',
        requestedAt: sortAt,
        sortAt,
        tagId: tag.id,
        patientExternalId: `PID${n}`,
        patientName: name,
        patientNameSearch: name,
        patientBirthDate: '1980-01-01',
        patientGender: 'FEMALE',
        patientEmail: owner.email,
        patientPhone: null,
        patientCpf: null,
        patientMotherName: null,
        patientPreferredName: null,
        patientUserId: owner.id,
        disabled: 0,
        createdAt: iso,
        updatedAt: iso,
      });
      // The heavy physician requested these: he batch-prints them.
      if (sample.length < 50 && n % 20 === 1) sample.push(id);
      requesters.push({ protocolId: id, crm: requester.licenseNumber!, uf: 'SP', sortAt });
      for (let e = 0; e < sizes.examsPerProtocol; e++) {
        const eid = examId();
        exams.push({
          id: eid,
          protocolId: id,
          examKey: `E${e}`,
          description: ['Hemograma', 'Glicemia', 'Raio X', 'Ultrassom'][e % 4]!,
          type: e % 2 ? 'IMAGE' : 'LAB',
          modalityCode: 'LAB',
          modalityName: 'Laboratory',
          requesterIdentifier: requester.licenseNumber,
          requesterName: requester.name,
          requesterCrm: requester.licenseNumber,
          requesterUf: 'SP',
          status: 'RELEASED',
          statusCode: 'L',
          rectificationStatus: null,
          performedAt: sortAt,
          deliveredAt: null,
          isEnabled: 1,
          position: e,
          createdAt: iso,
          updatedAt: iso,
        });
        resources.push({
          id: resourceId(),
          examId: eid,
          identifier: `R${n}-${e}`,
          type: 'REPORT',
          storageKey: key,
          contentType: 'application/pdf',
          ...reportFacts,
          pageCount: 1,
          signedStorageKey: null,
          signedContentType: null,
          signedSize: null,
          signedSha256: null,
          signedCrc32: null,
          verificationCode: nextCode(),
          signatureCheck: null,
          createdAt: iso,
          updatedAt: iso,
        });
      }
    }
    await write([
      ['protocols', protocols],
      ['protocolRequesters', requesters],
      ['exams', exams],
      ['resources', resources],
    ] as unknown as Batch);
    progress(Math.min(sizes.protocols, start + chunk));
  }
  return {
    institutionId,
    patientId: patient.id,
    physicianId: physician.id,
    externalId: external.id,
    guestProtocolId: sample[0]!,
    heavyPatientId: heavyPatient.id,
    heavyPhysicianId: heavyPhysician.id,
    sampleProtocolIds: sample,
  };
}

/**
 * A report-like PDF: `pages` pages of text over a noise image, so its size behaves like a
 * scanned or image-bearing report (images do not compress).
 */
export async function reportPdf(label: string, pages: number, seed: number, objectStreams = false): Promise<Buffer> {
  const random = rng(seed);
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const png = new PNG({ width: 160, height: 160 });
  for (let i = 0; i < png.data.length; i++) png.data[i] = i % 4 === 3 ? 255 : Math.floor(random() * 256);
  const image = await doc.embedPng(PNG.sync.write(png));
  for (let p = 0; p < pages; p++) {
    const page = doc.addPage([595, 842]);
    page.drawImage(image, { x: 50, y: 500, width: 300, height: 300 });
    for (let line = 0; line < 30; line++) {
      page.drawText(`${label} page ${p + 1} line ${line}: resultado dentro dos valores de referencia`, {
        x: 40,
        y: 460 - line * 14,
        size: 10,
        font,
      });
    }
  }
  return Buffer.from(await doc.save({ useObjectStreams: objectStreams }));
}
