import { describe, expect, it } from 'vitest';
import type { ValidatedUser } from './api/auth-api';
import { landingTarget } from './landing-redirect';

const base: ValidatedUser = {
  identifier: 'u1',
  username: 'ana@example.com',
  name: 'Ana',
  birthdate: null,
  personalInfo: null,
  adminInstitutionID: null,
  role: 'PATIENT',
  isUserType: false,
  isPhysicianType: false,
  isExternalType: false,
  isAdminType: false,
  isCompanyType: false,
  countProtocols: 0,
};

describe('landing redirects (spec 2.3)', () => {
  it('sends a protocol login with one protocol or none to the protocol view', () => {
    expect(landingTarget({ ...base, username: '123456', countProtocols: 1 })).toBe('/viewprotocol');
    expect(landingTarget({ ...base, username: '123456', countProtocols: 0 })).toBe('/viewprotocol');
  });

  it('sends a protocol login reaching several protocols to the unique-login dashboard', () => {
    expect(landingTarget({ ...base, username: '123456', countProtocols: 3 })).toBe('/dashboard/protocols/uniquelogin');
  });

  it('sends each account type to its dashboard', () => {
    expect(landingTarget({ ...base, isPhysicianType: true })).toBe('/dashboard/physician/protocols');
    expect(landingTarget({ ...base, isUserType: true, countProtocols: 4 })).toBe('/dashboard/patient/protocols');
    expect(landingTarget({ ...base, isExternalType: true })).toBe('/dashboard/external/exams');
  });

  it('refuses admin and company users', () => {
    expect(landingTarget({ ...base, isAdminType: true })).toBeNull();
    expect(landingTarget({ ...base, isCompanyType: true })).toBeNull();
  });
});
