import { describe, expect, it } from 'vitest';
import { chartData, rangeFlag, truncateCell, localizeNumbers } from './history-format';

describe('history table truncation', () => {
  const long = 'Hemoglobina glicada (HbA1c) por HPLC com referência';

  it('cuts at 20 characters when the table has more than five columns', () => {
    const cut = truncateCell(long, 6);
    expect(cut).toHaveLength(20);
    expect(cut.endsWith('…')).toBe(true);
  });

  it('keeps up to 100 characters in narrower tables', () => {
    expect(truncateCell(long, 5)).toBe(long);
    expect(truncateCell('x'.repeat(150), 3)).toHaveLength(100);
  });

  it('leaves short texts alone', () => {
    expect(truncateCell('13,5', 12)).toBe('13,5');
  });
});

describe('reference range flags', () => {
  it('flags numbers below and above the range, with comma decimals', () => {
    expect(rangeFlag(11.2, 12, 16)).toBe('low');
    expect(rangeFlag('17,1', 12, 16)).toBe('high');
    expect(rangeFlag('13.5', 12, 16)).toBeNull();
  });

  it('never flags texts or values without a range', () => {
    expect(rangeFlag('negativo', 12, 16)).toBeNull();
    expect(rangeFlag(99, null, null)).toBeNull();
  });

  it('draws only numeric points, repeating those outside the range', () => {
    expect(
      chartData([
        { date: '01/01/2026', value: 11, unit: 'g/dL', referenceMin: 12, referenceMax: 16 },
        { date: '01/02/2026', value: 'não reagente', unit: null, referenceMin: null, referenceMax: null },
        { date: '01/03/2026', value: '13,5', unit: 'g/dL', referenceMin: 12, referenceMax: 16 },
      ]),
    ).toEqual([
      { date: '01/01/2026', value: 11, outside: 11 },
      { date: '01/03/2026', value: 13.5, outside: null },
    ]);
  });
});

describe('localizeNumbers', () => {
  it('writes decimals and thousands as the language does, keeping the given decimals', () => {
    expect(localizeNumbers('39.5', 'pt-BR')).toBe('39,5');
    expect(localizeNumbers('12.10', 'pt-BR')).toBe('12,10');
    expect(localizeNumbers('150000', 'pt-BR')).toBe('150.000');
    expect(localizeNumbers('3.5 a 5.5', 'es')).toBe('3,5 a 5,5');
    expect(localizeNumbers('150000', 'es')).toBe('150.000');
    expect(localizeNumbers('39.5', 'en')).toBe('39.5');
    expect(localizeNumbers('-0.25', 'pt-BR')).toBe('-0,25');
  });

  it('leaves dates, codes and words alone', () => {
    expect(localizeNumbers('18/11/2026', 'pt-BR')).toBe('18/11/2026');
    expect(localizeNumbers('HB2 Positivo', 'pt-BR')).toBe('HB2 Positivo');
    expect(localizeNumbers('1.2.3', 'pt-BR')).toBe('1.2.3');
    expect(localizeNumbers('Hemoglobina (g/dL)', 'pt-BR')).toBe('Hemoglobina (g/dL)');
  });
});
