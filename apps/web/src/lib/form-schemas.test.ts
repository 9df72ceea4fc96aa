import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  fieldBirthDate,
  fieldEmail,
  fieldOptionalCpf,
  fieldOptionalPhone,
  fieldPassword,
  mustMatch,
} from './form-schemas';

const messageOf = (schema: z.ZodType, value: unknown) => {
  const result = schema.safeParse(value);
  return result.success ? null : result.error.issues[0]?.message;
};

describe('form fields of spec 5', () => {
  it('requires a password of at least six characters', () => {
    expect(messageOf(fieldPassword, '')).toBe('validation.required');
    expect(messageOf(fieldPassword, '12345')).toBe('validation.passwordMin');
    expect(messageOf(fieldPassword, '123456')).toBeNull();
  });

  it('checks e-mails with the login pattern', () => {
    expect(messageOf(fieldEmail, ' ')).toBe('validation.required');
    expect(messageOf(fieldEmail, 'ana@')).toBe('validation.email');
    expect(messageOf(fieldEmail, ' ana@example.com ')).toBeNull();
  });

  it('takes an empty CPF or phone, and refuses a wrong one', () => {
    expect(messageOf(fieldOptionalCpf, '')).toBeNull();
    expect(messageOf(fieldOptionalCpf, '___.___.___-__')).toBeNull();
    expect(messageOf(fieldOptionalCpf, '111.111.111-11')).toBe('validation.cpf');
    expect(messageOf(fieldOptionalCpf, '529.982.247-25')).toBeNull();
    expect(messageOf(fieldOptionalPhone, '(11) 1234')).toBe('validation.phone');
    expect(messageOf(fieldOptionalPhone, '(11) 98765-4321')).toBeNull();
  });

  it('takes only real, past birth dates typed as dd/mm/yyyy', () => {
    expect(messageOf(fieldBirthDate, '')).toBe('validation.required');
    expect(messageOf(fieldBirthDate, '31/02/1990')).toBe('validation.date');
    expect(messageOf(fieldBirthDate, '1/2/1990')).toBe('validation.date');
    expect(messageOf(fieldBirthDate, '01/01/2999')).toBe('validation.date');
    expect(messageOf(fieldBirthDate, '29/02/2000')).toBeNull();
  });

  it('puts the mismatch on the confirmation field', () => {
    const schema = z
      .object({ password: z.string(), confirm: z.string() })
      .superRefine(mustMatch('password', 'confirm', 'validation.passwordsMatch'));
    const result = schema.safeParse({ password: 'abcdef', confirm: 'abcdeg' });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['confirm']);
    expect(schema.safeParse({ password: 'abcdef', confirm: 'abcdef' }).success).toBe(true);
  });
});
