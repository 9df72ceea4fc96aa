import { Badge, Group, NativeSelect, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import type { InvitationItem, InvitationPage } from '@portal/shared/schemas/administration';
import { ConfirmButton } from '../components/confirm';
import { DataTable } from '../components/data-table';
import { Page } from '../components/page';
import { Pager } from '../components/pager';
import { SearchField } from '../components/search-field';
import { api } from '../lib/api';
import { currentLanguage } from '../lib/i18n';
import { notifyError, notifySuccess } from '../lib/notify';
import { formatDateTime } from '../lib/queries';
import { isAdmin, useCredentials } from '../lib/session';

const STATES = ['PENDING', 'EXPIRED', 'REVOKED'] as const;
const KINDS = ['PHYSICIAN', 'COMPANY', 'ADMIN'] as const;
const STATE_COLOR = { PENDING: 'blue', EXPIRED: 'yellow', REVOKED: 'gray' } as const;

/**
 * Invitations not taken up (physicians, company users, admins): pending, expired or revoked, with
 * resend (a new link, the old one dies) and revoke (the link dies).
 */
export function InvitationsPage() {
  const { t } = useTranslation();
  const language = currentLanguage();
  const admin = isAdmin(useCredentials()?.user);
  const queryClient = useQueryClient();
  const [params, setParams] = useSearchParams();
  const state = params.get('state') ?? 'PENDING';
  const kind = params.get('kind') ?? '';
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const [debounced] = useDebouncedValue(search.trim(), 300);
  const { data } = useQuery({
    queryKey: ['invitations', debounced, state, kind, page],
    // A new search or page keeps the rows on screen until its answer: rows never vanish under a click.
    placeholderData: keepPreviousData,
    queryFn: () =>
      api<InvitationPage>('/api/administrationbe/invitations', {
        query: { search: debounced, state, kind, page, size: 20 },
      }),
  });
  const setFilter = (key: 'state' | 'kind', value: string) => {
    const next = new URLSearchParams(params);
    // An empty state ("all") stays in the address: without it the list shows the pending ones.
    if (value || key === 'state') next.set(key, value);
    else next.delete(key);
    setParams(next, { replace: true });
    setPage(1);
  };
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['invitations'] });
  const resend = useMutation({
    mutationFn: (i: InvitationItem) => api(`/api/administrationbe/invitations/${i.id}/resend`, { body: {} }),
    onSuccess: (_, i) => {
      notifySuccess(t('invitations.resent', { email: i.email }));
      refresh();
    },
    onError: notifyError,
  });
  const revoke = useMutation({
    mutationFn: (i: InvitationItem) => api(`/api/administrationbe/invitations/${i.id}`, { method: 'DELETE' }),
    onSuccess: (_, i) => {
      notifySuccess(t('invitations.revoked', { email: i.email }));
      refresh();
    },
    onError: notifyError,
  });
  const kinds = admin ? KINDS : KINDS.filter((k) => k !== 'ADMIN');
  return (
    <Page
      title={t('invitations.title')}
      actions={
        <Group align="flex-end" wrap="wrap">
          <SearchField
            label={t('invitations.search')}
            value={search}
            onChange={(value) => {
              setSearch(value);
              setPage(1);
            }}
          />
          <NativeSelect
            label={t('fields.state')}
            value={state}
            onChange={(e) => setFilter('state', e.currentTarget.value)}
            data={[
              { value: '', label: t('common.all') },
              ...STATES.map((s) => ({ value: s, label: t(`invitations.state.${s}`) })),
            ]}
          />
          <NativeSelect
            label={t('fields.type')}
            value={kind}
            onChange={(e) => setFilter('kind', e.currentTarget.value)}
            data={[{ value: '', label: t('common.all') }, ...kinds.map((k) => ({ value: k, label: t(`types.${k}`) }))]}
          />
        </Group>
      }
    >
      <DataTable<InvitationItem>
        caption={t('invitations.title')}
        rows={data?.items ?? []}
        rowKey={(i) => i.id}
        columns={[
          {
            label: t('invitations.invited'),
            cell: (i) => (
              <>
                <Text size="sm" fw={600} component="span">
                  {i.name ?? i.email}
                </Text>
                {i.name ? (
                  <Text size="xs" c="dimmed">
                    {i.email}
                  </Text>
                ) : null}
              </>
            ),
          },
          {
            label: t('fields.type'),
            cell: (i) =>
              [t(`types.${i.kind}`), i.crm ? `CRM ${i.crm}/${i.uf ?? ''}` : null].filter(Boolean).join(' · '),
          },
          { label: t('fields.institution'), cell: (i) => i.institution?.name ?? '—' },
          {
            label: t('fields.state'),
            cell: (i) => (
              <Badge variant="light" color={STATE_COLOR[i.state]}>
                {t(`invitations.state.${i.state}`)}
              </Badge>
            ),
          },
          {
            label: t('invitations.sentAt'),
            cell: (i) => (
              <>
                {formatDateTime(i.createdAt, language)}
                <Text size="xs" c="dimmed" component="span" display="block">
                  {t('invitations.expiresAt', { time: formatDateTime(i.expiresAt, language) })}
                </Text>
              </>
            ),
          },
          {
            label: t('common.actions'),
            cell: (i) => (
              <Group gap={4}>
                <ConfirmButton
                  label={t('invitations.resend')}
                  color="medical"
                  title={t('invitations.resendTitle')}
                  description={t('invitations.resendText', { email: i.email })}
                  confirmLabel={t('invitations.resend')}
                  onConfirm={() => resend.mutateAsync(i)}
                />
                {i.state !== 'REVOKED' ? (
                  <ConfirmButton
                    label={t('invitations.revoke')}
                    title={t('invitations.revokeTitle')}
                    description={t('invitations.revokeText', { email: i.email })}
                    confirmLabel={t('invitations.revoke')}
                    onConfirm={() => revoke.mutateAsync(i)}
                  />
                ) : null}
              </Group>
            ),
          },
        ]}
      />
      {data ? <Pager page={page} size={data.size} total={data.total} onChange={setPage} /> : null}
    </Page>
  );
}
