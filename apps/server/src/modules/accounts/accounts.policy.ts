import type { SessionRole, UserType } from '../../db/schema.js';

/** Spec 6: patient edit is for patient, admin and company users; physician edit for physicians. */
export function canEditOwnRecord(role: SessionRole, userType: UserType, screen: 'patient' | 'physician'): boolean {
  if (screen === 'physician') return role === 'PHYSICIAN' && userType === 'PHYSICIAN';
  return (['PATIENT', 'ADMIN', 'COMPANY'] as SessionRole[]).includes(role) && role === userType;
}

export type InstitutionAccess = 'allow' | 'forbidden' | 'not-found';

/**
 * Administration API (contract 6): admins reach every institution; company users only their own,
 * and another institution looks like one that does not exist (contract 8); anyone else is refused.
 */
export function institutionAccess(
  actor: { role: SessionRole; institutionId: string | null },
  institutionId: string,
): InstitutionAccess {
  if (actor.role === 'ADMIN') return 'allow';
  if (actor.role !== 'COMPANY') return 'forbidden';
  return actor.institutionId && actor.institutionId === institutionId ? 'allow' : 'not-found';
}
