import type { zIngestProtocol } from '@portal/shared/schemas/ingest';
import type { z } from 'zod';
import { type ReportAnalyte, reportPdf, scanJpeg, scanPng, type ScanKind } from './demo-files.js';
import { detachedSignature } from './demo-signature.js';

/** The demo clinic: what a person trying the portal signs in with (README lists these). */
export const DEMO_INSTITUTION = {
  code: 'DEMO',
  name: 'Clínica Demonstração',
  supportEmail: 'atendimento@demo.example',
  supportPhoneNumber: '1133334444',
  supportWhatsAppNumber: '11987650000',
  tag: 'Parceiro Saúde',
} as const;

const PASSWORD = 'demo1234';

export const DEMO_LOGINS = {
  /** Patient account (e-mail or CPF login) holding most protocols and the lab history. */
  patient: { userName: 'paciente@demo.example', cpf: '529.982.247-25', password: PASSWORD },
  /** Physician (CRM 123456/SP), the requester of most exams. */
  physician: { userName: 'medico@demo.example', password: PASSWORD, crm: '123456', uf: 'SP' },
  /** External user, member of the tag "Parceiro Saúde". */
  external: { userName: 'parceiro@demo.example', password: PASSWORD, tag: DEMO_INSTITUTION.tag },
  /** Administration API only (appKey "admin"). */
  admin: { userName: 'admin@demo.example', password: PASSWORD },
  /** The demo clinic's own staff account (administration API only). */
  company: { userName: 'empresa@demo.example', password: PASSWORD },
  /** Guest: one protocol number and its password. */
  guest: { protocol: '70000401', password: PASSWORD },
  /** Guest with the patient's date of birth checked at sign-in. */
  guestWithBirthDate: { protocol: '70000301', password: PASSWORD, dateOfBirth: '30/11/1994' },
  /** Unique login: the patient's e-mail and the protocol password open both of his protocols. */
  guestByEmail: { userName: 'joao.pereira@demo.example', password: PASSWORD },
} as const;

type IngestBody = z.input<typeof zIngestProtocol>;
type IngestExam = IngestBody['exams'][number];
type IngestAnalyte = NonNullable<IngestExam['analytes']>[number];

