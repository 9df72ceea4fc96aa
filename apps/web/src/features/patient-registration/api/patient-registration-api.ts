import type { zCreatedAccount, zInvitationInfo } from '@portal/shared/schemas/accounts';
import { useMutation, useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import { apiCall, api } from '../../../lib/api-client';

export type InvitationInfo = z.infer<typeof zInvitationInfo>;
export type CreatedAccount = z.infer<typeof zCreatedAccount>;

/** Spec 7.1 GET /user/validate: the invitation's e-mail and name. */
export function usePatientInvitation(token: string) {
  return useQuery({
    queryKey: ['patientInvitation', token],
    queryFn: () => api<InvitationInfo>('/api/auth/user/validate', { query: { token }, auth: false }),
    enabled: token.length > 0,
    staleTime: Infinity,
  });
}

/** Spec 7.1 GET v2 /isValidProtocol: answers the catalogue's 'The protocol is valid!' on success. */
export function useValidateProtocolMutation() {
  return useMutation({
    mutationFn: (query: { protocol: string; password: string }) =>
      apiCall<boolean>('/api/v2/auth/isValidProtocol', { query, auth: false, sessionExpiryOn401: false }),
  });
}

export interface PatientCreateBody {
  name: string;
  login: string;
  confirmEmailAddress: string;
  password: string;
  confirmPassword: string;
  language: string;
  token?: string;
  protocol?: string;
  protocolPassword?: string;
  dateOfBirth: string;
  cpf?: string;
  phone?: string;
  serviceTerms: boolean;
}

export function useCreatePatientMutation() {
  return useMutation({
    mutationFn: (body: PatientCreateBody) =>
      api<CreatedAccount>('/api/v2/auth/user/create', { body, auth: false, sessionExpiryOn401: false }),
  });
}
