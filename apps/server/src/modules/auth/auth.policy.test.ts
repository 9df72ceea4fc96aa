import { describe, expect, it } from 'vitest';
import type { UserType } from '../../db/schema.js';
import { appKeyDecision, classifyUserName, guestUsername, internationalPhone, maskPhone } from './auth.policy.js';

describe('what a login user name names', () => {
  it.each([
    ['Maria@Example.COM', { kind: 'email', email: 'maria@example.com' }],
    ['529.982.247-25', { kind: 'cpf', digits: '52998224725', valid: true }],
    ['529.982.247-26', { kind: 'cpf', digits: '52998224726', valid: false }],
    ['52998224725', { kind: 'digits', digits: '52998224725' }],
    // 11 digits without valid check digits can only be a protocol number.
    ['52998224726', { kind: 'protocol', number: '52998224726' }],
    ['123456', { kind: 'protocol', number: '123456' }],
    ['2024-000123', { kind: 'protocol', number: '2024-000123' }],
    ['  ABC-1 ', { kind: 'protocol', number: 'ABC-1' }],
  ])('%s', (userName, expected) => {
    expect(classifyUserName(userName)).toEqual(expected);
  });
});

describe('which interface an account may sign in through', () => {
  const matrix: Array<[UserType, 'login' | 'admin', ReturnType<typeof appKeyDecision>]> = [
    ['PATIENT', 'login', 'allow'],
    ['PHYSICIAN', 'login', 'allow'],
    ['EXTERNAL', 'login', 'allow'],
    ['ADMIN', 'login', 'needsAdminInterface'],
    ['COMPANY', 'login', 'needsAdminInterface'],
    ['PATIENT', 'admin', 'adminOnly'],
    ['PHYSICIAN', 'admin', 'adminOnly'],
    ['EXTERNAL', 'admin', 'adminOnly'],
    ['ADMIN', 'admin', 'allow'],
    ['COMPANY', 'admin', 'allow'],
  ];
  it.each(matrix)('%s with appKey %s: %s', (type, appKey, decision) => {
    expect(appKeyDecision(type, appKey)).toBe(decision);
  });
});

describe('phones and guest names', () => {
  it('adds the country code to Brazilian numbers only', () => {
    expect(internationalPhone('(11) 98765-4321')).toBe('5511987654321');
    expect(internationalPhone('5511987654321')).toBe('5511987654321');
    expect(internationalPhone('+351 912 345 678')).toBe('351912345678');
  });
  it('shows only the area code and the last four digits', () => {
    expect(maskPhone('5511987654321')).toBe('(11) *****-4321');
    expect(maskPhone(null)).toBeNull();
  });
  it('never gives a guest a user name with an @', () => {
    expect(guestUsername('100200', 'session-1')).toBe('100200');
    expect(guestUsername('ana@example.com', 'session-1')).toBe('session-1');
  });
});
