import type { zIngestProtocol } from '@portal/shared/schemas/ingest';
import type { z } from 'zod';
import {
  BIOCHEMIST,
  BLOOD_COUNT,
  CHEMISTRY,
  DEMO_INSTITUTION,
  DEMO_PASSWORD,
  type Patient,
  RADIOLOGIST,
  type Requester,
} from './demo-clinic.js';
import { type ReportAnalyte, reportPdf, scanJpeg, scanPng, type ScanKind } from './demo-files.js';
import type { DemoSigner } from './demo-signature.js';

export type IngestBody = z.input<typeof zIngestProtocol>;
export type IngestExam = IngestBody['exams'][number];
export type IngestAnalyte = NonNullable<IngestExam['analytes']>[number];

export interface DemoFile {
  examKey: string;
  identifier: string;
  type: 'REPORT' | 'REPORT_PHYSICIAN' | 'IMAGE';
  contentType: 'application/pdf' | 'image/jpeg' | 'image/png';
  make(): Promise<Uint8Array>;
  /** The signed version of this resource, made from the unsigned bytes. */
  signed?: (unsigned: Uint8Array, signer: DemoSigner) => Promise<SignedCopy>;
}

export interface SignedCopy {
  bytes: Uint8Array;
  contentType: 'application/pdf' | 'application/pkcs7-signature';
}

export interface DemoProtocol {
  number: string;
  body: IngestBody;
  files: DemoFile[];
}

const DAY = 86_400_000;
const brDate = (iso: string) => iso.split('-').reverse().join('/');
const formatValue = (v: number) => String(v).replace('.', ',');

/**
 * Builds protocols as an institution's system would send them, with their files, dated relative
 * to `now`: `protocol(...)` opens one and answers helpers that add lab panels, imaging and exams.
 */
