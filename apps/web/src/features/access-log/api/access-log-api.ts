import type { AccessAlerts, AccessPage } from '@portal/shared/schemas/access-log';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export interface AccessParams {
  protocol?: string;
  initialDate?: string;
  finalDate?: string;
  page: number;
  size: number;
}

const base = (userId: string) => `/api/auth/patient/${encodeURIComponent(userId)}`;

/** "Who saw my results": the accesses to the patient's own protocols, newest first. */
export function useAccesses(userId: string, params: AccessParams) {
  return useQuery({
    queryKey: ['accesses', userId, params],
    queryFn: ({ signal }) => api<AccessPage>(`${base(userId)}/accesses`, { query: { ...params }, signal }),
    placeholderData: keepPreviousData,
    refetchOnWindowFocus: 'always',
  });
}

/** The path of the CSV export of the same filters (fetched with the bearer token). */
export const accessesCsvPath = (userId: string) => `${base(userId)}/accesses/export.csv`;

export function useAccessAlerts(userId: string) {
  return useQuery({
    queryKey: ['access-alerts', userId],
    queryFn: ({ signal }) => api<AccessAlerts>(`${base(userId)}/access-alerts`, { signal }),
  });
}

export function useAccessAlertsMutation(userId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (enabled: boolean) =>
      api<AccessAlerts>(`${base(userId)}/access-alerts`, { method: 'PUT', body: { enabled } }),
    onSuccess: (data) => client.setQueryData(['access-alerts', userId], data),
  });
}
