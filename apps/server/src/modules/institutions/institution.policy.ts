import type { SessionRole } from '../../db/schema.js';

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

/** Administrators reach every institution; company users only their own. */
export function canManageInstitution(actor: InstitutionActor, institutionId: string): boolean {
  if (actor.role === 'ADMIN') return true;
  return actor.role === 'COMPANY' && actor.institutionId !== null && actor.institutionId === institutionId;
}

/** The code is what logins and invitations carry: changing it is an administrator's decision. */
export function canChangeInstitutionCode(actor: InstitutionActor): boolean {
  return actor.role === 'ADMIN';
}
