import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** Spec 2.7: sharing shows only where the institution allows it (public setting shareEnabled). */
export function useShareEnabled(institutionIds: string[]) {
  const unique = [...new Set(institutionIds)].sort();
  return useQuery({
    queryKey: ['share-enabled', unique],
    queryFn: async () => {
      const answers = await Promise.all(
        unique.map(async (id) => {
          try {
            return [id, await api<boolean>(`/api/v2/auth/institution/${encodeURIComponent(id)}/setting/shareEnabled`)];
          } catch {
            return [id, false];
          }
        }),
      );
      return new Map(answers as Array<[string, boolean]>);
    },
    enabled: unique.length > 0,
    staleTime: 10 * 60_000,
  });
}