export function protocolBuilder(now: Date) {
  // Exams are done at 08:00-11:00 in São Paulo (UTC-3) on the day, delivered two days later.
  const at = (daysAgo: number, hourUtc = 11) => {
    const d = new Date(now.getTime() - daysAgo * DAY);
    d.setUTCHours(hourUtc, 0, 0, 0);
    return d;
  };
  const protocols: DemoProtocol[] = [];
  let seed = 1;

  const protocol = (number: string, patient: Patient, daysAgo: number, tag?: string) => {
    const p: DemoProtocol = {
      number,
      body: {
        password: DEMO_PASSWORD,
        requestedAt: at(daysAgo, 10).toISOString(),
        ...(tag ? { tag } : {}),
        patient: {
          patientId: patient.externalId,
          name: patient.name,
          birthDate: patient.birthDate,
          gender: patient.gender,
          ...('email' in patient ? { email: patient.email } : {}),
          ...('phone' in patient ? { phone: patient.phone } : {}),
          ...('cpf' in patient ? { cpf: patient.cpf } : {}),
          ...('motherName' in patient ? { motherName: patient.motherName } : {}),
        },
        exams: [],
      },
      files: [],
    };
    protocols.push(p);
    const performed = at(daysAgo);
    const header = (requester?: Requester) => ({
      institution: DEMO_INSTITUTION.name,
      patientName: patient.name,
      birthDate: brDate(patient.birthDate),
      protocolNumber: number,
      performedAt: performed,
      requester: requester ? `${requester.name} - CRM ${requester.crm}/${requester.uf}` : undefined,
    });
    const exam = (e: {
      key: string;
      description: string;
      type: string;
      modality: [string, string];
      status: string;
      rectificationStatus?: string;
      requester?: Requester;
      analytes?: IngestAnalyte[];
    }) => {
      const delivered = ['PENDING', 'IN_PROGRESS', 'DISCARDED'].includes(e.status) ? null : at(daysAgo - 2, 14);
      p.body.exams.push({
        examKey: e.key,
        description: e.description,
        type: e.type,
        modalityCode: e.modality[0],
        modalityName: e.modality[1],
        ...(e.requester ? { requester: { ...e.requester } } : {}),
        status: e.status,
        ...(e.rectificationStatus ? { rectificationStatus: e.rectificationStatus } : {}),
        performedAt: e.status === 'PENDING' ? null : performed.toISOString(),
        deliveredAt: delivered ? delivered.toISOString() : null,
        ...(e.analytes ? { analytes: e.analytes } : {}),
      });
    };
    const lab = (historyIndex: number, requester: Requester, chemistryStatus = 'RELEASED') => {
      for (const [key, description, rows, status] of [
        ['HEMO', 'Hemograma completo', BLOOD_COUNT, 'RELEASED'],
        ['BIOQ', 'Bioquímica do sangue', CHEMISTRY, chemistryStatus],
      ] as const) {
        const analytes = rows.map((r) => ({
          code: r.code,
          name: r.name,
          unit: r.unit,
          value: r.values[historyIndex]!,
          referenceMin: r.min ?? null,
          referenceMax: r.max ?? null,
          referenceText: r.text ?? null,
        }));
        const examKey = `${key}-${number}`;
        exam({
          key: examKey,
          description,
          type: key === 'HEMO' ? 'HEMATOLOGIA' : 'BIOQUIMICA',
          modality: ['LAB', 'Laboratório'],
          status,
          requester,
          analytes,
        });
        const table: ReportAnalyte[] = rows.map((r) => ({
          name: r.name,
          value: formatValue(r.values[historyIndex]!),
          unit: r.unit,
          reference: r.text ?? `${formatValue(r.min ?? 0)} a ${formatValue(r.max ?? 0)}`,
        }));
        p.files.push({
          examKey,
          identifier: `LAUDO-${examKey}`,
          type: 'REPORT',
          contentType: 'application/pdf',
          make: () =>
            reportPdf({
              ...header(requester),
              title: description,
              analytes: table,
              findings: [
                'Material: sangue venoso, coletado em jejum de 8 horas.',
                status === 'PARTIAL_REPORT'
                  ? 'Laudo parcial: parte dos resultados ainda está em análise e será liberada em breve.'
                  : 'Resultados conferidos e liberados pelo responsável técnico.',
              ],
              conclusion: ['Interpretar os resultados em conjunto com os dados clínicos do paciente.'],
              signer: BIOCHEMIST.name,
              signerLicense: BIOCHEMIST.license,
            }),
        });
      }
    };
    const imaging = (e: {
      key: string;
      description: string;
      type: string;
      modality: [string, string];
      status?: string;
      rectificationStatus?: string;
      requester?: Requester;
      scan: ScanKind;
      format: 'jpeg' | 'png';
      findings: string[];
      conclusion: string[];
      physicianCopy?: boolean;
      /** A detached `.p7s`, or a PAdES copy of the report (signed by the demo root's radiologist). */
      signed?: 'p7s' | 'pdf';
    }) => {
      const examKey = `${e.key}-${number}`;
      exam({ ...e, key: examKey, status: e.status ?? 'RELEASED' });
      const imageSeed = seed++;
      p.files.push({
        examKey,
        identifier: `IMG-${examKey}`,
        type: 'IMAGE',
        contentType: e.format === 'jpeg' ? 'image/jpeg' : 'image/png',
        make: async () => (e.format === 'jpeg' ? scanJpeg(e.scan, imageSeed) : scanPng(e.scan, imageSeed)),
      });
      const report = (extra: { physicianCopy?: boolean; signedNote?: string } = {}) =>
        reportPdf({
          ...header(e.requester),
          title: e.description,
          findings: e.findings,
          conclusion: e.conclusion,
          signer: RADIOLOGIST.name,
          signerLicense: RADIOLOGIST.license,
          ...extra,
        });
      p.files.push({
        examKey,
        identifier: `LAUDO-${examKey}`,
        type: 'REPORT',
        contentType: 'application/pdf',
        make: () => report(),
        ...(e.signed === 'pdf'
          ? {
              signed: async (_unsigned: Uint8Array, signer: DemoSigner) => ({
                contentType: 'application/pdf' as const,
                bytes: await signer.pades(
                  await report({ signedNote: `Assinado digitalmente por ${RADIOLOGIST.name} (demonstração)` }),
                  at(daysAgo - 2, 14),
                ),
              }),
            }
          : {}),
        ...(e.signed === 'p7s'
          ? {
              signed: async (unsigned: Uint8Array, signer: DemoSigner) => ({
                contentType: 'application/pkcs7-signature' as const,
                bytes: await signer.detached(unsigned, at(daysAgo - 2, 14)),
              }),
            }
          : {}),
      });
      if (e.physicianCopy) {
        p.files.push({
          examKey,
          identifier: `LAUDO-MED-${examKey}`,
          type: 'REPORT_PHYSICIAN',
          contentType: 'application/pdf',
          make: () => report({ physicianCopy: true }),
        });
      }
    };
    return { exam, lab, imaging };
  };
  return { protocols, protocol };
}
