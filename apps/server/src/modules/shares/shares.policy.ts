import type { SessionRole } from '../../db/schema.js';

/** Spec 6: sharing and revoking are patient features, over the patient's own shares only. */
export function canManageShares(actor: { role: SessionRole; userId: string | null }, patientUserId: string): boolean {
  return actor.role === 'PATIENT' && !!actor.userId && actor.userId === patientUserId;
}

/** A share whose institution turned sharing off (setting shareEnabled=false) cannot be created. */
export function sharingAllowed(settings: Record<string, unknown>): boolean {
  return settings.shareEnabled !== false && settings.shareEnabled !== 'false';
}

/** Spec 4.7 states of a share record. */
export function shareState(share: { active: number; expiresAt: string }, now: string) {
  const active = share.active === 1;
  return { active, canceled: !active, expired: share.expiresAt <= now };
}
