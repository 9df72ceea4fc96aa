import { PAGER_WINDOW } from '@portal/shared/limits';

/**
 * The page links a pager shows (spec 2.7 and 9): at most `size` consecutive pages around the
 * current one, shifted at the edges so the window stays full when there are enough pages.
 */
export function pageWindow(current: number, totalPages: number, size: number = PAGER_WINDOW): number[] {
  if (totalPages < 1) return [];
  const page = Math.min(Math.max(1, current), totalPages);
  const width = Math.min(size, totalPages);
  let start = page - Math.floor(width / 2);
  start = Math.max(1, Math.min(start, totalPages - width + 1));
  return Array.from({ length: width }, (_, i) => start + i);
}

export function pageCount(total: number, size: number): number {
  return Math.max(1, Math.ceil(total / size));
}
