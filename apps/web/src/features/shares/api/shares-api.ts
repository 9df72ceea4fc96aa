import { useMutation } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export interface ShareBody {
  emails: string[];
  protocols: string[];
  message: string;
  period: number;
  language: string;
  institutionId?: string;
}

/** Spec 7.1 share: POST /api/auth/protocol/share, one mail and one link per recipient. */
export function useShareMutation() {
  return useMutation({
    mutationFn: (body: ShareBody) =>
      api<{ shares: Array<{ id: string; email: string; expiresAt: string }> }>('/api/auth/protocol/share', { body }),
  });
}
