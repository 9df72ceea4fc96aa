import type { zUserRecord } from '@portal/shared/schemas/accounts';
import type { mfaStatus, mfaTokenSentResponse } from '@portal/shared/schemas/auth';
import type { ShareRecord } from '@portal/shared/schemas/shares';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import { api } from '../../../lib/api-client';
import { rememberProfileIncomplete } from '../../../lib/session';

export type UserRecord = z.infer<typeof zUserRecord>;
export type MfaStatus = z.infer<typeof mfaStatus>;
export type MfaTokenSent = z.infer<typeof mfaTokenSentResponse>['data'];

const ME = ['me'] as const;

/**
 * A record as it arrives, also kept in mind by the session: whether a patient's profile is
 * incomplete (the prompt of her dashboard; other accounts have none).
 */
function remembered(record: UserRecord): UserRecord {
  rememberProfileIncomplete(record.type === 'PATIENT' && !record.complete);
  return record;
}

/** The signed-in user's own record (GET /api/v2/auth/user/me). */
export function useMyRecord() {
  return useQuery({ queryKey: ME, queryFn: async () => remembered(await api<UserRecord>('/api/v2/auth/user/me')) });
}

function useRecordMutation<T>(path: string, alsoChanges: ReadonlyArray<readonly string[]> = []) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: T) => api<UserRecord>(path, { body }),
    onSuccess: (record) => {
      client.setQueryData(ME, remembered(record));
      for (const queryKey of alsoChanges) void client.invalidateQueries({ queryKey });
    },
  });
}

export interface PatientEditBody {
  name?: string;
  documents?: Array<{ type: { code: 'CPF' }; number: string }>;
  birth?: string;
  gender?: 'FEMALE' | 'MALE';
  phones?: Array<{ number: string; type: 'CELULAR' | 'FIXO' }>;
  frequencyReceiveEmail?: string;
}

export const useEditPatientMutation = () => useRecordMutation<PatientEditBody>('/api/v2/auth/user/edit');
export const useEditPhysicianMutation = () => useRecordMutation<PatientEditBody>('/api/v2/auth/physician/edit');
// The groups' list marks the favourite one, which opens the dashboard filtered (spec 2.10).
export const useEditExternalUserMutation = () =>
  useRecordMutation<{ tagId: string }>('/api/v2/auth/externaluser/edit', [['user-tags']]);

/** Contract 7 change password. */
export function useChangePasswordMutation() {
  return useMutation({
    mutationFn: (body: { currentPassword: string; newPassword: string; confirmNewPassword: string }) =>
      api<boolean>('/api/v2/auth/user/changePassword', { body }),
  });
}

/** Contract 7 change e-mail. */
export function useChangeEmailMutation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { currentPassword: string; newEmail: string; confirmNewEmail: string }) =>
      api<{ email: string }>('/api/v2/auth/user/changeEmail', { body }),
    onSuccess: () => client.invalidateQueries({ queryKey: ME }),
  });
}

const MFA = ['mfa'] as const;

export function useMfaStatus() {
  return useQuery({ queryKey: MFA, queryFn: () => api<MfaStatus>('/api/v2/auth/isMFAActivated') });
}

// A wrong code answers 401 here: that is a typing mistake, not the end of the session.
export function useMfaMutations() {
  const client = useQueryClient();
  const refresh = (status: MfaStatus) => client.setQueryData(MFA, status);
  return {
    send: useMutation({
      mutationFn: (body: { phoneNumber: string; channel: 'whatsapp' | 'sms' }) =>
        api<MfaTokenSent>('/api/v2/auth/generateMFAToken', { body }),
    }),
    activate: useMutation({
      mutationFn: (body: { phoneNumber: string; tokenValue: string }) =>
        api<MfaStatus>('/api/v2/auth/activateMFAToken', { body, sessionExpiryOn401: false }),
      onSuccess: refresh,
    }),
    inactivate: useMutation({
      mutationFn: (body: { password: string }) =>
        api<MfaStatus>('/api/v2/auth/inactivateMFAToken', { body, sessionExpiryOn401: false }),
      onSuccess: refresh,
    }),
  };
}

export interface SharePage {
  items: ShareRecord[];
  total: number;
  page: number;
  size: number;
}

/** Spec 7.1 GET /patient/{id}/shares, paged (contract 2). */
export function useShares(userId: string, page: number, size: number) {
  return useQuery({
    queryKey: ['shares', userId, page, size],
    queryFn: () => api<SharePage>(`/api/auth/patient/${encodeURIComponent(userId)}/shares`, { query: { page, size } }),
    placeholderData: keepPreviousData,
  });
}

export function useRevokeShareMutation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<unknown>(`/api/auth/patient/share/${encodeURIComponent(id)}/revoke`, { body: {} }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['shares'] }),
  });
}
