import { type InstitutionActor, institutionAccess } from '../accounts/accounts.policy.js';

export type { InstitutionActor };

/** Only the portal's own administrators open new institutions. */
export function canCreateInstitution(actor: InstitutionActor): boolean {
  return actor.role === 'ADMIN';
}

/** Administrators reach every institution; company users only their own (one rule: institutionAccess). */
export function canManageInstitution(actor: InstitutionActor, institutionId: string): boolean {
  return institutionAccess(actor, institutionId) === 'allow';
}

/** The code is what logins and invitations carry: changing it is an administrator's decision. */
export function canChangeInstitutionCode(actor: InstitutionActor): boolean {
  return actor.role === 'ADMIN';
}
