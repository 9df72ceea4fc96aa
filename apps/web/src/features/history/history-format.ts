import { HISTORY_TRUNCATE_NARROW, HISTORY_TRUNCATE_WIDE, HISTORY_WIDE_TABLE_COLUMNS } from '@portal/shared/limits';

/** Spec 9: tables wider than 5 columns cut texts to 20 characters, others to 100. */
export function truncateCell(value: string, columnCount: number): string {
  const max = columnCount > HISTORY_WIDE_TABLE_COLUMNS ? HISTORY_TRUNCATE_WIDE : HISTORY_TRUNCATE_NARROW;
  return value.length > max ? `${value.slice(0, max - 1)}…` : value;
}

export type RangeFlag = 'low' | 'high' | null;

/** A numeric value outside its reference range is flagged; texts and missing ranges never are. */
export function rangeFlag(value: number | string, min: number | null, max: number | null): RangeFlag {
  const n = typeof value === 'number' ? value : Number(String(value).replace(',', '.'));
  if (!Number.isFinite(n) || String(value).trim() === '') return null;
  if (min !== null && n < min) return 'low';
  if (max !== null && n > max) return 'high';
  return null;
}

export interface SeriesPoint {
  date: string;
  value: number | string;
  unit: string | null;
  referenceMin: number | null;
  referenceMax: number | null;
}

/** Chart rows: numeric values only; points out of range repeat in their own series to be drawn red. */
export function chartData(series: readonly SeriesPoint[]) {
  return series.flatMap((point) => {
    const n = typeof point.value === 'number' ? point.value : Number(String(point.value).replace(',', '.'));
    if (!Number.isFinite(n)) return [];
    const flag = rangeFlag(n, point.referenceMin, point.referenceMax);
    return [{ date: point.date, value: n, outside: flag ? n : null }];
  });
}

const NUMBER_IN_TEXT = /(?<![\w.,/])-?\d+(?:\.\d+)?(?![\w/]|[.,]\d)/g;

/**
 * The numbers of a text as the reader's language writes them ("39.5" -> "39,5", "150000" ->
 * "150.000" in pt-BR), with the decimals the result was given with. Dates and codes stay as they are.
 */
export function localizeNumbers(text: string, locale: string): string {
  return text.replace(NUMBER_IN_TEXT, (token) => formatDecimal(Number(token), locale, decimalsOf(token)));
}

export function decimalsOf(token: string): number {
  const dot = token.indexOf('.');
  return dot < 0 ? 0 : token.length - dot - 1;
}

export function formatDecimal(value: number, locale: string, decimals?: number): string {
  return new Intl.NumberFormat(locale, {
    minimumFractionDigits: decimals ?? 0,
    maximumFractionDigits: decimals ?? 6,
  }).format(value);
}
