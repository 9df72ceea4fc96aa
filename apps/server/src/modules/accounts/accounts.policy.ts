import type { SessionRole, UserType } from '../../db/schema.js';
import type { AuthContext } from '../../plugins/auth.js';

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

/** Who is asking, as institution administration cares: company users carry their institution. */
export interface InstitutionActor {
  role: SessionRole;
  userId: string | null;
  /** Company users: the institution they administer (their account's, read with the session). */
  institutionId: string | null;
}

/**
 * The caller as every administration call sees it (institutions, tags, invitations, vouches, the
 * console): the one place that reads a company user's institution from the session's account.
 */
export function institutionActor(auth: AuthContext): InstitutionActor {
  const institutionId = auth.role === 'COMPANY' ? (auth.account?.institutionId ?? null) : null;
  return { role: auth.role, userId: auth.userId, institutionId };
}
