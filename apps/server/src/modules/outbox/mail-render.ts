import type { Language } from '@portal/shared/limits';
import { normalizeLanguage } from '@portal/shared/formats';
import { MAIL_TEXTS, type MailValues, type MailWords } from './mail-texts.js';
import type { MailKind, MailRequest } from './outbox.service.js';

export interface RenderedMail {
  subject: string;
  /** The subject without the names of people (the log's): a share's names the patient who shared. */
  loggedSubject: string;
  text: string;
  html: string;
}

/** Mails without a link of their own point to the portal's login (contract 4 lists the others). */
const PORTAL_LINK_KINDS: ReadonlySet<MailKind> = new Set(['resultReady', 'resultDigest']);

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

// A value typed by a person (a share message, a name) must not add lines: in the text part a
// line of its own could pass for the mail's link.
const oneLine = (value: string) => value.replace(/\s+/g, ' ').trim();

function str(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  const s = oneLine(String(value));
  return s === '' ? undefined : s;
}

function num(value: unknown): number | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

function valuesOf(mail: MailRequest): MailValues {
  const p = mail.params ?? {};
  const period = str(p.period)?.toUpperCase();
  return {
    name: str(p.name) ?? str(p.recipientName),
    institution: str(mail.institutionName) ?? str(p.institution),
    senderName: str(p.senderName),
    message: str(p.message),
    days: num(p.days) ?? num(p.daysExpiration) ?? num(p.expiresInDays),
    hours: num(p.hours) ?? num(p.expiresInHours),
    count: num(p.count),
    period: period === 'WEEK' ? 'WEEK' : period === 'DAY' ? 'DAY' : undefined,
    tag: str(p.tag),
    protocol: str(p.protocol),
  };
}

/**
 * The absolute link of a mail: callers pass it whole; a bare path is placed under PUBLIC_URL.
 * A link with spaces or line breaks would not stand alone on its line, so it is refused.
 */
export function absoluteLink(link: string, publicUrl: string): string {
  const trimmed = link.trim();
  if (/\s/.test(trimmed)) throw new Error('a mail link cannot contain white space');
  return trimmed.startsWith('/') ? `${publicUrl}${trimmed}` : trimmed;
}

/** Renders a mail of the outbox: translated subject, a text part and an HTML part. */
export function renderMail(mail: MailRequest, publicUrl: string): RenderedMail {
  const language: Language = normalizeLanguage(mail.language) ?? 'pt-br';
  const texts = MAIL_TEXTS[language];
  const values = valuesOf(mail);
  const words: MailWords = texts.mails[mail.kind](values);
  const link =
    mail.link !== undefined && mail.link !== ''
      ? absoluteLink(mail.link, publicUrl)
      : PORTAL_LINK_KINDS.has(mail.kind)
        ? `${publicUrl}/login`
        : undefined;
  const brand = values.institution ?? texts.brand;
  const withInstitution = (text: string) => (values.institution ? `${text} - ${values.institution}` : text);
  const subject = withInstitution(words.subject);
  const anonymous = { ...values, name: undefined, senderName: undefined, message: undefined };
  return {
    subject,
    loggedSubject: withInstitution(texts.mails[mail.kind](anonymous).subject),
    text: renderText(brand, texts.greeting(values.name), words, link, texts.footer),
    html: renderHtml(texts.htmlLang, brand, texts.greeting(values.name), words, link, texts.copyLink, texts.footer),
  };
}

function renderText(brand: string, greeting: string, words: MailWords, link: string | undefined, footer: string) {
  const blocks = [brand, greeting, ...words.paragraphs];
  // The link gets a line of its own, with blank lines around it, so every mail reader and any
  // person copying it by hand gets exactly the address.
  if (link) blocks.push(words.action ? `${words.action}:\n${link}` : link);
  blocks.push(...(words.after ?? []), `--\n${footer}`);
  return `${blocks.join('\n\n')}\n`;
}

function renderHtml(
  lang: string,
  brand: string,
  greeting: string,
  words: MailWords,
  link: string | undefined,
  copyLink: string,
  footer: string,
) {
  const p = (text: string) => `<p style="margin:0 0 16px 0">${escapeHtml(text)}</p>`;
  const href = link ? escapeHtml(link) : '';
  const action = link
    ? [
        `<p style="margin:24px 0"><a href="${href}" style="background:#0b5cad;color:#ffffff;padding:12px 20px;` +
          `border-radius:4px;text-decoration:none;display:inline-block">${escapeHtml(words.action ?? link)}</a></p>`,
        `<p style="margin:0 0 16px 0;font-size:13px;color:#555555">${escapeHtml(copyLink)}<br>` +
          `<a href="${href}" style="color:#0b5cad;word-break:break-all">${href}</a></p>`,
      ].join('\n')
    : '';
  return `<!doctype html>
<html lang="${lang}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(words.subject)}</title></head>
<body style="margin:0;padding:0;background:#f2f4f7;font-family:Arial,Helvetica,sans-serif;color:#1f2933">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f2f4f7;padding:24px 0">
<tr><td align="center">
<table role="presentation" width="600" cellpadding="0" cellspacing="0" style="max-width:600px;background:#ffffff;border-radius:6px">
<tr><td style="padding:20px 32px;border-bottom:3px solid #0b5cad;font-size:20px;font-weight:bold">${escapeHtml(brand)}</td></tr>
<tr><td style="padding:24px 32px;font-size:15px;line-height:1.5">
${[p(greeting), ...words.paragraphs.map(p), action, ...(words.after ?? []).map(p)].filter(Boolean).join('\n')}
</td></tr>
<tr><td style="padding:16px 32px;font-size:12px;color:#6b7280;border-top:1px solid #e5e7eb">${escapeHtml(footer)}</td></tr>
</table>
</td></tr>
</table>
</body>
</html>
`;
}
