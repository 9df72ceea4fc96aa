import { looksLikeEmail } from '@portal/shared/formats';
import type { ValidatedUser } from './api/auth-api';

/** Spec 2.3: where a validated session goes; null means it may not use this front end. */
export function landingTarget(user: ValidatedUser): string | null {
  if (user.isAdminType || user.isCompanyType) return null;
  if (user.isPhysicianType) return '/dashboard/physician/protocols';
  if (user.isExternalType) return '/dashboard/external/exams';
  if (user.isUserType) return '/dashboard/patient/protocols';
  if (!looksLikeEmail(user.username ?? '') && (user.countProtocols ?? 0) > 1) return '/dashboard/protocols/uniquelogin';
  return '/viewprotocol';
}
