import { describe, expect, it } from 'vitest';
import type { SessionRole } from '../../db/schema.js';
import { canEditOwnRecord, institutionAccess } from './accounts.policy.js';

describe('account policies', () => {
  const roles: SessionRole[] = ['PATIENT', 'PHYSICIAN', 'EXTERNAL', 'GUEST', 'ADMIN', 'COMPANY', 'SHARE'];

  it('lets admins administer every institution, company users their own only, nobody else', () => {
    const expected: Record<SessionRole, [string, string]> = {
      ADMIN: ['allow', 'allow'],
      COMPANY: ['allow', 'not-found'],
      PATIENT: ['forbidden', 'forbidden'],
      PHYSICIAN: ['forbidden', 'forbidden'],
      EXTERNAL: ['forbidden', 'forbidden'],
      GUEST: ['forbidden', 'forbidden'],
      SHARE: ['forbidden', 'forbidden'],
    };
    for (const role of roles) {
      const actor = { role, institutionId: 'inst-1' };
      expect([institutionAccess(actor, 'inst-1'), institutionAccess(actor, 'inst-2')]).toEqual(expected[role]);
    }
    expect(institutionAccess({ role: 'COMPANY', institutionId: null }, 'inst-1')).toBe('not-found');
  });

  it('opens the patient edit to patient, admin and company users, the physician edit to physicians', () => {
    expect(canEditOwnRecord('PATIENT', 'PATIENT', 'patient')).toBe(true);
    expect(canEditOwnRecord('ADMIN', 'ADMIN', 'patient')).toBe(true);
    expect(canEditOwnRecord('COMPANY', 'COMPANY', 'patient')).toBe(true);
    expect(canEditOwnRecord('PHYSICIAN', 'PHYSICIAN', 'patient')).toBe(false);
    expect(canEditOwnRecord('EXTERNAL', 'EXTERNAL', 'patient')).toBe(false);
    expect(canEditOwnRecord('PHYSICIAN', 'PHYSICIAN', 'physician')).toBe(true);
    expect(canEditOwnRecord('PATIENT', 'PATIENT', 'physician')).toBe(false);
  });
});
