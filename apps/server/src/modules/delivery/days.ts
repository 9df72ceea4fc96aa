import { EXAM_TIME_ZONE_OFFSET_MINUTES } from '@portal/shared/limits';

/** Calendar days as people in Brazil pick them (GMT-3, spec 9): a list's date range is made of them. */
const OFFSET_MS = EXAM_TIME_ZONE_OFFSET_MINUTES * 60_000;
const DAY_MS = 24 * 3600_000;

/** The instant a calendar day (`YYYY-MM-DD`) starts, as ISO: 00:00 GMT-3. */
export function dayStart(isoDate: string): string {
  return new Date(Date.parse(`${isoDate}T00:00:00.000Z`) - OFFSET_MS).toISOString();
}

/** The instant the next calendar day starts. */
export function dayEnd(isoDate: string): string {
  return new Date(Date.parse(dayStart(isoDate)) + DAY_MS).toISOString();
}

/** The calendar day (`YYYY-MM-DD`) of an ISO instant. */
export function dayOf(instant: string): string {
  return new Date(Date.parse(instant) + OFFSET_MS).toISOString().slice(0, 10);
}

/** The calendar day `days` after `isoDate` (before it when negative). */
export function addDays(isoDate: string, days: number): string {
  return new Date(Date.parse(`${isoDate}T00:00:00.000Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** The calendar day after `isoDate`. */
export const nextDay = (isoDate: string): string => addDays(isoDate, 1);

/** Days since the Monday of the week of `isoDate` (0 on a Monday). */
export function daysSinceMonday(isoDate: string): number {
  return (new Date(`${isoDate}T00:00:00.000Z`).getUTCDay() + 6) % 7;
}
