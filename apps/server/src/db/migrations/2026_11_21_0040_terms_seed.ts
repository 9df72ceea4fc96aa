import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations work on the raw schema */
type Db = Kysely<any>;

/*
 * First versions of the service terms (TERMS) and privacy policy (PP) of spec 1 and 4.4, per user
 * type. A later version is a new row with a higher `version`: every user is asked to accept it.
 */
const SERVICE_TERMS = {
  'pt-br': [
    'Termos de Uso do Portal de Resultados',
    '1. Os exames e laudos pertencem ao paciente. O portal apenas armazena os resultados enviados pela instituição de saúde e os compartilha com quem o paciente ou a lei autorizar.',
    '2. O paciente pode compartilhar seus protocolos por e-mail, por prazo limitado, e revogar o compartilhamento a qualquer momento.',
    '3. Médicos cadastrados podem receber exames compartilhados e, nesse caso, acessar as informações de perfil do paciente necessárias ao atendimento.',
    '4. O paciente pode, se quiser, autorizar o compartilhamento anônimo e gratuito de seus resultados para fins de pesquisa. Essa autorização é opcional e pode ser retirada.',
    '5. O usuário é responsável pelo sigilo de sua senha e dos links que compartilhar.',
    '6. Estes termos seguem a Lei nº 12.965/2014 (Marco Civil da Internet) e a Lei Geral de Proteção de Dados. Fica eleito o foro da Comarca de São Paulo/SP para dirimir quaisquer questões.',
  ],
  es: [
    'Términos de Uso del Portal de Resultados',
    '1. Los exámenes e informes pertenecen al paciente. El portal solo almacena los resultados enviados por la institución de salud y los comparte con quien el paciente o la ley autoricen.',
    '2. El paciente puede compartir sus protocolos por correo electrónico, por un plazo limitado, y revocar el acceso en cualquier momento.',
    '3. Los médicos registrados pueden recibir exámenes compartidos y, en ese caso, acceder a la información de perfil del paciente necesaria para la atención.',
    '4. El paciente puede, si lo desea, autorizar que sus resultados se compartan de forma anónima y gratuita con fines de investigación. Es opcional y puede retirarse.',
    '5. El usuario es responsable de la confidencialidad de su contraseña y de los enlaces que comparta.',
    '6. Estos términos se rigen por la Ley brasileña nº 12.965/2014 (Marco Civil da Internet) y por la Ley General de Protección de Datos. Se elige el foro de la ciudad de São Paulo/SP, Brasil.',
  ],
  en: [
    'Results Portal Terms of Use',
    '1. The exams and reports belong to the patient. The portal only stores the results sent by the healthcare institution and shares them with whoever the patient or the law authorises.',
    '2. The patient may share protocols by e-mail for a limited period and revoke the sharing at any time.',
    '3. Registered physicians may receive shared exams and, in that case, access the patient profile information needed for care.',
    '4. The patient may optionally allow anonymous, free sharing of results for research. This is optional and may be withdrawn.',
    '5. Users are responsible for keeping their password and the links they share confidential.',
    '6. These terms follow Brazilian Law 12.965/2014 (Marco Civil da Internet) and the General Data Protection Law (LGPD). The courts of São Paulo/SP, Brazil, are the chosen venue.',
  ],
};

const PRIVACY_POLICY = {
  'pt-br': [
    'Política de Privacidade',
    'Tratamos dados pessoais e dados de saúde (dados sensíveis pela LGPD) somente para entregar resultados de exames ao paciente, aos médicos solicitantes e a quem o paciente autorizar.',
    'O portal não vende nem cede dados. Cada acesso a protocolos e arquivos é registrado para auditoria.',
    'O paciente pode consultar, corrigir seus dados cadastrais e revogar compartilhamentos na área Minha Conta.',
    'Aplicam-se a Lei nº 12.965/2014 (Marco Civil da Internet) e a Lei nº 13.709/2018 (LGPD); foro da Comarca de São Paulo/SP.',
  ],
  es: [
    'Política de Privacidad',
    'Tratamos datos personales y datos de salud (datos sensibles según la LGPD) solo para entregar resultados de exámenes al paciente, a los médicos solicitantes y a quien el paciente autorice.',
    'El portal no vende ni cede datos. Cada acceso a protocolos y archivos se registra para auditoría.',
    'El paciente puede consultar y corregir sus datos y revocar los accesos compartidos en Mi Cuenta.',
    'Se aplican la Ley brasileña nº 12.965/2014 (Marco Civil da Internet) y la Ley nº 13.709/2018 (LGPD); foro de São Paulo/SP, Brasil.',
  ],
  en: [
    'Privacy Policy',
    'We process personal and health data (sensitive data under the LGPD) only to deliver exam results to the patient, to the requesting physicians and to whoever the patient authorises.',
    'The portal neither sells nor hands over data. Every access to protocols and files is recorded for audit.',
    'Patients can review and correct their data and revoke shares under My Account.',
    'Brazilian Law 12.965/2014 (Marco Civil da Internet) and Law 13.709/2018 (LGPD) apply; courts of São Paulo/SP, Brazil.',
  ],
};

const USER_TYPES = ['PATIENT', 'PHYSICIAN', 'EXTERNAL', 'COMPANY'] as const;

const joinTexts = (texts: Record<string, string[]>) =>
  JSON.stringify(Object.fromEntries(Object.entries(texts).map(([lang, lines]) => [lang, lines.join('\n\n')])));

export async function up(db: Db, _dialect: Dialect): Promise<void> {
  const createdAt = '2026-11-21T00:00:00.000Z';
  const rows = USER_TYPES.flatMap((userType) => [
    {
      id: `term-${userType.toLowerCase()}-terms-1`,
      term_type: 'TERMS',
      user_type: userType,
      version: 1,
      content: joinTexts(SERVICE_TERMS),
      created_at: createdAt,
    },
    {
      id: `term-${userType.toLowerCase()}-pp-1`,
      term_type: 'PP',
      user_type: userType,
      version: 1,
      content: joinTexts(PRIVACY_POLICY),
      created_at: createdAt,
    },
  ]);
  await db.insertInto('terms').values(rows).execute();
  await db.schema.createIndex('one_time_tokens_email_kind').on('one_time_tokens').columns(['email', 'kind']).execute();
  await db.schema.createIndex('term_acceptances_term').on('term_acceptances').columns(['term_id']).execute();
}
