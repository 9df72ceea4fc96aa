import type { Language } from '@portal/shared/limits';
import type { MailKind } from './outbox.service.js';

/** What a template needs; every value is optional so a caller's omission never breaks a mail. */
export interface MailValues {
  name?: string;
  institution?: string;
  senderName?: string;
  message?: string;
  days?: number;
  hours?: number;
  count?: number;
  period?: 'DAY' | 'WEEK';
  tag?: string;
  /** A protocol's number (access alerts). */
  protocol?: string;
}

/** The words of one mail; the layout turns them into the text and HTML parts. */
export interface MailWords {
  subject: string;
  paragraphs: string[];
  /** Label of the link (button text; the text part puts it on the line before the link). */
  action?: string;
  /** Paragraphs after the link. */
  after?: string[];
}

export interface LanguageTexts {
  htmlLang: string;
  brand: string;
  greeting(name?: string): string;
  footer: string;
  copyLink: string;
  mails: Record<MailKind, (v: MailValues) => MailWords>;
}

const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

type Validity = { days: number } | { hours: number };
const DAY: Validity = { hours: 24 };
// Invitations live 7 days and activation/reset links 24 hours (contract 8); callers may say otherwise.
const WEEK: Validity = { days: 7 };

function validity(v: MailValues, fallback: Validity): Validity {
  if (v.days !== undefined) return { days: v.days };
  if (v.hours !== undefined) return { hours: v.hours };
  return fallback;
}

const ptValid = (v: MailValues, fallback: Validity) => {
  const x = validity(v, fallback);
  return 'days' in x ? `válido por ${x.days} ${plural(x.days, 'dia', 'dias')}` : `válido por ${x.hours} horas`;
};
const esValid = (v: MailValues, fallback: Validity) => {
  const x = validity(v, fallback);
  return 'days' in x ? `válido por ${x.days} ${plural(x.days, 'día', 'días')}` : `válido por ${x.hours} horas`;
};
const enValid = (v: MailValues, fallback: Validity) => {
  const x = validity(v, fallback);
  return 'days' in x ? `valid for ${x.days} ${plural(x.days, 'day', 'days')}` : `valid for ${x.hours} hours`;
};

