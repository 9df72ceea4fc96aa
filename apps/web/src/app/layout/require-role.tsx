import type { ReactNode } from 'react';
import { Navigate } from 'react-router';
import { landingTarget } from '../../features/auth/landing-redirect';
import { type SessionUser, useCredentials } from '../../lib/session';

/** The flag of spec 6 a screen needs. */
export type RoleFlag = 'isPhysicianType' | 'isUserType';

/**
 * Spec 6: physician screens use the physician flag, patients' own screens the patient flag. Someone without it is sent to his own
 * dashboard (spec 2.3) instead of an empty frame; a user no dashboard accepts goes to landing.
 */
export function RequireRole({ flag, children }: { flag: RoleFlag; children: ReactNode }) {
  const user: SessionUser | null | undefined = useCredentials()?.user;
  if (!user) return null; // RequireAuth, around every such screen, has already sent him to the login.
  if (user[flag]) return <>{children}</>;
  return <Navigate to={landingTarget(user) ?? '/landing/'} replace />;
}
