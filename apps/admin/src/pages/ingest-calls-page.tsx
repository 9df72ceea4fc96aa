import { Badge, Checkbox, Group, Text } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import type { IngestCallItem, IngestCallPage } from '@portal/shared/schemas/administration';
import { DataTable } from '../components/data-table';
import { InstitutionPicker } from '../components/institution-picker';
import { Page } from '../components/page';
import { Pager } from '../components/pager';
import { api } from '../lib/api';
import { currentLanguage } from '../lib/i18n';
import { formatDateTime } from '../lib/queries';

/**
 * The calls of the institutions' systems to the ingest doors (JSON, FHIR, HL7 v2), newest first,
 * with the answer each got and its error; company users see their institution's only.
 */
export function IngestCallsPage() {
  const { t } = useTranslation();
  const language = currentLanguage();
  const [params, setParams] = useSearchParams();
  const institutionId = params.get('institutionId') ?? '';
  // The box follows a click at once; the address follows it in a transition, which may lag.
  const errorsInAddress = params.get('errors') === 'true';
  const [errors, setErrors] = useState(errorsInAddress);
  const [addressSeen, setAddressSeen] = useState(errorsInAddress);
  if (addressSeen !== errorsInAddress) {
    setAddressSeen(errorsInAddress);
    setErrors(errorsInAddress);
  }
  const [page, setPage] = useState(1);
  const { data } = useQuery({
    queryKey: ['ingest-calls', institutionId, errors, page],
    // A new search or page keeps the rows on screen until its answer: rows never vanish under a click.
    placeholderData: keepPreviousData,
    queryFn: () =>
      api<IngestCallPage>('/api/administrationbe/ingest-calls', {
        query: { institutionId, errors: errors ? 'true' : undefined, page, size: 25 },
      }),
  });
  const setFilter = (key: 'institutionId' | 'errors', value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next, { replace: true });
    setPage(1);
  };
  return (
    <Page
      title={t('ingest.title')}
      actions={
        <Group align="flex-end" wrap="wrap">
          <InstitutionPicker value={institutionId} onChange={(id) => setFilter('institutionId', id)} allowAll />
          <Checkbox
            label={t('ingest.errorsOnly')}
            checked={errors}
            onChange={(e) => {
              const checked = e.currentTarget.checked;
              setErrors(checked);
              setFilter('errors', checked ? 'true' : '');
            }}
            mb={8}
          />
        </Group>
      }
    >
      <Text size="sm" c="dimmed">
        {t('ingest.intro')}
      </Text>
      <DataTable<IngestCallItem>
        caption={t('ingest.title')}
        rows={data?.items ?? []}
        rowKey={(c) => c.id}
        columns={[
          { label: t('ingest.receivedAt'), cell: (c) => formatDateTime(c.receivedAt, language) },
          { label: t('fields.institution'), cell: (c) => c.institution.name },
          {
            label: t('ingest.call'),
            cell: (c) => (
              <Text size="sm" component="span" style={{ wordBreak: 'break-all' }}>
                {`${c.door} · ${c.method} ${c.path}`}
              </Text>
            ),
          },
          {
            label: t('ingest.answer'),
            cell: (c) => (
              <Badge variant="light" color={c.failed ? 'red' : 'green'}>
                {c.status}
              </Badge>
            ),
          },
          {
            label: t('ingest.error'),
            cell: (c) => (
              <Text size="xs" component="span" style={{ wordBreak: 'break-word' }}>
                {c.error ?? '—'}
              </Text>
            ),
          },
          { label: t('ingest.duration'), numeric: true, cell: (c) => `${c.durationMs} ms` },
        ]}
      />
      {data ? <Pager page={page} size={data.size} total={data.total} onChange={setPage} /> : null}
    </Page>
  );
}