const pt: LanguageTexts = {
  htmlLang: 'pt-BR',
  brand: 'Portal de Resultados',
  greeting: (name) => (name ? `Olá, ${name}.` : 'Olá.'),
  footer: 'Esta é uma mensagem automática; por favor, não responda.',
  copyLink: 'Se o botão não funcionar, copie e cole este endereço no navegador:',
  mails: {
    activation: (v) => ({
      subject: 'Confirme seu cadastro',
      paragraphs: [
        'Recebemos seu cadastro no portal de resultados de exames.',
        `Para ativar sua conta, abra o endereço abaixo (${ptValid(v, DAY)}).`,
      ],
      action: 'Ativar minha conta',
      after: [
        'Mensagens podem levar alguns minutos para chegar. Se você pediu mais de uma, use a mais recente.',
        'Se você não fez este cadastro, ignore este e-mail.',
      ],
    }),
    passwordRecovery: (v) => ({
      subject: 'Redefinição de senha',
      paragraphs: [
        'Recebemos um pedido para redefinir a senha da sua conta.',
        `Para escolher uma nova senha, abra o endereço abaixo (${ptValid(v, DAY)}).`,
      ],
      action: 'Redefinir minha senha',
      after: [
        'Mensagens podem levar alguns minutos para chegar. Se você pediu mais de uma, use a mais recente.',
        'Se você não fez este pedido, ignore este e-mail: sua senha continua a mesma.',
      ],
    }),
    physicianInvitation: (v) => ({
      subject: 'Convite para médicos: portal de resultados',
      paragraphs: [
        `${v.institution ?? 'Uma instituição de saúde'} convida você a criar seu acesso de médico ao portal de resultados, para consultar os exames que você solicitou.`,
        `Para concluir o cadastro, abra o endereço abaixo (${ptValid(v, WEEK)}).`,
      ],
      action: 'Criar meu acesso',
    }),
    adminInvitation: (v) => ({
      subject: 'Convite para administrar o portal de resultados',
      paragraphs: [
        'Você foi convidado(a) a administrar o portal de resultados: instituições, pessoas, protocolos e a trilha de auditoria.',
        `Para escolher sua senha e entrar na administração, abra o endereço abaixo (${ptValid(v, WEEK)}).`,
      ],
      action: 'Criar meu acesso de administrador',
      after: ['Se você não esperava este convite, ignore este e-mail: nenhum acesso é criado sem ele.'],
    }),
    companyInvitation: (v) => ({
      subject: 'Convite de acesso da instituição',
      paragraphs: [
        `Você foi convidado(a) a administrar o acesso de ${v.institution ?? 'sua instituição'} ao portal de resultados.`,
        `Para criar seu acesso, abra o endereço abaixo (${ptValid(v, WEEK)}).`,
      ],
      action: 'Criar meu acesso',
    }),
    patientInvitation: (v) => ({
      subject: 'Seus resultados de exames online',
      paragraphs: [
        `${v.institution ?? 'Uma instituição de saúde'} convida você a criar sua conta no portal de resultados, para ver seus exames em um só lugar.`,
        `Para criar sua conta, abra o endereço abaixo (${ptValid(v, WEEK)}).`,
      ],
      action: 'Criar minha conta',
    }),
    externalFirstPassword: (v) => ({
      subject: 'Seu acesso ao portal de resultados',
      paragraphs: [
        `Um acesso ao portal de resultados foi criado para você${v.institution ? ` por ${v.institution}` : ''}${v.tag ? `, no grupo ${v.tag}` : ''}.`,
        `Para definir sua senha, abra o endereço abaixo (${ptValid(v, WEEK)}).`,
      ],
      action: 'Definir minha senha',
    }),
    protocolShared: (v) => ({
      subject: `${v.senderName ?? 'Alguém'} compartilhou resultados de exames com você`,
      paragraphs: [
        `${v.senderName ?? 'Um(a) paciente'} compartilhou com você resultados de exames${v.institution ? ` de ${v.institution}` : ''}.`,
        ...(v.message ? [`Mensagem: "${v.message}"`] : []),
        `O acesso fica disponível por ${v.days ?? 3} ${plural(v.days ?? 3, 'dia', 'dias')}.`,
      ],
      action: 'Ver os exames',
      after: ['Se você não conhece quem enviou, ignore este e-mail.'],
    }),
    accessAlert: (v) => ({
      subject: 'Outra pessoa abriu seus resultados',
      paragraphs: [
        `Alguém que não é você abriu ${v.count === undefined || v.count === 1 ? 'um resultado' : `resultados (${v.count} acessos)`}${v.protocol ? ` do protocolo ${v.protocol}` : ''}${v.institution ? ` de ${v.institution}` : ''}.`,
        'Pode ser o seu médico, a clínica ou alguém com quem você compartilhou. Veja no portal quem foi e quando.',
      ],
      action: 'Ver quem viu meus resultados',
      after: [
        'Você recebe no máximo um aviso por protocolo a cada 6 horas. Para não receber mais, desligue os avisos na mesma tela.',
      ],
    }),
    resultReady: (v) => ({
      subject: 'Você tem um novo resultado de exame',
      paragraphs: [
        `Um novo resultado de exame${v.institution ? ` de ${v.institution}` : ''} está disponível no portal.`,
        'Por segurança, este e-mail não traz resultados nem senhas: entre no portal para vê-lo.',
      ],
      action: 'Entrar no portal',
    }),
    resultDigest: (v) => {
      const n = v.count ?? 0;
      return {
        subject: `${n} ${plural(n, 'novo resultado de exame', 'novos resultados de exames')}`,
        paragraphs: [
          `${v.period === 'WEEK' ? 'Resumo semanal' : 'Resumo diário'}: ${n} ${plural(n, 'novo resultado de exame está disponível', 'novos resultados de exames estão disponíveis')} no portal.`,
          'Por segurança, este e-mail não traz resultados nem senhas: entre no portal para vê-los.',
        ],
        action: 'Entrar no portal',
        after: ['Você pode mudar a frequência destes e-mails em Minha conta, Preferências.'],
      };
    },
  },
};

