import { PASSWORD_MAX, PASSWORD_MIN } from '@portal/shared/limits';
import { EMAIL_PATTERN, isValidBrazilianPhone, isValidCpf, parseBrDate } from '@portal/shared/formats';
import { z } from 'zod';

// Form fields of spec 5. Messages are i18n keys of the `common` namespace.
export const fieldRequired = z.string().trim().min(1, 'validation.required');

export const fieldEmail = z
  .string()
  .trim()
  .min(1, 'validation.required')
  .regex(EMAIL_PATTERN, 'validation.email')
  .max(254, 'validation.email');

export const fieldPassword = z
  .string()
  .min(1, 'validation.required')
  .min(PASSWORD_MIN, 'validation.passwordMin')
  .max(PASSWORD_MAX, 'validation.passwordMin');

export const fieldOptionalCpf = z
  .string()
  .refine((v) => v.replace(/\D/g, '') === '' || isValidCpf(v), 'validation.cpf');

export const fieldOptionalPhone = z
  .string()
  .refine((v) => v.replace(/\D/g, '') === '' || isValidBrazilianPhone(v), 'validation.phone');

/** A dd/mm/yyyy date that exists and is not in the future. */
export const fieldBirthDate = z
  .string()
  .min(1, 'validation.required')
  .refine((v) => {
    const iso = /^\d{2}\/\d{2}\/\d{4}$/.test(v) ? parseBrDate(v) : null;
    return iso !== null && iso <= new Date().toISOString().slice(0, 10);
  }, 'validation.date');

/** Adds the 'must match' rule of spec 5 ("compare to"). */
export function mustMatch<T extends Record<string, unknown>>(
  field: keyof T & string,
  other: keyof T & string,
  message: string,
) {
  return (value: T, ctx: z.RefinementCtx) => {
    if (value[field] && value[other] !== value[field]) ctx.addIssue({ code: 'custom', path: [other], message });
  };
}
