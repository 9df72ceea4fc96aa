/** The demo clinic: what a person trying the portal signs in with (README lists these). */
export const DEMO_INSTITUTION = {
  code: 'DEMO',
  name: 'Clínica Demonstração',
  supportEmail: 'atendimento@demo.example',
  supportPhoneNumber: '1133334444',
  supportWhatsAppNumber: '11987650000',
  tag: 'Parceiro Saúde',
} as const;

/** Spec 1 quotes one clinic telling patients how long results stay online; the demo clinic says the same. */
export const DEMO_PROTOCOL_NOTICE = {
  'pt-br': 'Os resultados ficam disponíveis por seis meses a partir da data do exame.',
  es: 'Los resultados están disponibles durante seis meses a partir de la fecha del examen.',
  en: 'Results are available for six months from the exam date.',
};

export const DEMO_PASSWORD = 'demo1234';

export const DEMO_LOGINS = {
  /** Patient account (e-mail or CPF login) holding most protocols and the lab history. */
  patient: { userName: 'paciente@demo.example', cpf: '529.982.247-25', password: DEMO_PASSWORD },
  /** Physician (CRM 123456/SP), the requester of most exams. */
  physician: { userName: 'medico@demo.example', password: DEMO_PASSWORD, crm: '123456', uf: 'SP' },
  /** External user, member of the tag "Parceiro Saúde". */
  external: { userName: 'parceiro@demo.example', password: DEMO_PASSWORD, tag: DEMO_INSTITUTION.tag },
  /** Administration API only (appKey "admin"). */
  admin: { userName: 'admin@demo.example', password: DEMO_PASSWORD },
  /** The demo clinic's own staff account (administration API only). */
  company: { userName: 'empresa@demo.example', password: DEMO_PASSWORD },
  /** Guest: one protocol number and its password. */
  guest: { protocol: '70000401', password: DEMO_PASSWORD },
  /** Guest with the patient's date of birth checked at sign-in. */
  guestWithBirthDate: { protocol: '70000301', password: DEMO_PASSWORD, dateOfBirth: '30/11/1994' },
  /** Unique login: the patient's e-mail and the protocol password open both of his protocols. */
  guestByEmail: { userName: 'joao.pereira@demo.example', password: DEMO_PASSWORD },
} as const;

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
export const OTHER_REQUESTER = { name: 'Dra. Helena Martins', crm: '654321', uf: 'RJ', identifier: 'MED-654321' };
export const RADIOLOGIST = { name: 'Dra. Fernanda Lopes', license: 'Médica radiologista - CRM-SP 98765' };
export const BIOCHEMIST = { name: 'Dr. Paulo Mendes', license: 'Farmacêutico-bioquímico - CRF-SP 45678' };

export type Patient = (typeof DEMO_PATIENTS)[keyof typeof DEMO_PATIENTS];
export type Requester = typeof DEMO_PHYSICIAN;

export interface LabRow {
  code: string;
  name: string;
  unit: string;
  min?: number;
  max?: number;
  text?: string;
  values: number[];
}

/** The lab history: six dates, oldest first (one value per date and analyte). */
export const BLOOD_COUNT: LabRow[] = [
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
export const CHEMISTRY: LabRow[] = [
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
