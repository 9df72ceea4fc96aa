import { Badge, Group, NativeSelect, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import type { AccountItem, AccountPage } from '@portal/shared/schemas/administration';
import { ConfirmButton } from '../components/confirm';
import { DataTable } from '../components/data-table';
import { InstitutionPicker } from '../components/institution-picker';
import { Page } from '../components/page';
import { Pager } from '../components/pager';
import { SearchField } from '../components/search-field';
import { api } from '../lib/api';
import { currentLanguage } from '../lib/i18n';
import { notifyError, notifySuccess } from '../lib/notify';
import { formatDateTime } from '../lib/queries';

const TYPES = ['PATIENT', 'PHYSICIAN', 'EXTERNAL', 'COMPANY', 'ADMIN'] as const;
const STATES = ['ACTIVE', 'NOT_ACTIVATED', 'DISABLED', 'LOCKED'] as const;

/** People: search accounts, see their state and sign-in lock, disable, unlock, sign out. */
export function PeoplePage() {
  const { t } = useTranslation();
  const language = currentLanguage();
  const queryClient = useQueryClient();
  const [search, setSearch] = useState('');
  const [params] = useSearchParams();
  const [type, setType] = useState('');
  // The dashboard's "locked now" figure opens this list on ?state=LOCKED.
  const [stateFilter, setStateFilter] = useState(params.get('state') ?? '');
  // An institution's "locked now" on the dashboard opens its people (?institutionId=).
  const [institutionId, setInstitutionId] = useState(params.get('institutionId') ?? '');
  const [page, setPage] = useState(1);
  const [debounced] = useDebouncedValue(search.trim(), 300);
  const key = ['accounts', debounced, type, stateFilter, institutionId, page];
  const { data } = useQuery({
    queryKey: key,
    // A new search or page keeps the rows on screen until its answer: rows never vanish under a click.
    placeholderData: keepPreviousData,
    queryFn: () =>
      api<AccountPage>('/api/administrationbe/accounts', {
        query: { search: debounced, type, state: stateFilter, institutionId, page, size: 20 },
      }),
  });
  const act = useMutation({
    mutationFn: ({ path, method, body }: { path: string; method: 'PUT' | 'POST'; body?: unknown }) =>
      api(`/api/administrationbe/accounts/${path}`, { method, body: body ?? {} }),
    onSuccess: () => {
      notifySuccess(t('common.done'));
      void queryClient.invalidateQueries({ queryKey: ['accounts'] });
    },
    onError: notifyError,
  });
  const state = (a: AccountItem) => (
    <Group gap={4}>
      <Badge variant="light" color={a.state === 'ACTIVE' ? 'green' : a.state === 'DISABLED' ? 'red' : 'yellow'}>
        {t(`states.${a.state}`)}
      </Badge>
      {a.lockedUntil ? (
        <Badge variant="light" color="red" classNames={{ root: 'badge-wrap', label: 'badge-wrap-label' }}>
          {t('people.lockedUntil', { time: formatDateTime(a.lockedUntil, language) })}
        </Badge>
      ) : null}
    </Group>
  );
  return (
    <Page
      title={t('people.title')}
      actions={
        <Group align="flex-end" wrap="wrap">
          <SearchField
            label={t('people.search')}
            value={search}
            onChange={(value) => {
              setSearch(value);
              setPage(1);
            }}
          />
          <InstitutionPicker
            value={institutionId}
            onChange={(id) => {
              setInstitutionId(id);
              setPage(1);
            }}
            allowAll
          />
          <NativeSelect
            label={t('fields.type')}
            value={type}
            onChange={(e) => {
              setType(e.currentTarget.value);
              setPage(1);
            }}
            data={[{ value: '', label: t('common.all') }, ...TYPES.map((v) => ({ value: v, label: t(`types.${v}`) }))]}
          />
          <NativeSelect
            label={t('fields.state')}
            value={stateFilter}
            onChange={(e) => {
              setStateFilter(e.currentTarget.value);
              setPage(1);
            }}
            data={[
              { value: '', label: t('common.all') },
              ...STATES.map((v) => ({ value: v, label: t(`states.${v}`) })),
            ]}
          />
        </Group>
      }
    >
      <DataTable<AccountItem>
        caption={t('people.title')}
        rows={data?.items ?? []}
        rowKey={(a) => a.id}
        columns={[
          {
            label: t('fields.name'),
            cell: (a) => (
              <>
                <Text size="sm" fw={600} component="span">
                  {a.name}
                </Text>
                <Text size="xs" c="dimmed">
                  {a.email}
                </Text>
              </>
            ),
          },
          { label: t('fields.type'), cell: (a) => t(`types.${a.type}`) },
          {
            label: t('people.documents'),
            cell: (a) => [a.cpf, a.crm ? `CRM ${a.crm}/${a.uf ?? ''}` : null].filter(Boolean).join(' · ') || '—',
          },
          {
            label: t('fields.institution'),
            cell: (a) => (
              <>
                {a.institution?.name ?? (a.vouchedBy.length === 0 ? '—' : null)}
                {a.vouchedBy.length > 0 ? (
                  <Text size="xs" c="dimmed" component="span" display="block">
                    {t('people.vouchedBy', { institutions: a.vouchedBy.map((v) => v.name).join(', ') })}
                  </Text>
                ) : null}
              </>
            ),
          },
          { label: t('fields.state'), cell: state },
          {
            label: t('common.actions'),
            cell: (a) =>
              !a.manageable ? (
                <Text size="xs" c="dimmed" component="span">
                  {t('people.otherInstitution')}
                </Text>
              ) : (
                <Group gap={4}>
                  {a.state === 'DISABLED' ? (
                    <ConfirmButton
                      label={t('people.enable')}
                      color="green"
                      title={t('people.enableTitle')}
                      description={t('people.enableText', { name: a.name })}
                      confirmLabel={t('people.enable')}
                      onConfirm={() =>
                        act.mutateAsync({ path: `${a.id}/disabled`, method: 'PUT', body: { disabled: false } })
                      }
                    />
                  ) : (
                    <ConfirmButton
                      label={t('people.disable')}
                      title={t('people.disableTitle')}
                      description={t('people.disableText', { name: a.name })}
                      confirmLabel={t('people.disable')}
                      onConfirm={() =>
                        act.mutateAsync({ path: `${a.id}/disabled`, method: 'PUT', body: { disabled: true } })
                      }
                    />
                  )}
                  {a.lockedUntil ? (
                    <ConfirmButton
                      label={t('people.unlock')}
                      color="blue"
                      title={t('people.unlockTitle')}
                      description={t('people.unlockText', { name: a.name })}
                      confirmLabel={t('people.unlock')}
                      onConfirm={() => act.mutateAsync({ path: `${a.id}/unlock`, method: 'POST' })}
                    />
                  ) : null}
                  <ConfirmButton
                    label={t('people.endSessions')}
                    color="orange"
                    title={t('people.endSessionsTitle')}
                    description={t('people.endSessionsText', { name: a.name })}
                    confirmLabel={t('people.endSessions')}
                    onConfirm={() => act.mutateAsync({ path: `${a.id}/sessions/end`, method: 'POST' })}
                  />
                </Group>
              ),
          },
        ]}
      />
      {data ? <Pager page={page} size={data.size} total={data.total} onChange={setPage} /> : null}
    </Page>
  );
}
