import { describe, expect, it } from 'vitest';
import type { SessionRole } from '../../db/schema.js';
import { canChangeInstitutionCode, canCreateInstitution, canManageInstitution } from './institution.policy.js';

const ROLES: SessionRole[] = ['PATIENT', 'PHYSICIAN', 'EXTERNAL', 'GUEST', 'ADMIN', 'COMPANY', 'SHARE'];

describe('institution policy', () => {
  it.each(ROLES)('%s: create, manage own, manage other, change code', (role) => {
    const actor = { role, userId: 'u1', institutionId: 'own' };
    const expected = {
      create: role === 'ADMIN',
      own: role === 'ADMIN' || role === 'COMPANY',
      other: role === 'ADMIN',
      code: role === 'ADMIN',
    };
    expect({
      create: canCreateInstitution(actor),
      own: canManageInstitution(actor, 'own'),
      other: canManageInstitution(actor, 'other'),
      code: canChangeInstitutionCode(actor),
    }).toEqual(expected);
  });

  it('a company user without an institution manages none', () => {
    expect(canManageInstitution({ role: 'COMPANY', userId: 'u1', institutionId: null }, 'own')).toBe(false);
  });
});
