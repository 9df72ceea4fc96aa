import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** Contract 7 linkProtocol: POST /api/v2/auth/user/bindProtocol. */
export function useLinkProtocolMutation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { protocol: string; password: string; patientUserId: string }) =>
      api<{ requestIds: string[] }>('/api/v2/auth/user/bindProtocol', { body }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['protocols'] }),
  });
}
