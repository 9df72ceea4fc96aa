import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ERROR_TRANSLATION_KEYS } from '@portal/shared/errors';
import { LANGUAGES } from '@portal/shared/limits';
import { describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));
const namespaces = fs.readdirSync(path.join(here, 'pt-br')).filter((f) => f.endsWith('.json'));

function load(language: string, file: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(here, language, file), 'utf8')) as Record<string, unknown>;
}

/** Every leaf key as a dotted path. */
function leafKeys(value: unknown, prefix = ''): string[] {
  if (value === null || typeof value !== 'object') return [prefix];
  return Object.entries(value as Record<string, unknown>).flatMap(([key, child]) =>
    leafKeys(child, prefix ? `${prefix}.${key}` : key),
  );
}

function leafValues(value: unknown): unknown[] {
  if (value === null || typeof value !== 'object') return [value];
  return Object.values(value as Record<string, unknown>).flatMap(leafValues);
}

function placeholders(text: string): string[] {
  return [...text.matchAll(/{{\s*(\w+)\s*}}/g)].map((m) => m[1] ?? '').sort();
}

describe('translations', () => {
  it('has the same namespaces in every language', () => {
    for (const language of LANGUAGES) {
      const files = fs.readdirSync(path.join(here, language)).filter((f) => f.endsWith('.json'));
      expect(files.sort(), language).toEqual([...namespaces].sort());
    }
  });

  for (const file of namespaces) {
    it(`has every key of ${file} in every language, with the same placeholders`, () => {
      const reference = load('pt-br', file);
      const referenceKeys = leafKeys(reference).sort();
      for (const language of LANGUAGES) {
        const other = load(language, file);
        const keys = leafKeys(other).sort();
        expect(
          referenceKeys.filter((k) => !keys.includes(k)),
          `keys missing in ${language}/${file}`,
        ).toEqual([]);
        expect(
          keys.filter((k) => !referenceKeys.includes(k)),
          `keys only in ${language}/${file}`,
        ).toEqual([]);
        for (const key of referenceKeys) {
          const get = (tree: Record<string, unknown>) =>
            key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown>)?.[part], tree);
          const a = get(reference);
          const b = get(other);
          if (typeof a === 'string' && typeof b === 'string') {
            expect(placeholders(b), `${language}/${file} ${key}`).toEqual(placeholders(a));
          }
        }
      }
    });
  }

  it('has no empty texts', () => {
    for (const language of LANGUAGES) {
      for (const file of namespaces) {
        for (const value of leafValues(load(language, file))) {
          expect(typeof value === 'string' && value.trim().length > 0, `${language}/${file}`).toBe(true);
        }
      }
    }
  });

  it('says a number of things through plural forms, never with "(s)"', () => {
    for (const language of LANGUAGES) {
      for (const file of namespaces) {
        const counted = leafKeys(load(language, file)).filter((k) => /_(?:zero|one|other)$/.test(k));
        for (const key of counted) {
          const base = key.replace(/_(?:zero|one|other)$/, '');
          expect(counted, `${language}/${file} ${base}`).toEqual(
            expect.arrayContaining([`${base}_one`, `${base}_other`]),
          );
        }
        for (const value of leafValues(load(language, file))) {
          expect(String(value), `${language}/${file}`).not.toMatch(/\((?:s|es)\)/);
        }
      }
    }
  });

  it('translates every server message of the error catalogue, and the fallbacks', () => {
    const keys = leafKeys(load('pt-br', 'errors.json'));
    const needed = [...ERROR_TRANSLATION_KEYS.map((e) => e.key), 'errors.default', 'errors.loginDefault'];
    expect(needed.filter((k) => !keys.includes(k))).toEqual([]);
  });
});
