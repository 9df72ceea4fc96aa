import { MFA_TOKEN_LENGTH } from '@portal/shared/limits';
import { digitsOnly, isValidCpf } from '@portal/shared/formats';
import { z } from 'zod';

/** Messages are i18n keys of the `common` namespace, so every language shows its own text. */
export const loginFormSchema = z
  .object({
    mode: z.enum(['default', 'cpf']),
    userName: z.string(),
    cpf: z.string(),
    password: z.string(),
    dateOfBirth: z.string(),
    tokenMFA: z.string(),
    rememberCpf: z.boolean(),
    mfaRequired: z.boolean(),
  })
  .superRefine((v, ctx) => {
    if (v.mode === 'default' && !v.userName.trim()) {
      ctx.addIssue({ code: 'custom', path: ['userName'], message: 'validation.required' });
    }
    if (v.mode === 'cpf' && !isValidCpf(v.cpf)) {
      ctx.addIssue({ code: 'custom', path: ['cpf'], message: 'validation.cpf' });
    }
    if (!v.password) ctx.addIssue({ code: 'custom', path: ['password'], message: 'validation.required' });
    if (v.mfaRequired) {
      const token = digitsOnly(v.tokenMFA);
      if (!token) ctx.addIssue({ code: 'custom', path: ['tokenMFA'], message: 'validation.mfaRequired' });
      else if (token.length !== MFA_TOKEN_LENGTH) {
        ctx.addIssue({ code: 'custom', path: ['tokenMFA'], message: 'validation.mfaLength' });
      }
    }
  });

export type LoginFormValues = z.infer<typeof loginFormSchema>;