const es: LanguageTexts = {
  htmlLang: 'es',
  brand: 'Portal de Resultados',
  greeting: (name) => (name ? `Hola, ${name}.` : 'Hola.'),
  footer: 'Este es un mensaje automático; por favor, no responda.',
  copyLink: 'Si el botón no funciona, copie y pegue esta dirección en el navegador:',
  mails: {
    activation: (v) => ({
      subject: 'Confirme su registro',
      paragraphs: [
        'Recibimos su registro en el portal de resultados de exámenes.',
        `Para activar su cuenta, abra la dirección de abajo (${esValid(v, DAY)}).`,
      ],
      action: 'Activar mi cuenta',
      after: [
        'Los mensajes pueden tardar algunos minutos en llegar. Si pidió más de uno, use el más reciente.',
        'Si usted no hizo este registro, ignore este correo.',
      ],
    }),
    passwordRecovery: (v) => ({
      subject: 'Restablecimiento de contraseña',
      paragraphs: [
        'Recibimos una solicitud para restablecer la contraseña de su cuenta.',
        `Para elegir una nueva contraseña, abra la dirección de abajo (${esValid(v, DAY)}).`,
      ],
      action: 'Restablecer mi contraseña',
      after: [
        'Los mensajes pueden tardar algunos minutos en llegar. Si pidió más de uno, use el más reciente.',
        'Si usted no hizo esta solicitud, ignore este correo: su contraseña sigue siendo la misma.',
      ],
    }),
    physicianInvitation: (v) => ({
      subject: 'Invitación para médicos: portal de resultados',
      paragraphs: [
        `${v.institution ?? 'Una institución de salud'} lo invita a crear su acceso de médico al portal de resultados, para consultar los exámenes que usted solicitó.`,
        `Para completar el registro, abra la dirección de abajo (${esValid(v, WEEK)}).`,
      ],
      action: 'Crear mi acceso',
    }),
    adminInvitation: (v) => ({
      subject: 'Invitación para administrar el portal de resultados',
      paragraphs: [
        'Usted fue invitado(a) a administrar el portal de resultados: instituciones, personas, protocolos y el registro de auditoría.',
        `Para elegir su contraseña y entrar a la administración, abra la dirección de abajo (${esValid(v, WEEK)}).`,
      ],
      action: 'Crear mi acceso de administrador',
      after: ['Si no esperaba esta invitación, ignore este correo: ningún acceso se crea sin ella.'],
    }),
    companyInvitation: (v) => ({
      subject: 'Invitación de acceso de la institución',
      paragraphs: [
        `Usted fue invitado(a) a administrar el acceso de ${v.institution ?? 'su institución'} al portal de resultados.`,
        `Para crear su acceso, abra la dirección de abajo (${esValid(v, WEEK)}).`,
      ],
      action: 'Crear mi acceso',
    }),
    patientInvitation: (v) => ({
      subject: 'Sus resultados de exámenes en línea',
      paragraphs: [
        `${v.institution ?? 'Una institución de salud'} lo invita a crear su cuenta en el portal de resultados, para ver sus exámenes en un solo lugar.`,
        `Para crear su cuenta, abra la dirección de abajo (${esValid(v, WEEK)}).`,
      ],
      action: 'Crear mi cuenta',
    }),
    externalFirstPassword: (v) => ({
      subject: 'Su acceso al portal de resultados',
      paragraphs: [
        `Se creó un acceso al portal de resultados para usted${v.institution ? ` por ${v.institution}` : ''}${v.tag ? `, en el grupo ${v.tag}` : ''}.`,
        `Para definir su contraseña, abra la dirección de abajo (${esValid(v, WEEK)}).`,
      ],
      action: 'Definir mi contraseña',
    }),
    protocolShared: (v) => ({
      subject: `${v.senderName ?? 'Alguien'} compartió resultados de exámenes con usted`,
      paragraphs: [
        `${v.senderName ?? 'Un(a) paciente'} compartió con usted resultados de exámenes${v.institution ? ` de ${v.institution}` : ''}.`,
        ...(v.message ? [`Mensaje: "${v.message}"`] : []),
        `El acceso está disponible por ${v.days ?? 3} ${plural(v.days ?? 3, 'día', 'días')}.`,
      ],
      action: 'Ver los exámenes',
      after: ['Si no conoce a quien lo envió, ignore este correo.'],
    }),
    accessAlert: (v) => ({
      subject: 'Otra persona abrió sus resultados',
      paragraphs: [
        `Alguien que no es usted abrió ${v.count === undefined || v.count === 1 ? 'un resultado' : `resultados (${v.count} accesos)`}${v.protocol ? ` del protocolo ${v.protocol}` : ''}${v.institution ? ` de ${v.institution}` : ''}.`,
        'Puede ser su médico, la clínica o alguien con quien usted compartió. Vea en el portal quién fue y cuándo.',
      ],
      action: 'Ver quién vio mis resultados',
      after: [
        'Recibe como máximo un aviso por protocolo cada 6 horas. Para no recibir más, desactive los avisos en la misma pantalla.',
      ],
    }),
    resultReady: (v) => ({
      subject: 'Tiene un nuevo resultado de examen',
      paragraphs: [
        `Un nuevo resultado de examen${v.institution ? ` de ${v.institution}` : ''} está disponible en el portal.`,
        'Por seguridad, este correo no incluye resultados ni contraseñas: ingrese al portal para verlo.',
      ],
      action: 'Ingresar al portal',
    }),
    resultDigest: (v) => {
      const n = v.count ?? 0;
      return {
        subject: `${n} ${plural(n, 'nuevo resultado de examen', 'nuevos resultados de exámenes')}`,
        paragraphs: [
          `${v.period === 'WEEK' ? 'Resumen semanal' : 'Resumen diario'}: ${n} ${plural(n, 'nuevo resultado de examen está disponible', 'nuevos resultados de exámenes están disponibles')} en el portal.`,
          'Por seguridad, este correo no incluye resultados ni contraseñas: ingrese al portal para verlos.',
        ],
        action: 'Ingresar al portal',
        after: ['Puede cambiar la frecuencia de estos correos en Mi cuenta, Preferencias.'],
      };
    },
  },
};