export interface DemoFile {
  examKey: string;
  identifier: string;
  type: 'REPORT' | 'REPORT_PHYSICIAN' | 'IMAGE';
  contentType: 'application/pdf' | 'image/jpeg' | 'image/png';
  make(): Promise<Uint8Array>;
  /** The signed version of this resource, made from the unsigned bytes. */
  signed?: (unsigned: Uint8Array) => Promise<SignedCopy>;
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

export interface DemoAccountPatient {
  externalId: string;
  name: string;
  birthDate: string;
  gender: 'FEMALE' | 'MALE';
  email?: string;
  phone?: string;
  cpf?: string;
  motherName?: string;
}

export const DEMO_PATIENTS = {
  maria: {
    externalId: 'PAC-1001',
    name: 'Maria Aparecida Souza',
    birthDate: '1985-03-14',
    gender: 'FEMALE',
    email: DEMO_LOGINS.patient.userName,
    phone: '11987654321',
    cpf: '52998224725',
    motherName: 'Josefa Souza',
  },
  joao: {
    externalId: 'PAC-1002',
    name: 'João Pereira Lima',
    birthDate: '1972-08-09',
    gender: 'MALE',
    email: DEMO_LOGINS.guestByEmail.userName,
    phone: '21998765432',
  },
  ana: { externalId: 'PAC-1003', name: 'Ana Beatriz Costa', birthDate: '1994-11-30', gender: 'FEMALE' },
  carlos: { externalId: 'PAC-1004', name: 'Carlos Eduardo Ramos', birthDate: '1960-01-22', gender: 'MALE' },
} satisfies Record<string, DemoAccountPatient>;

export const DEMO_PHYSICIAN = { name: 'Dr. Ricardo Almeida', crm: '123456', uf: 'SP', identifier: 'MED-123456' };
const OTHER_REQUESTER = { name: 'Dra. Helena Martins', crm: '654321', uf: 'RJ', identifier: 'MED-654321' };
const RADIOLOGIST = { name: 'Dra. Fernanda Lopes', license: 'Médica radiologista - CRM-SP 98765' };
const BIOCHEMIST = { name: 'Dr. Paulo Mendes', license: 'Farmacêutico-bioquímico - CRF-SP 45678' };

type Patient = (typeof DEMO_PATIENTS)[keyof typeof DEMO_PATIENTS];
type Requester = typeof DEMO_PHYSICIAN;

interface LabRow {
  code: string;
  name: string;
  unit: string;
  min?: number;
  max?: number;
  text?: string;
  values: number[];
}

/** The lab history: six dates, oldest first (one value per date and analyte). */
const BLOOD_COUNT: LabRow[] = [
  { code: 'HGB', name: 'Hemoglobina', unit: 'g/dL', min: 12, max: 16, values: [13.8, 13.2, 12.6, 11.7, 12.4, 13.1] },
  { code: 'HCT', name: 'Hematócrito', unit: '%', min: 36, max: 46, values: [41, 39.5, 38, 35.2, 37.6, 39.8] },
  {
    code: 'WBC',
    name: 'Leucócitos',
    unit: '/mm³',
    min: 4000,
    max: 10000,
    values: [6200, 7100, 5800, 9400, 6900, 6100],
  },
  { code: 'PLT', name: 'Plaquetas', unit: 'mil/mm³', min: 150, max: 450, values: [250, 238, 262, 301, 244, 255] },
];
const CHEMISTRY: LabRow[] = [
  { code: 'GLI', name: 'Glicose', unit: 'mg/dL', min: 70, max: 99, values: [92, 98, 104, 110, 101, 95] },
  {
    code: 'COL',
    name: 'Colesterol total',
    unit: 'mg/dL',
    max: 190,
    text: 'Desejável: inferior a 190',
    values: [212, 205, 198, 187, 181, 176],
  },
  { code: 'CRE', name: 'Creatinina', unit: 'mg/dL', min: 0.6, max: 1.1, values: [0.82, 0.85, 0.9, 0.88, 0.86, 0.84] },
  { code: 'HBA1C', name: 'Hemoglobina glicada', unit: '%', min: 4, max: 5.6, values: [5.4, 5.5, 5.7, 5.9, 5.6, 5.5] },
];

const DAY = 86_400_000;
const brDate = (iso: string) => iso.split('-').reverse().join('/');
const formatValue = (v: number) => String(v).replace('.', ',');

/** Everything the clinic delivers, dated relative to `now` so the demo always looks recent. */
export function demoProtocols(now: Date): DemoProtocol[] {
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
        password: PASSWORD,
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
      /** A detached `.p7s`, or a PDF copy marked as the signed one (PAdES-like, no real signature). */
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
              signed: async () => ({
                contentType: 'application/pdf' as const,
                bytes: await report({ signedNote: `Assinado digitalmente por ${RADIOLOGIST.name} (demonstração)` }),
              }),
            }
          : {}),
        ...(e.signed === 'p7s'
          ? {
              signed: async (unsigned: Uint8Array) => ({
                contentType: 'application/pkcs7-signature' as const,
                bytes: detachedSignature(unsigned, {
                  signerName: RADIOLOGIST.name,
                  organization: DEMO_INSTITUTION.name,
                  signedAt: at(daysAgo - 2, 14),
                }),
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

  const { maria, joao, ana, carlos } = DEMO_PATIENTS;
  const tag = DEMO_INSTITUTION.tag;
  const rx: [string, string] = ['RX', 'Raio-X'];
  const us: [string, string] = ['US', 'Ultrassonografia'];
  const mr: [string, string] = ['MR', 'Ressonância magnética'];
  const ct: [string, string] = ['CT', 'Tomografia computadorizada'];

  protocol('70000101', maria, 170).lab(0, DEMO_PHYSICIAN);
  protocol('70000102', maria, 150).lab(1, DEMO_PHYSICIAN);
  const p3 = protocol('70000103', maria, 120);
  p3.lab(2, DEMO_PHYSICIAN);
  p3.imaging({
    key: 'RXTORAX',
    description: 'Radiografia de tórax PA e perfil',
    type: 'RAIO_X',
    modality: rx,
    requester: DEMO_PHYSICIAN,
    scan: 'xray-chest',
    format: 'jpeg',
    physicianCopy: true,
    findings: [
      'Técnica: incidências posteroanterior e perfil em inspiração.',
      'Campos pulmonares com transparência preservada. Seios costofrênicos livres.',
      'Área cardíaca dentro dos limites da normalidade. Mediastino centrado.',
    ],
    conclusion: ['Radiografia de tórax sem alterações significativas.'],
  });
  protocol('70000104', maria, 95).lab(3, DEMO_PHYSICIAN);
  protocol('70000105', maria, 70, tag).imaging({
    key: 'USABD',
    description: 'Ultrassonografia de abdome total',
    type: 'ULTRASSOM',
    modality: us,
    requester: OTHER_REQUESTER,
    scan: 'ultrasound',
    format: 'png',
    findings: [
      'Fígado de dimensões normais, contornos regulares e ecotextura homogênea.',
      'Vesícula biliar normodistendida, de paredes finas, com imagem anecoica de 1,2 cm sem sombra acústica.',
      'Rins tópicos, de dimensões normais. Baço e pâncreas sem alterações.',
    ],
    conclusion: ['Pequeno cisto simples hepático. Demais estruturas sem alterações.'],
  });
  const p6 = protocol('70000106', maria, 45);
  p6.lab(4, DEMO_PHYSICIAN);
  p6.imaging({
    key: 'RMJOELHO',
    description: 'Ressonância magnética do joelho direito',
    type: 'RESSONANCIA',
    modality: mr,
    status: 'RETIFICATION',
    rectificationStatus: 'PENDING',
    requester: DEMO_PHYSICIAN,
    scan: 'mri-knee',
    format: 'png',
    findings: ['Menisco medial com sinal alterado no corno posterior.', 'Ligamentos cruzados íntegros.'],
    conclusion: ['Laudo em retificação: uma nova versão será liberada.'],
  });
  const p7 = protocol('70000107', maria, 20);
  p7.lab(5, DEMO_PHYSICIAN, 'PARTIAL_REPORT');
  p7.imaging({
    key: 'TCCRANIO',
    description: 'Tomografia computadorizada de crânio',
    type: 'TOMOGRAFIA',
    modality: ct,
    status: 'FINISHED_RETIFICATION',
    rectificationStatus: 'FINISHED',
    requester: DEMO_PHYSICIAN,
    scan: 'ct-head',
    format: 'png',
    signed: 'pdf',
    findings: [
      'Exame realizado sem contraste, com cortes axiais.',
      'Sistema ventricular de dimensões normais. Sulcos corticais preservados.',
      'Retificação: corrigida a lateralidade descrita na versão anterior.',
    ],
    conclusion: ['Tomografia de crânio sem alterações agudas.'],
  });
  const p8 = protocol('70000108', maria, 5);
  p8.exam({
    key: 'URINA-70000108',
    description: 'Urina tipo 1',
    type: 'URINALISE',
    modality: ['LAB', 'Laboratório'],
    status: 'DISCARDED',
    requester: DEMO_PHYSICIAN,
  });
  p8.exam({
    key: 'MAMO-70000108',
    description: 'Mamografia bilateral',
    type: 'MAMOGRAFIA',
    modality: ['MG', 'Mamografia'],
    status: 'IN_PROGRESS',
    requester: DEMO_PHYSICIAN,
  });
  p8.exam({
    key: 'ECO-70000108',
    description: 'Ecocardiograma transtorácico',
    type: 'ULTRASSOM',
    modality: us,
    status: 'PENDING',
    requester: DEMO_PHYSICIAN,
  });

  protocol('70000201', joao, 60, tag).imaging({
    key: 'RXMAO',
    description: 'Radiografia da mão esquerda',
    type: 'RAIO_X',
    modality: rx,
    requester: DEMO_PHYSICIAN,
    scan: 'xray-hand',
    format: 'jpeg',
    signed: 'p7s',
    findings: ['Estruturas ósseas de morfologia e densidade normais.', 'Espaços articulares preservados.'],
    conclusion: ['Radiografia da mão sem alterações.'],
  });
  // Recent enough for the physician's and the partner's default range (last 7 days).
  protocol('70000202', joao, 6, tag).lab(5, DEMO_PHYSICIAN);

  protocol('70000301', ana, 30).imaging({
    key: 'USOBST',
    description: 'Ultrassonografia obstétrica',
    type: 'ULTRASSOM',
    modality: us,
    requester: DEMO_PHYSICIAN,
    scan: 'ultrasound',
    format: 'png',
    physicianCopy: true,
    findings: [
      'Gestação única, tópica, com embrião de batimentos cardíacos presentes.',
      'Comprimento cabeça-nádega compatível com 12 semanas e 3 dias.',
    ],
    conclusion: ['Gestação tópica de 12 semanas e 3 dias, evolutiva.'],
  });

  protocol('70000401', carlos, 2, tag).imaging({
    key: 'TCTORAX',
    description: 'Tomografia computadorizada de tórax',
    type: 'TOMOGRAFIA',
    modality: ct,
    requester: DEMO_PHYSICIAN,
    scan: 'ct-chest',
    format: 'png',
    signed: 'p7s',
    findings: [
      'Parênquima pulmonar com nódulo sólido de 4 mm no lobo inferior direito.',
      'Mediastino sem linfonodomegalias.',
    ],
    conclusion: ['Nódulo pulmonar de 4 mm: controle tomográfico conforme critérios clínicos.'],
  });
  protocol('70000402', carlos, 100).imaging({
    key: 'RMCRANIO',
    description: 'Ressonância magnética de crânio',
    type: 'RESSONANCIA',
    modality: mr,
    requester: DEMO_PHYSICIAN,
    scan: 'mri-brain',
    format: 'jpeg',
    findings: ['Substância branca com focos de hipersinal em T2 inespecíficos.', 'Sem efeito de massa.'],
    conclusion: ['Focos inespecíficos de hipersinal na substância branca, de provável natureza microangiopática.'],
  });
  protocol('70000403', carlos, 130).exam({
    key: 'VITD-70000403',
    description: 'Vitamina D (25-hidroxi)',
    type: 'BIOQUIMICA_ESPECIAL',
    modality: ['LAB', 'Laboratório'],
    status: 'UNIT_AVAILABLE',
    requester: DEMO_PHYSICIAN,
  });
  return protocols;
}
