import type { SessionRole } from '../../db/schema.js';
import { institutionAccess } from '../accounts/accounts.policy.js';

/** Who is asking, as far as institution administration cares. */
export interface InstitutionActor {
  role: SessionRole;
  userId: string | null;
  /** Company users: the institution they administer. */
  institutionId: string | null;
}

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
