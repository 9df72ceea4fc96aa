import fs from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { PNG } from 'pngjs';
import type { AppContext } from '../apps/server/src/context.js';
import type { Database } from '../apps/server/src/db/schema.js';
import { newId, sha256Hex } from '../apps/server/src/lib/ids.js';

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
  patients: number;
  physicians: number;
  tags: number;
}

export interface Clinic {
  institutionId: string;
  heavyPatientId: string;
  heavyPhysicianId: string;
  externalId: string;
  guestProtocolId: string;
  sampleProtocolIds: string[];
}

const NOW = Date.parse('2026-11-20T12:00:00.000Z');

async function insertBatched<T>(db: AppContext['db'], table: string, rows: T[]): Promise<void> {
  // SQLite allows 32766 bound parameters per statement; stay well under it.
  const per = Math.max(1, Math.floor(3000 / Math.max(1, Object.keys(rows[0] ?? {}).length)));
  for (let i = 0; i < rows.length; i += per) {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    await (db as any)
      .insertInto(table)
      .values(rows.slice(i, i + per))
      .execute();
  }
}

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * Bulk rows into the tables: on SQLite one prepared statement per table inside one transaction
 * (query building would dominate a million-protocol clinic), elsewhere multi-row inserts.
 */
function bulkWriter(ctx: AppContext) {
  const sqlite = ctx.database.sqlite;
  if (!sqlite) {
    return async (batches: Array<[string, Array<Record<string, unknown>>]>) => {
      await ctx.db.transaction().execute(async (trx) => {
        for (const [table, rows] of batches) if (rows.length > 0) await insertBatched(trx, table, rows);
      });
    };
  }
  const statements = new Map<string, (row: Record<string, unknown>) => void>();
  const insertOne = (table: string, row: Record<string, unknown>) => {
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
  const write = sqlite.transaction((batches: Array<[string, Array<Record<string, unknown>>]>) => {
    for (const [table, rows] of batches) for (const row of rows) insertOne(table, row);
  });
  return async (batches: Array<[string, Array<Record<string, unknown>>]>) => write(batches);
}

/**
 * A large clinic straight into the tables: protocols spread over a year, each with exams
 * requested by one of `physicians` licenses, a tag on every protocol, one heavy patient (about
 * 1 in 40 protocols), one heavy physician (1 in 20) and one external user of the first tag.
 */
export async function generateClinic(ctx: AppContext, sizes: ClinicSizes): Promise<Clinic> {
  const random = rng(42);
  const iso = new Date(NOW).toISOString();
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
  const user = (type: 'PATIENT' | 'PHYSICIAN' | 'EXTERNAL', i: number, crm: string | null = null) => ({
    id: newId(),
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
  const patients = Array.from({ length: sizes.patients }, (_, i) => user('PATIENT', i));
  const physicians = Array.from({ length: sizes.physicians }, (_, i) => user('PHYSICIAN', i, String(10000 + i)));
  const external = user('EXTERNAL', 0);
  await insertBatched(ctx.db, 'users', [...patients, ...physicians, external]);
  const tags = Array.from({ length: sizes.tags }, (_, i) => ({
    id: newId(),
    institutionId,
    tag: `tag-${i}`,
    createdAt: iso,
  }));
  await insertBatched(ctx.db, 'tags', tags);
  await ctx.db.insertInto('tagMembers').values({ tagId: tags[0]!.id, userId: external.id, createdAt: iso }).execute();

  // One stored report shared by every exam row: lists never read file bytes.
  const report = await reportPdf('bench', 1, 1);
  const reportFacts = { size: report.length, sha256: sha256Hex(report), crc32: zlib.crc32(report) >>> 0 };
  const key = 'bench/shared-report';
  const file = ctx.storage.localPath!(key);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, report);

  const write = bulkWriter(ctx);
  const chunk = ctx.database.sqlite ? 20_000 : 2000;
  const sample: string[] = [];
  for (let start = 0; start < sizes.protocols; start += chunk) {
    const protocols: Database['protocols'][] = [];
    const exams: Database['exams'][] = [];
    const requesters: Database['protocolRequesters'][] = [];
    const resources: Database['resources'][] = [];
    for (let n = start; n < Math.min(sizes.protocols, start + chunk); n++) {
      const id = newId();
      const sortAt = new Date(NOW - Math.floor(random() * 365 * 24 * 3600_000)).toISOString();
      const patient = n % 40 === 0 ? patients[0]! : patients[Math.floor(random() * patients.length)]!;
      const physician = n % 20 === 0 ? physicians[0]! : physicians[Math.floor(random() * physicians.length)]!;
      const name = `paciente ${n}`;
      protocols.push({
        id,
        institutionId,
        number: `B${String(n).padStart(8, '0')}`,
        passwordHash: 'x',
        requestedAt: sortAt,
        sortAt,
        tagId: tags[n % tags.length]!.id,
        patientExternalId: `PID${n}`,
        patientName: name,
        patientNameSearch: name,
        patientBirthDate: '1980-01-01',
        patientGender: 'FEMALE',
        patientEmail: patient.email,
        patientPhone: null,
        patientCpf: null,
        patientMotherName: null,
        patientUserId: patient.id,
        disabled: 0,
        createdAt: iso,
        updatedAt: iso,
      });
      if (sample.length < 50 && n % 20 === 0) {
        sample.push(id);
      }
      requesters.push({ protocolId: id, crm: physician.licenseNumber!, uf: 'SP', sortAt });
      for (let e = 0; e < sizes.examsPerProtocol; e++) {
        const examId = newId();
        exams.push({
          id: examId,
          protocolId: id,
          examKey: `E${e}`,
          description: ['Hemograma', 'Glicemia', 'Raio X', 'Ultrassom'][e % 4]!,
          type: e % 2 ? 'IMAGE' : 'LAB',
          modalityCode: 'LAB',
          modalityName: 'Laboratory',
          requesterIdentifier: physician.licenseNumber,
          requesterName: physician.name,
          requesterCrm: physician.licenseNumber,
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
          id: newId(),
          examId,
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
    ] as unknown as Array<[string, Array<Record<string, unknown>>]>);
  }
  return {
    institutionId,
    heavyPatientId: patients[0]!.id,
    heavyPhysicianId: physicians[0]!.id,
    externalId: external.id,
    guestProtocolId: sample[0]!,
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
