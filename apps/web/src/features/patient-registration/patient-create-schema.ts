import { z } from 'zod';
import {
  fieldBirthDate,
  fieldEmail,
  fieldOptionalCpf,
  fieldOptionalPhone,
  fieldPassword,
  fieldRequired,
  mustMatch,
} from '../../lib/form-schemas';

/** Spec 5 patient registration; the protocol box is optional. */
export const patientCreateSchema = z
  .object({
    fullName: fieldRequired,
    cpf: fieldOptionalCpf,
    phone: fieldOptionalPhone,
    dateOfBirth: fieldBirthDate,
    emailAddress: fieldEmail,
    confirmEmailAddress: z.string().trim().min(1, 'validation.required'),
    password: fieldPassword,
    confirmPassword: z.string().min(1, 'validation.required'),
    protocolNumber: z.string(),
    protocolPassword: z.string(),
    serviceTerms: z.boolean().refine((v) => v, 'validation.termsRequired'),
  })
  .superRefine((v, ctx) => {
    if (v.emailAddress && v.confirmEmailAddress.trim().toLowerCase() !== v.emailAddress.trim().toLowerCase()) {
      ctx.addIssue({ code: 'custom', path: ['confirmEmailAddress'], message: 'validation.emailsMatch' });
    }
  })
  .superRefine(mustMatch('password', 'confirmPassword', 'validation.passwordsMatch'));

export type PatientCreateValues = z.infer<typeof patientCreateSchema>;
