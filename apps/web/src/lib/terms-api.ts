import type { zTerm } from '@portal/shared/schemas/terms';
import { useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import { api } from './api-client';
import { useCurrentLanguage } from './use-current-language';

export type Term = z.infer<typeof zTerm>;
export type TermType = Term['termType'];
export type TermUserType = 'PATIENT' | 'PHYSICIAN' | 'EXTERNAL' | 'COMPANY';

/** The current service terms and privacy policy of a user type, in the interface language (spec 7.4 GET /term). */
export function useCurrentTerms(userType: TermUserType, enabled = true) {
  const language = useCurrentLanguage();
  return useQuery({
    queryKey: ['terms', userType, language],
    queryFn: () => api<Term[]>('/api/v2/delivery/term', { query: { userType, language }, auth: false }),
    enabled,
    staleTime: 60 * 60_000,
  });
}
