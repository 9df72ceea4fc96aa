import dayjs from 'dayjs';
import 'dayjs/locale/es';
import 'dayjs/locale/pt-br';
import customParseFormat from 'dayjs/plugin/customParseFormat';
import localizedFormat from 'dayjs/plugin/localizedFormat';
import utc from 'dayjs/plugin/utc';
import { EXAM_TIME_ZONE_OFFSET_MINUTES, type Language } from '@portal/shared/limits';

dayjs.extend(utc);
dayjs.extend(customParseFormat);
dayjs.extend(localizedFormat);

export const DISPLAY_DATE = 'DD/MM/YYYY';
export const DISPLAY_DATE_TIME = 'DD/MM/YYYY HH:mm';

/** An exam timestamp as the patient's clinic sees it: always GMT-3 (spec 9), whatever the browser's zone. */
export function formatExamDate(iso: string | null | undefined, withTime = false): string | null {
  if (!iso) return null;
  const d = dayjs.utc(iso);
  if (!d.isValid()) return null;
  return d.utcOffset(EXAM_TIME_ZONE_OFFSET_MINUTES).format(withTime ? DISPLAY_DATE_TIME : DISPLAY_DATE);
}

/**
 * A moment in words, in the clinic's zone (GMT-3) like every date of the portal: "4 de dezembro
 * de 2026 às 10:15", "4 de diciembre de 2026 10:15", "December 4, 2026 10:15 AM".
 */
export function formatDateTimeInWords(iso: string | null | undefined, language: Language): string | null {
  if (!iso) return null;
  const d = dayjs.utc(iso);
  if (!d.isValid()) return null;
  return d.utcOffset(EXAM_TIME_ZONE_OFFSET_MINUTES).locale(language).format('LLL');
}

/** A calendar date `YYYY-MM-DD` (birth dates) as `DD/MM/YYYY`, with no zone shift. */
export function formatCalendarDate(isoDate: string | null | undefined): string | null {
  if (!isoDate) return null;
  const d = dayjs(isoDate.slice(0, 10), 'YYYY-MM-DD', true);
  return d.isValid() ? d.format(DISPLAY_DATE) : null;
}

/** `DD/MM/YYYY` typed by a person, strictly, as a dayjs date or null. */
export function parseDisplayDate(value: string): dayjs.Dayjs | null {
  const d = dayjs(value, DISPLAY_DATE, true);
  return d.isValid() ? d : null;
}
