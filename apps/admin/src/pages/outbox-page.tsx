import { Badge, Button, Group, NativeSelect, Text } from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import type { OutboxItem, OutboxPage as OutboxPageData } from '@portal/shared/schemas/administration';
import { DataTable } from '../components/data-table';
import { InstitutionPicker } from '../components/institution-picker';
import { Page } from '../components/page';
import { Pager } from '../components/pager';
import { api } from '../lib/api';
import { currentLanguage } from '../lib/i18n';
import { notifyError, notifySuccess } from '../lib/notify';
import { formatDateTime } from '../lib/queries';

const COLORS: Record<string, string> = { PENDING: 'yellow', SENT: 'green', DEAD: 'red' };

/** Mails and messages waiting, sent and given up, with their error; one can be sent again. */
export function OutboxPage() {
  const { t } = useTranslation();
  const language = currentLanguage();
  const queryClient = useQueryClient();
  const [params] = useSearchParams();
  const [status, setStatus] = useState(params.get('status') ?? '');
  // The dashboard's figures of an institution open its messages (?institutionId=).
  const [institutionId, setInstitutionId] = useState(params.get('institutionId') ?? '');
  const [page, setPage] = useState(1);
  const { data } = useQuery({
    queryKey: ['outbox', status, institutionId, page],
    // A new search or page keeps the rows on screen until its answer: rows never vanish under a click.
    placeholderData: keepPreviousData,
    queryFn: () =>
      api<OutboxPageData>('/api/administrationbe/outbox', { query: { status, institutionId, page, size: 20 } }),
  });
  const resend = useMutation({
    mutationFn: (id: string) => api(`/api/administrationbe/outbox/${id}/resend`, { method: 'POST', body: {} }),
    onSuccess: () => {
      notifySuccess(t('outbox.queued'));
      void queryClient.invalidateQueries({ queryKey: ['outbox'] });
    },
    onError: notifyError,
  });
  return (
    <Page
      title={t('outbox.title')}
      actions={
        <Group align="flex-end" wrap="wrap">
          <InstitutionPicker
            value={institutionId}
            onChange={(id) => {
              setInstitutionId(id);
              setPage(1);
            }}
            allowAll
          />
          <NativeSelect
            label={t('fields.state')}
            value={status}
            w={240}
            onChange={(e) => {
              setStatus(e.currentTarget.value);
              setPage(1);
            }}
            data={[
              { value: '', label: t('common.all') },
              ...['PENDING', 'SENT', 'DEAD'].map((s) => ({ value: s, label: t(`outbox.status.${s}`) })),
            ]}
          />
        </Group>
      }
    >
      <DataTable<OutboxItem>
        caption={t('outbox.title')}
        rows={data?.items ?? []}
        rowKey={(m) => m.id}
        columns={[
          { label: t('outbox.created'), cell: (m) => formatDateTime(m.createdAt, language) },
          { label: t('outbox.recipient'), cell: (m) => `${m.recipient} (${m.channel})` },
          { label: t('outbox.subject'), cell: (m) => m.subject ?? '—' },
          { label: t('fields.institution'), cell: (m) => m.institution?.name ?? t('outbox.portal') },
          {
            label: t('fields.state'),
            cell: (m) => (
              <Badge variant="light" color={COLORS[m.status] ?? 'gray'}>
                {t(`outbox.status.${m.status}`)}
              </Badge>
            ),
          },
          { label: t('outbox.attempts'), numeric: true, cell: (m) => m.attempts },
          {
            label: t('outbox.error'),
            cell: (m) => (
              <Text size="xs" component="span" style={{ wordBreak: 'break-word' }}>
                {m.lastError ?? '—'}
              </Text>
            ),
          },
          {
            label: t('common.actions'),
            cell: (m) =>
              m.status === 'SENT' ? null : (
                <Button size="xs" variant="light" onClick={() => resend.mutate(m.id)}>
                  {t('outbox.resend')}
                </Button>
              ),
          },
        ]}
      />
      {data ? <Pager page={page} size={data.size} total={data.total} onChange={setPage} /> : null}
    </Page>
  );
}
