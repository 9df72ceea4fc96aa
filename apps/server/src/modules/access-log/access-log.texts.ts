import type { AccessAction, AccessItem, AccessWho } from '@portal/shared/schemas/access-log';
import type { Language } from '@portal/shared/limits';

/** The CSV export's words, in the patient's language (the web app has the same words in its locale files). */
interface ExportTexts {
  headings: [string, string, string, string, string, string];
  actions: Record<AccessAction, string>;
  fhir: string;
  who: {
    you: string;
    physician: (name: string | null, license: string | null) => string;
    partner: (tag: string | null) => string;
    shareRecipient: (email: string | null) => string;
    guest: string;
    staff: (name: string | null) => string;
    portalSupport: string;
    system: string;
  };
}

const pt: ExportTexts = {
  headings: ['Data e hora (horário de Brasília)', 'Protocolo', 'Instituição', 'O que foi feito', 'Quem', 'Exames'],
  actions: {
    VIEW_PROTOCOL: 'Viu o protocolo',
    OPEN_REPORT: 'Abriu um laudo',
    OPEN_IMAGE: 'Abriu uma imagem',
    DOWNLOAD_SIGNED: 'Baixou o arquivo assinado',
    PRINT: 'Imprimiu',
    OPEN_SHARE: 'Abriu pelo compartilhamento',
    SIGN_IN_PROTOCOL: 'Entrou com a senha do protocolo',
    OPEN_EXTERNAL_VIEWER: 'Abriu no sistema da instituição',
    STAFF_VIEW: 'Consultou o protocolo na administração',
    STAFF_DISABLE: 'Desativou o protocolo',
    STAFF_ENABLE: 'Reativou o protocolo',
  },
  fhir: 'por integração FHIR',
  who: {
    you: 'Você',
    physician: (name, license) =>
      [`Dr(a). ${name ?? ''}`.trim(), license ? `CRM ${license}` : null].filter(Boolean).join(', '),
    partner: (tag) => (tag ? `Usuário da instituição parceira do grupo ${tag}` : 'Usuário de uma instituição parceira'),
    shareRecipient: (email) => `Pessoa com quem você compartilhou (${email ?? ''})`,
    guest: 'Alguém com a senha do protocolo',
    staff: (name) => (name ? `Equipe da clínica: ${name}` : 'Equipe da clínica'),
    portalSupport: 'Suporte do portal',
    system: 'Sistema',
  },
};

const es: ExportTexts = {
  headings: ['Fecha y hora (hora de Brasilia)', 'Protocolo', 'Institución', 'Qué se hizo', 'Quién', 'Exámenes'],
  actions: {
    VIEW_PROTOCOL: 'Vio el protocolo',
    OPEN_REPORT: 'Abrió un informe',
    OPEN_IMAGE: 'Abrió una imagen',
    DOWNLOAD_SIGNED: 'Descargó el archivo firmado',
    PRINT: 'Imprimió',
    OPEN_SHARE: 'Abrió por el enlace compartido',
    SIGN_IN_PROTOCOL: 'Entró con la contraseña del protocolo',
    OPEN_EXTERNAL_VIEWER: 'Abrió en el sistema de la institución',
    STAFF_VIEW: 'Consultó el protocolo en la administración',
    STAFF_DISABLE: 'Desactivó el protocolo',
    STAFF_ENABLE: 'Reactivó el protocolo',
  },
  fhir: 'por integración FHIR',
  who: {
    you: 'Usted',
    physician: (name, license) =>
      [`Dr(a). ${name ?? ''}`.trim(), license ? `CRM ${license}` : null].filter(Boolean).join(', '),
    partner: (tag) =>
      tag ? `Usuario de la institución asociada del grupo ${tag}` : 'Usuario de una institución asociada',
    shareRecipient: (email) => `Persona con quien usted compartió (${email ?? ''})`,
    guest: 'Alguien con la contraseña del protocolo',
    staff: (name) => (name ? `Personal de la clínica: ${name}` : 'Personal de la clínica'),
    portalSupport: 'Soporte del portal',
    system: 'Sistema',
  },
};

const en: ExportTexts = {
  headings: ['Date and time (Brasília time)', 'Protocol', 'Institution', 'What was done', 'Who', 'Exams'],
  actions: {
    VIEW_PROTOCOL: 'Viewed the protocol',
    OPEN_REPORT: 'Opened a report',
    OPEN_IMAGE: 'Opened an image',
    DOWNLOAD_SIGNED: 'Downloaded the signed file',
    PRINT: 'Printed',
    OPEN_SHARE: 'Opened through a share',
    SIGN_IN_PROTOCOL: "Signed in with the protocol's password",
    OPEN_EXTERNAL_VIEWER: "Opened in the institution's system",
    STAFF_VIEW: 'Looked the protocol up in the administration',
    STAFF_DISABLE: 'Disabled the protocol',
    STAFF_ENABLE: 'Enabled the protocol again',
  },
  fhir: 'through a FHIR integration',
  who: {
    you: 'You',
    physician: (name, license) =>
      [`Dr. ${name ?? ''}`.trim(), license ? `CRM ${license}` : null].filter(Boolean).join(', '),
    partner: (tag) => (tag ? `A user of the partner institution, group ${tag}` : 'A user of a partner institution'),
    shareRecipient: (email) => `The person you shared it with (${email ?? ''})`,
    guest: "Someone with the protocol's password",
    staff: (name) => (name ? `The clinic's staff: ${name}` : "The clinic's staff"),
    portalSupport: "The portal's support team",
    system: 'System',
  },
};

export const EXPORT_TEXTS: Record<Language, ExportTexts> = { 'pt-br': pt, es, en };

/** Who did it, in words. */
export function whoText(texts: ExportTexts, who: AccessWho): string {
  switch (who.kind) {
    case 'YOU':
      return texts.who.you;
    case 'PHYSICIAN':
      return texts.who.physician(who.name, who.license);
    case 'PARTNER':
      return texts.who.partner(who.tag);
    case 'SHARE_RECIPIENT':
      return texts.who.shareRecipient(who.email);
    case 'GUEST':
      return texts.who.guest;
    case 'STAFF':
      return texts.who.staff(who.name);
    case 'PORTAL_SUPPORT':
      return texts.who.portalSupport;
    default:
      return texts.who.system;
  }
}

/** What was done, in words (an integration's read says so). */
export function actionText(texts: ExportTexts, item: Pick<AccessItem, 'action' | 'channel'>): string {
  const action = texts.actions[item.action];
  return item.channel === 'FHIR' ? `${action} (${texts.fhir})` : action;
}
