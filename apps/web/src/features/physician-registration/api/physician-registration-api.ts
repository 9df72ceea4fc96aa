import type { zCreatedAccount, zPhysicianInvitationInfo } from '@portal/shared/schemas/accounts';
import { useMutation, useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import { api } from '../../../lib/api-client';

export type PhysicianInvitation = z.infer<typeof zPhysicianInvitationInfo>;

/** Spec 7.1 GET v2 /physician/validate: the invitation's e-mail, name, CRM and UF. */
export function usePhysicianInvitation(token: string) {
  return useQuery({
    queryKey: ['physicianInvitation', token],
    queryFn: () => api<PhysicianInvitation>('/api/v2/auth/physician/validate', { query: { token }, auth: false }),
    enabled: token.length > 0,
    staleTime: Infinity,
  });
}

export interface PhysicianCreateBody {
  token: string;
  fullName: string;
  password: string;
  confirmPassword: string;
  language: string;
}

export function useCreatePhysicianMutation() {
  return useMutation({
    mutationFn: (body: PhysicianCreateBody) =>
      api<z.infer<typeof zCreatedAccount>>('/api/v2/auth/physician/create', {
        body,
        auth: false,
        sessionExpiryOn401: false,
      }),
  });
}
