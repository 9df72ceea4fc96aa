import type { Language } from '@portal/shared/limits';

/** Each language's thousands separator, and the digits a number needs before it is grouped. */
const GROUPING: Record<Language, { separator: string; minimumDigits: number }> = {
  'pt-br': { separator: '.', minimumDigits: 4 },
  // Spanish leaves a four-digit number whole (1234, 12.345), as Intl.NumberFormat('es') does.
  es: { separator: '.', minimumDigits: 5 },
  en: { separator: ',', minimumDigits: 4 },
};

/**
 * A whole number as the language writes it ("1.234 protocolos", "1,234 protocols"), what
 * Intl.NumberFormat gives for integers. The first Intl.NumberFormat of a page loads the language's
 * number data: about 90 ms of the main thread on this machine, more on a phone, while the first
 * screen is drawn. Anything but an integer is left to Intl.NumberFormat. As i18next's `number` format
 * it reads no options: the texts use it bare, `{{count, number}}` (a test checks them).
 */
export function formatCount(value: number, language: Language): string {
  if (!Number.isSafeInteger(value)) return new Intl.NumberFormat(language).format(value);
  const digits = String(Math.abs(value));
  const { separator, minimumDigits } = GROUPING[language];
  const grouped = digits.length < minimumDigits ? digits : digits.replace(/\B(?=(\d{3})+$)/g, separator);
  return value < 0 ? `-${grouped}` : grouped;
}
