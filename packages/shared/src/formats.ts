/**
 * Plain checks and formats of what people type and read: CPF, phone, e-mail, dates, language.
 * No zod here, so the web app's first load can use them without the schema library.
 */
import { CPF_DIGITS, LANGUAGES, type Language } from './limits.js';

/** Only the digits of a text. */
export function digitsOnly(value: string): string {
  return value.replace(/\D+/g, '');
}

/** True when an 11-digit CPF has valid check digits (and is not all one digit). */
export function isValidCpf(value: string): boolean {
  const cpf = digitsOnly(value);
  if (cpf.length !== CPF_DIGITS || /^(\d)\1{10}$/.test(cpf)) return false;
  const checkDigit = (length: number): number => {
    let sum = 0;
    for (let i = 0; i < length; i++) sum += Number(cpf[i]) * (length + 1 - i);
    const rest = (sum * 10) % 11;
    return rest === 10 ? 0 : rest;
  };
  return checkDigit(9) === Number(cpf[9]) && checkDigit(10) === Number(cpf[10]);
}

/** `000.000.000-00` */
export const CPF_MASK_PATTERN = /^\d{3}\.\d{3}\.\d{3}-\d{2}$/;

export function formatCpf(value: string): string {
  const d = digitsOnly(value);
  return `${d.slice(0, 3)}.${d.slice(3, 6)}.${d.slice(6, 9)}-${d.slice(9, 11)}`;
}

/** Spec 3: CPF shown masked as ddd.***.**d-dd. */
export function maskCpf(value: string): string {
  const d = digitsOnly(value);
  if (d.length !== CPF_DIGITS) return '';
  return `${d.slice(0, 3)}.***.**${d.slice(8, 9)}-${d.slice(9, 11)}`;
}

/**
 * A Brazilian phone: 10 or 11 national digits (area code + number; mobiles have 9 digits and
 * start with 9), optionally with the 55 country code in front.
 */
export function isValidBrazilianPhone(value: string): boolean {
  let d = digitsOnly(value);
  if ((d.length === 12 || d.length === 13) && d.startsWith('55')) d = d.slice(2);
  if (d.length !== 10 && d.length !== 11) return false;
  const area = Number(d.slice(0, 2));
  if (area < 11 || area > 99) return false;
  if (d.length === 11) return d[2] === '9';
  return /[2-5]/.test(d[2] ?? '');
}

/** The e-mail pattern the login uses to decide whether date of birth appears (spec 2.4, 5). */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export function looksLikeEmail(value: string): boolean {
  return value.includes('@');
}

/**
 * Parses a date typed by a person, `DD/MM/YYYY` (also `D/M/YYYY` and `-` separators), into
 * `YYYY-MM-DD`; null when it is not a real calendar date.
 */
export function parseBrDate(value: string): string | null {
  const m = /^(\d{1,2})[/-](\d{1,2})[/-](\d{4})$/.exec(value.trim());
  if (!m) return null;
  const day = Number(m[1]);
  const month = Number(m[2]);
  const year = Number(m[3]);
  if (month < 1 || month > 12 || day < 1 || year < 1800) return null;
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day) return null;
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** `YYYY-MM-DD` to `DD/MM/YYYY`. */
export function formatBrDate(isoDate: string): string {
  const [y, m, d] = isoDate.slice(0, 10).split('-');
  return `${d}/${m}/${y}`;
}

/** Normalises a language in any letter case; unknown values give undefined. */
export function normalizeLanguage(value: string | null | undefined): Language | undefined {
  if (!value) return undefined;
  const lower = value.toLowerCase().replace('_', '-');
  if (lower === 'pt' || lower === 'pt-br') return 'pt-br';
  return (LANGUAGES as readonly string[]).includes(lower) ? (lower as Language) : undefined;
}
