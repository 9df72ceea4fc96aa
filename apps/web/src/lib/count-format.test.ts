import { describe, expect, it, vi } from 'vitest';
import { formatCount } from './count-format';

describe('formatCount', () => {
  it('writes whole numbers as Intl.NumberFormat does in each language', () => {
    const samples = [
      0,
      1,
      9,
      12,
      999,
      1000,
      1234,
      9999,
      10000,
      12345,
      99999,
      100000,
      123456,
      1234567,
      12345678,
      1e9 + 7,
    ];
    for (const language of ['pt-br', 'es', 'en'] as const) {
      const intl = new Intl.NumberFormat(language);
      for (const n of [...samples, ...samples.map((v) => -v).filter((v) => v !== 0)]) {
        expect(formatCount(n, language), `${language} ${n}`).toBe(intl.format(n));
      }
    }
  });

  it('groups thousands by language: a point in Portuguese and Spanish, a comma in English', () => {
    expect(formatCount(1234, 'pt-br')).toBe('1.234');
    expect(formatCount(1234, 'es')).toBe('1234');
    expect(formatCount(12345, 'es')).toBe('12.345');
    expect(formatCount(1234567, 'en')).toBe('1,234,567');
  });

  it('leaves fractions to Intl.NumberFormat, with the decimal comma', () => {
    expect(formatCount(1234.5, 'pt-br')).toBe('1.234,5');
  });
});

describe("the lists' totals", () => {
  it('are written by formatCount through i18next, in every language', async () => {
    const { i18n, i18nReady } = await import('./i18n');
    await i18nReady;
    await i18n.loadNamespaces('results');
    const total = (lng: string, count: number) => i18n.t('results:list.total', { lng, count });
    await i18n.loadLanguages(['es', 'en']);
    // Without Intl.NumberFormat: its first use on a page costs the first screen about 90 ms.
    const numberFormat = vi.spyOn(Intl, 'NumberFormat');
    expect(total('pt-br', 1)).toBe('1 protocolo encontrado');
    expect(total('pt-br', 1234)).toBe('1.234 protocolos encontrados');
    expect(total('es', 1234)).toBe('1234 protocolos encontrados');
    expect(total('es', 12345)).toBe('12.345 protocolos encontrados');
    expect(total('en', 1234)).toBe('1,234 protocols found');
    expect(numberFormat).not.toHaveBeenCalled();
    numberFormat.mockRestore();
  });

  it("take no options in any text: the portal's number format does not read them", () => {
    const texts = import.meta.glob<string>('../locales/*/*.json', { eager: true, query: '?raw', import: 'default' });
    const withOptions = Object.entries(texts).filter(([, text]) => /,\s*number\s*\(/.test(text));
    expect(Object.keys(texts).length).toBeGreaterThan(10);
    expect(withOptions.map(([file]) => file)).toEqual([]);
  });
});
