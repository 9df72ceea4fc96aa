import { useQuery } from '@tanstack/react-query';
import type { InstitutionListItem } from '@portal/shared/schemas/administration';
import { api } from './api';

/** The institutions the caller reaches (company users: their own), for pickers and lists. */
export function useInstitutions(search?: string) {
  return useQuery({
    queryKey: ['institutions', search ?? ''],
    queryFn: () => api<InstitutionListItem[]>('/api/administrationbe/institution', { query: { search } }),
  });
}

export const formatDateTime = (iso: string | null | undefined, language: string): string =>
  iso
    ? new Intl.DateTimeFormat(language === 'pt-br' ? 'pt-BR' : language, {
        dateStyle: 'short',
        timeStyle: 'short',
        timeZone: 'America/Sao_Paulo',
      }).format(new Date(iso))
    : '—';
