import type { PATIENT_DATE_PRESETS, PHYSICIAN_DATE_PRESETS } from '@portal/shared/limits';
import dayjs from 'dayjs';
import { DISPLAY_DATE } from '../lib/dates';

export type DatePreset = (typeof PATIENT_DATE_PRESETS)[number] | (typeof PHYSICIAN_DATE_PRESETS)[number];
export type DateRange = [Date, Date];

/** The calendar days a preset of spec 9 covers, counted back from `today` (inclusive). */
export function presetRange(preset: DatePreset, today: Date = new Date()): DateRange {
  const end = dayjs(today).startOf('day');
  switch (preset) {
    case 'last7Days':
      return [end.subtract(6, 'day').toDate(), end.toDate()];
    case 'last14Days':
      return [end.subtract(13, 'day').toDate(), end.toDate()];
    case 'thisMonth':
      return [end.startOf('month').toDate(), end.toDate()];
    case 'lastMonth': {
      const previous = end.subtract(1, 'month');
      return [previous.startOf('month').toDate(), previous.endOf('month').startOf('day').toDate()];
    }
    case 'last3Months':
      return [end.subtract(3, 'month').toDate(), end.toDate()];
    case 'last6Months':
      return [end.subtract(6, 'month').toDate(), end.toDate()];
    case 'lastYear':
      return [end.subtract(1, 'year').toDate(), end.toDate()];
  }
}

/** A range as the `initialDate`/`finalDate` query parameters (DD/MM/YYYY, contract 2). */
export function rangeQuery(range: DateRange | null): { initialDate?: string; finalDate?: string } {
  if (!range) return {};
  return { initialDate: dayjs(range[0]).format(DISPLAY_DATE), finalDate: dayjs(range[1]).format(DISPLAY_DATE) };
}
