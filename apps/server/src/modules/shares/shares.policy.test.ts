import { describe, expect, it } from 'vitest';
import type { SessionRole } from '../../db/schema.js';
import { canManageShares, shareState, sharingAllowed } from './shares.policy.js';

describe('share policies', () => {
  it('lets only the patient himself manage his shares', () => {
    const roles: SessionRole[] = ['PATIENT', 'PHYSICIAN', 'EXTERNAL', 'GUEST', 'ADMIN', 'COMPANY', 'SHARE'];
    for (const role of roles) {
      expect(canManageShares({ role, userId: 'u1' }, 'u1')).toBe(role === 'PATIENT');
      expect(canManageShares({ role, userId: 'u2' }, 'u1')).toBe(false);
    }
    expect(canManageShares({ role: 'PATIENT', userId: null }, 'u1')).toBe(false);
  });

  it('allows sharing unless the institution turned it off', () => {
    expect(sharingAllowed({})).toBe(true);
    expect(sharingAllowed({ shareEnabled: true })).toBe(true);
    expect(sharingAllowed({ shareEnabled: false })).toBe(false);
  });

  it('names the states of spec 4.7', () => {
    const now = '2026-11-20T12:00:00.000Z';
    expect(shareState({ active: 1, expiresAt: '2026-11-21T00:00:00.000Z' }, now)).toEqual({
      active: true,
      canceled: false,
      expired: false,
    });
    expect(shareState({ active: 1, expiresAt: now }, now)).toMatchObject({ active: true, expired: true });
    expect(shareState({ active: 0, expiresAt: '2026-11-21T00:00:00.000Z' }, now)).toMatchObject({ canceled: true });
  });
});
