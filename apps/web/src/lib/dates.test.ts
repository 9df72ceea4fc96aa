import { describe, expect, it } from 'vitest';
import { formatCalendarDate, formatExamDate, parseDisplayDate, formatDateTimeInWords } from './dates';

describe('dates', () => {
  it('shows exam timestamps in GMT-3 whatever the offset they come with', () => {
    expect(formatExamDate('2026-03-01T02:30:00Z')).toBe('28/02/2026');
    expect(formatExamDate('2026-03-01T02:30:00Z', true)).toBe('28/02/2026 23:30');
    expect(formatExamDate('2026-03-01T12:00:00+02:00', true)).toBe('01/03/2026 07:00');
  });

  it('answers null for an absent or broken timestamp', () => {
    expect(formatExamDate(null)).toBeNull();
    expect(formatExamDate('not a date')).toBeNull();
  });

  it('shows birth dates as typed, without shifting the day', () => {
    expect(formatCalendarDate('1990-01-31')).toBe('31/01/1990');
    expect(formatCalendarDate('1990-02-31')).toBeNull();
  });

  it('parses dd/mm/yyyy strictly', () => {
    expect(parseDisplayDate('05/11/2001')?.format('YYYY-MM-DD')).toBe('2001-11-05');
    expect(parseDisplayDate('5/11/01')).toBeNull();
  });

  it('says a moment in words in each language, in the clinic zone', () => {
    const iso = '2026-12-04T13:15:00.000Z';
    expect(formatDateTimeInWords(iso, 'pt-br')).toBe('4 de dezembro de 2026 às 10:15');
    expect(formatDateTimeInWords(iso, 'es')).toBe('4 de diciembre de 2026 10:15');
    expect(formatDateTimeInWords(iso, 'en')).toBe('December 4, 2026 10:15 AM');
    expect(formatDateTimeInWords(null, 'en')).toBeNull();
  });
});
