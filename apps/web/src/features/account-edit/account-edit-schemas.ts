import { EMAIL_FREQUENCIES } from '@portal/shared/exam-status';
import { isValidBrazilianPhone, isValidCpf } from '@portal/shared/formats';
import { z } from 'zod';
import {
  fieldBirthDate,
  fieldEmail,
  fieldOptionalPhone,
  fieldPassword,
  fieldRequired,
  mustMatch,
} from '../../lib/form-schemas';

const fieldCpf = z
  .string()
  .min(1, 'validation.required')
  .refine((v) => isValidCpf(v), 'validation.cpf');
const fieldPhone = z
  .string()
  .min(1, 'validation.required')
  .refine((v) => isValidBrazilianPhone(v), 'validation.phone');

/** Spec 5 patient edit: name, CPF, birth, phone and gender required. */
export const patientEditSchema = z.object({
  name: fieldRequired,
  cpf: fieldCpf,
  birth: fieldBirthDate,
  gender: z.string().refine((v): boolean => v === 'FEMALE' || v === 'MALE', 'validation.required'),
  phone: fieldPhone,
  frequencyReceiveEmail: z.enum(EMAIL_FREQUENCIES),
});
export type PatientEditValues = z.infer<typeof patientEditSchema>;

/** Spec 5 physician edit: CPF and birth required, phones validated, frequency required. */
export const physicianEditSchema = z.object({
  cpf: fieldCpf,
  birth: fieldBirthDate,
  mobile: fieldOptionalPhone,
  landline: fieldOptionalPhone,
  frequencyReceiveEmail: z.enum(EMAIL_FREQUENCIES, 'validation.required'),
});
export type PhysicianEditValues = z.infer<typeof physicianEditSchema>;

export const changePasswordSchema = z
  .object({
    currentPassword: fieldPassword,
    newPassword: fieldPassword,
    confirmNewPassword: z.string().min(1, 'validation.required'),
  })
  .superRefine(mustMatch('newPassword', 'confirmNewPassword', 'validation.passwordsMatch'));
export type ChangePasswordValues = z.infer<typeof changePasswordSchema>;

export const changeEmailSchema = z
  .object({
    currentPassword: fieldPassword,
    newEmail: fieldEmail,
    confirmNewEmail: z.string().trim().min(1, 'validation.required'),
  })
  .superRefine((v, ctx) => {
    if (v.newEmail && v.confirmNewEmail.toLowerCase() !== v.newEmail.toLowerCase()) {
      ctx.addIssue({ code: 'custom', path: ['confirmNewEmail'], message: 'validation.emailsMatch' });
    }
  });
export type ChangeEmailValues = z.infer<typeof changeEmailSchema>;
