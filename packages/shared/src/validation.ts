import { z } from 'zod';
import { EMAIL_PATTERN, normalizeLanguage, parseBrDate } from './formats.js';
import { PASSWORD_MAX, PASSWORD_MIN } from './limits.js';

/** The zod schemas of what people type; the plain checks they use are in formats.ts. */
export const zLanguage = z.string().transform((v, ctx) => {
  const lang = normalizeLanguage(v);
  if (!lang) {
    ctx.addIssue({ code: 'custom', message: 'language must be pt-br, es or en' });
    return z.NEVER;
  }
  return lang;
});

export const zPassword = z.string().min(PASSWORD_MIN).max(PASSWORD_MAX);
export const zEmail = z.string().trim().toLowerCase().regex(EMAIL_PATTERN, 'invalid e-mail').max(254);

/** A `DD/MM/YYYY` date typed by a person, parsed to `YYYY-MM-DD`. */
export const zBrDate = z.string().transform((v, ctx) => {
  const iso = parseBrDate(v);
  if (!iso) {
    ctx.addIssue({ code: 'custom', message: 'date must be DD/MM/YYYY' });
    return z.NEVER;
  }
  return iso;
});

/** ISO 8601 date (`YYYY-MM-DD`). */
export const zIsoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'date must be YYYY-MM-DD')
  .refine((v) => {
    const d = new Date(`${v}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(v);
  }, 'not a calendar date');

/** ISO 8601 timestamp with offset (or a bare date); normalised to UTC `toISOString()`. */
export const zTimestamp = z.string().transform((v, ctx) => {
  const ok = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(v);
  const d = new Date(v.length === 10 ? `${v}T00:00:00Z` : v);
  if (!ok || Number.isNaN(d.getTime())) {
    ctx.addIssue({ code: 'custom', message: 'timestamp must be ISO 8601' });
    return z.NEVER;
  }
  return d.toISOString();
});
