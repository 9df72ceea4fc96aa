import { describe, expect, it } from 'vitest';
import { presetRange, rangeQuery } from './date-presets';

const today = new Date(2026, 10, 21, 15, 30);

describe('date presets', () => {
  it('counts the physician presets back from today', () => {
    expect(rangeQuery(presetRange('last7Days', today))).toEqual({ initialDate: '15/11/2026', finalDate: '21/11/2026' });
    expect(rangeQuery(presetRange('last14Days', today))).toEqual({
      initialDate: '08/11/2026',
      finalDate: '21/11/2026',
    });
  });

  it('covers whole months', () => {
    expect(rangeQuery(presetRange('thisMonth', today))).toEqual({ initialDate: '01/11/2026', finalDate: '21/11/2026' });
    expect(rangeQuery(presetRange('lastMonth', today))).toEqual({ initialDate: '01/10/2026', finalDate: '31/10/2026' });
    expect(rangeQuery(presetRange('last6Months', today))).toEqual({
      initialDate: '21/05/2026',
      finalDate: '21/11/2026',
    });
    expect(rangeQuery(presetRange('lastYear', today))).toEqual({ initialDate: '21/11/2025', finalDate: '21/11/2026' });
  });

  it('sends no dates without a range', () => {
    expect(rangeQuery(null)).toEqual({});
  });
});
