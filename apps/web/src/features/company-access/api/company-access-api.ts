import type { zCreatedAccount } from '@portal/shared/schemas/accounts';
import { useMutation, useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import { api } from '../../../lib/api-client';

/** Contract 7 company validateToken: the invitation's e-mail. */
export function useCompanyInvitation(token: string) {
  return useQuery({
    queryKey: ['companyInvitation', token],
    queryFn: () => api<string>('/api/auth/company/invite/validate', { query: { token }, auth: false }),
    enabled: token.length > 0,
    staleTime: Infinity,
  });
}

export interface CompanyCreateBody {
  token: string;
  fullName: string;
  password: string;
  confirmPassword: string;
  acceptTerms: true;
  language: string;
}

/** Contract 7 and 8 company createAccount. */
export function useCreateCompanyAccessMutation() {
  return useMutation({
    mutationFn: (body: CompanyCreateBody) =>
      api<z.infer<typeof zCreatedAccount>>('/api/auth/company/create', {
        body,
        auth: false,
        sessionExpiryOn401: false,
      }),
  });
}
