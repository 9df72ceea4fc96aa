import { describe, expect, it } from 'vitest';
import { applyMask, caretAfterDigits, formatPhone, maxDigits } from './mask-format';
import { MASK } from './masks';

describe('masks', () => {
  it('lays digits into a CPF and a date, writing a separator only once a digit follows it', () => {
    expect(applyMask(MASK.cpf, '123')).toBe('123');
    expect(applyMask(MASK.cpf, '1234')).toBe('123.4');
    expect(applyMask(MASK.cpf, '12345678909')).toBe('123.456.789-09');
    expect(applyMask(MASK.date, '09071984')).toBe('09/07/1984');
    expect(applyMask(MASK.mfaToken, '123456')).toBe('123456');
  });

  it('takes the landline pattern up to 10 digits and the mobile one at 11', () => {
    expect(applyMask(MASK.phone, '1')).toBe('(1');
    expect(applyMask(MASK.phone, '113333444')).toBe('(11) 3333-444');
    expect(applyMask(MASK.phone, '1133334444')).toBe('(11) 3333-4444');
    expect(applyMask(MASK.phone, '11988881111')).toBe('(11) 98888-1111');
    expect(maxDigits(MASK.phone)).toBe(11);
  });

  it('puts the caret after the n-th digit', () => {
    expect(caretAfterDigits('123.456.789-09', 3)).toBe(3);
    expect(caretAfterDigits('123.456.789-09', 4)).toBe(5);
    expect(caretAfterDigits('(11) 9', 0)).toBe(1);
    expect(caretAfterDigits('(11) 9', 3)).toBe(6);
  });
});

describe('formatPhone', () => {
  it('writes Brazilian numbers as people read them', () => {
    expect(formatPhone('11988881111')).toBe('(11) 98888-1111');
    expect(formatPhone('+55 11 3333 4444')).toBe('(11) 3333-4444');
    expect(formatPhone('5511988881111')).toBe('(11) 98888-1111');
    expect(formatPhone('08001234567')).toBe('0800 123 4567');
    expect(formatPhone(' +1 202 555 0100 ')).toBe('+1 202 555 0100');
  });
});
