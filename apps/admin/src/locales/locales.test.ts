import { describe, expect, it } from 'vitest';
import en from './en.json';
import es from './es.json';
import ptBr from './pt-br.json';

function keys(value: unknown, prefix = ''): string[] {
  if (value && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => keys(v, prefix ? `${prefix}.${k}` : k));
  }
  return [prefix];
}

describe('console locales', () => {
  it('have the same keys in pt-br, es and en, none empty', () => {
    const reference = keys(ptBr).sort();
    expect(keys(es).sort()).toEqual(reference);
    expect(keys(en).sort()).toEqual(reference);
    for (const bundle of [ptBr, es, en]) {
      const texts = JSON.stringify(bundle);
      expect(texts).not.toMatch(/:""/);
    }
  });
});
