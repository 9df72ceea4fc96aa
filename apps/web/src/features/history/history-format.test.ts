import { describe, expect, it } from 'vitest';
import { chartData, rangeFlag, truncateCell } from './history-format';

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
