import { useMutation, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** Spec 7.1 GET /password/isValidToken: the token's e-mail, or an error when it is not usable. */
export function useResetTokenEmail(token: string) {
  return useQuery({
    queryKey: ['resetToken', token],
    queryFn: () => api<string>('/api/auth/password/isValidToken', { query: { token }, auth: false }),
    enabled: token.length > 0,
    staleTime: Infinity,
  });
}

export interface ResetPasswordBody {
  token: string;
  password: string;
  confirmPassword: string;
  language: string;
}

/** Contract 8: reset takes token, password, confirmPassword and language. */
export function useResetPasswordMutation() {
  return useMutation({
    mutationFn: (body: ResetPasswordBody) =>
      api<boolean>('/api/auth/password/resetPassword', { body, auth: false, sessionExpiryOn401: false }),
  });
}
