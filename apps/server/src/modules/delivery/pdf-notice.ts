/** Why a report could not be put in a merged PDF. */
export type LeftOutReason = 'password' | 'not-pdf' | 'damaged' | 'too-large' | 'too-many-pages' | 'timeout';
export type NoticeLanguage = 'pt-br' | 'es' | 'en';

const TEXTS: Record<
  NoticeLanguage,
  {
    title: string;
    what: (report: string, protocol: string) => string;
    reasons: Record<LeftOutReason, string>;
    after: string;
  }
> = {
  'pt-br': {
    title: 'Laudo não incluído',
    what: (report, protocol) => `O laudo "${report}" do protocolo ${protocol} não pôde ser incluído neste arquivo.`,
    reasons: {
      password: 'Motivo: o arquivo do laudo está protegido por senha.',
      'not-pdf': 'Motivo: o arquivo do laudo não é um PDF.',
      damaged: 'Motivo: o arquivo do laudo está danificado e não pode ser lido.',
      'too-large': 'Motivo: o arquivo do laudo é grande demais para ser juntado aos outros.',
      'too-many-pages': 'Motivo: o arquivo do laudo tem páginas demais para ser juntado aos outros.',
      timeout: 'Motivo: o arquivo do laudo demorou demais para ser lido.',
    },
    after: 'Os demais laudos seguem normalmente. Abra este laudo sozinho no portal ou procure o laboratório.',
  },
  es: {
    title: 'Informe no incluido',
    what: (report, protocol) => `El informe "${report}" del protocolo ${protocol} no se pudo incluir en este archivo.`,
    reasons: {
      password: 'Motivo: el archivo del informe está protegido con contraseña.',
      'not-pdf': 'Motivo: el archivo del informe no es un PDF.',
      damaged: 'Motivo: el archivo del informe está dañado y no se puede leer.',
      'too-large': 'Motivo: el archivo del informe es demasiado grande para unirlo a los demás.',
      'too-many-pages': 'Motivo: el archivo del informe tiene demasiadas páginas para unirlo a los demás.',
      timeout: 'Motivo: la lectura del archivo del informe tardó demasiado.',
    },
    after: 'Los demás informes siguen con normalidad. Abra este informe solo en el portal o contacte al laboratorio.',
  },
  en: {
    title: 'Report not included',
    what: (report, protocol) => `The report "${report}" of protocol ${protocol} could not be included in this file.`,
    reasons: {
      password: 'Reason: the report file is protected by a password.',
      'not-pdf': 'Reason: the report file is not a PDF.',
      damaged: 'Reason: the report file is damaged and cannot be read.',
      'too-large': 'Reason: the report file is too large to be joined to the others.',
      'too-many-pages': 'Reason: the report file has too many pages to be joined to the others.',
      timeout: 'Reason: reading the report file took too long.',
    },
    after: 'The other reports follow as usual. Open this report on its own in the portal or contact the laboratory.',
  },
};

/** The words of the page that stands in for a left-out report. */
export function noticeText(
  language: NoticeLanguage,
  left: { protocolNumber: string; report: string; reason: LeftOutReason },
): { title: string; lines: string[] } {
  const t = TEXTS[language];
  return { title: t.title, lines: [t.what(left.report, left.protocolNumber), t.reasons[left.reason], t.after] };
}

/** The reader's language from Accept-Language (pt-br unless Spanish or English comes first). */
export function noticeLanguage(acceptLanguage: string | undefined): NoticeLanguage {
  for (const part of (acceptLanguage ?? '').split(',')) {
    const tag = part.split(';')[0]!.trim().toLowerCase();
    if (tag.startsWith('pt')) return 'pt-br';
    if (tag.startsWith('es')) return 'es';
    if (tag.startsWith('en')) return 'en';
  }
  return 'pt-br';
}