const en: LanguageTexts = {
  htmlLang: 'en',
  brand: 'Results Portal',
  greeting: (name) => (name ? `Hello ${name},` : 'Hello,'),
  footer: 'This is an automatic message; please do not reply.',
  copyLink: 'If the button does not work, copy and paste this address into your browser:',
  mails: {
    activation: (v) => ({
      subject: 'Confirm your registration',
      paragraphs: [
        'We received your registration on the exam results portal.',
        `To activate your account, open the address below (${enValid(v, DAY)}).`,
      ],
      action: 'Activate my account',
      after: [
        'Messages may take a few minutes to arrive. If you asked for more than one, use the latest.',
        'If you did not register, ignore this e-mail.',
      ],
    }),
    passwordRecovery: (v) => ({
      subject: 'Password reset',
      paragraphs: [
        'We received a request to reset the password of your account.',
        `To choose a new password, open the address below (${enValid(v, DAY)}).`,
      ],
      action: 'Reset my password',
      after: [
        'Messages may take a few minutes to arrive. If you asked for more than one, use the latest.',
        'If you did not ask for this, ignore this e-mail: your password stays the same.',
      ],
    }),
    physicianInvitation: (v) => ({
      subject: 'Invitation for physicians: results portal',
      paragraphs: [
        `${v.institution ?? 'A healthcare institution'} invites you to create your physician access to the results portal, to see the exams you requested.`,
        `To complete your registration, open the address below (${enValid(v, WEEK)}).`,
      ],
      action: 'Create my access',
    }),
    adminInvitation: (v) => ({
      subject: 'Invitation to administer the results portal',
      paragraphs: [
        'You have been invited to administer the results portal: institutions, people, protocols and the audit trail.',
        `To choose your password and enter the administration, open the address below (${enValid(v, WEEK)}).`,
      ],
      action: 'Create my administrator access',
      after: ['If you did not expect this invitation, ignore this e-mail: no access is created without it.'],
    }),
    companyInvitation: (v) => ({
      subject: 'Institution access invitation',
      paragraphs: [
        `You have been invited to manage the access of ${v.institution ?? 'your institution'} to the results portal.`,
        `To create your access, open the address below (${enValid(v, WEEK)}).`,
      ],
      action: 'Create my access',
    }),
    patientInvitation: (v) => ({
      subject: 'Your exam results online',
      paragraphs: [
        `${v.institution ?? 'A healthcare institution'} invites you to create your account on the results portal, to see your exams in one place.`,
        `To create your account, open the address below (${enValid(v, WEEK)}).`,
      ],
      action: 'Create my account',
    }),
    externalFirstPassword: (v) => ({
      subject: 'Your access to the results portal',
      paragraphs: [
        `An access to the results portal was created for you${v.institution ? ` by ${v.institution}` : ''}${v.tag ? `, in the group ${v.tag}` : ''}.`,
        `To set your password, open the address below (${enValid(v, WEEK)}).`,
      ],
      action: 'Set my password',
    }),
    protocolShared: (v) => ({
      subject: `${v.senderName ?? 'Someone'} shared exam results with you`,
      paragraphs: [
        `${v.senderName ?? 'A patient'} shared exam results${v.institution ? ` from ${v.institution}` : ''} with you.`,
        ...(v.message ? [`Message: "${v.message}"`] : []),
        `The access is available for ${v.days ?? 3} ${plural(v.days ?? 3, 'day', 'days')}.`,
      ],
      action: 'See the exams',
      after: ['If you do not know the sender, ignore this e-mail.'],
    }),
    accessAlert: (v) => ({
      subject: 'Someone else opened your results',
      paragraphs: [
        `Someone other than you opened ${v.count === undefined || v.count === 1 ? 'a result' : `results (${v.count} accesses)`}${v.protocol ? ` of protocol ${v.protocol}` : ''}${v.institution ? ` from ${v.institution}` : ''}.`,
        'It may be your physician, the clinic or someone you shared it with. See on the portal who it was and when.',
      ],
      action: 'See who saw my results',
      after: [
        'You get at most one notice per protocol every 6 hours. To stop them, turn the notices off on that same screen.',
      ],
    }),
    resultReady: (v) => ({
      subject: 'You have a new exam result',
      paragraphs: [
        `A new exam result${v.institution ? ` from ${v.institution}` : ''} is available on the portal.`,
        'For your safety this e-mail holds neither results nor passwords: sign in to the portal to see it.',
      ],
      action: 'Sign in to the portal',
    }),
    resultDigest: (v) => {
      const n = v.count ?? 0;
      return {
        subject: `${n} new exam ${plural(n, 'result', 'results')}`,
        paragraphs: [
          `${v.period === 'WEEK' ? 'Weekly summary' : 'Daily summary'}: ${n} new exam ${plural(n, 'result is', 'results are')} available on the portal.`,
          'For your safety this e-mail holds neither results nor passwords: sign in to the portal to see them.',
        ],
        action: 'Sign in to the portal',
        after: ['You can change how often you get these e-mails in My account, Preferences.'],
      };
    },
  },
};

export const MAIL_TEXTS: Record<Language, LanguageTexts> = { 'pt-br': pt, es, en };
