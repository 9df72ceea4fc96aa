import { describe, expect, it } from 'vitest';
import { firstName } from './person-name';

describe('firstName', () => {
  it('takes the first word of a name, with a title kept beside it', () => {
    expect(firstName('Maria da Silva')).toBe('Maria');
    expect(firstName('  José   Conceição ')).toBe('José');
    expect(firstName('Dra. Ana Souza')).toBe('Dra. Ana');
    expect(firstName('DR JOÃO')).toBe('DR JOÃO');
    expect(firstName('Dr.')).toBe('Dr.');
    expect(firstName('')).toBe('');
  });
});
