import { useMutation, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { loginResponse, LoginBody, SessionUser } from '@portal/shared/schemas/auth';
import type { zCustomLoginPage } from '@portal/shared/schemas/accounts';
import type { zPendingTerm } from '@portal/shared/schemas/terms';
import type { z } from 'zod';

export type LoginPayload = LoginBody & { appKey: 'login' };

export type LoginResult = z.infer<typeof loginResponse>['data'];

/** Contract 3: the validate answer, the session user plus its type flags. */
export type ValidatedUser = SessionUser;

/** Spec 3: the custom clinic page of a branded login. */
export type CustomLoginPage = z.infer<typeof zCustomLoginPage>;

export function login(payload: LoginPayload): Promise<LoginResult> {
  return api<LoginResult>('/api/v2/auth/login', {
    body: payload,
    auth: false,
    sessionExpiryOn401: false,
  });
}

export function externalLogin(query: {
  username: string;
  password: string;
  tokenMFA?: string;
  birthdate?: string;
  customLogin?: string;
}): Promise<LoginResult> {
  return api<LoginResult>('/api/v2/auth/externalLogin', { query, auth: false, sessionExpiryOn401: false });
}

export function validateSession(): Promise<ValidatedUser> {
  return api<ValidatedUser>('/api/v2/auth/validate', { sessionExpiryOn401: false });
}

export function useLoginMutation() {
  return useMutation({ mutationFn: login });
}

export function useForgotPasswordMutation() {
  return useMutation({
    mutationFn: ({ username, language }: { username: string; language: string }) =>
      api<unknown>('/api/auth/password/forgotPassword', {
        method: 'POST',
        query: { username, language: language.toUpperCase() },
        auth: false,
        sessionExpiryOn401: false,
      }),
  });
}

export function useCustomLoginPage(code: string) {
  return useQuery({
    queryKey: ['customLoginPage', code.toUpperCase()],
    queryFn: () =>
      api<CustomLoginPage>('/api/v2/auth/institution/customLoginPage', {
        query: { code: code.toUpperCase() },
        auth: false,
      }),
    staleTime: 10 * 60_000,
  });
}

export type PendingTerm = z.infer<typeof zPendingTerm>;

/** Spec 4.4 and 7.4 GET /term/user: current terms this account has not accepted yet. */
export function pendingTerms(language: string): Promise<PendingTerm[]> {
  return api<PendingTerm[]>('/api/v2/delivery/term/user', { query: { language } });
}

/** Contract 7 accept terms. */
export function acceptTerms(termIds: string[]): Promise<unknown> {
  return api<unknown>('/api/v2/delivery/term/user', { body: { termIds } });
}
