import { Button, Group, Text, TextInput } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import type { AuditItem, AuditPage as AuditPageData } from '@portal/shared/schemas/administration';
import { DataTable } from '../components/data-table';
import { InstitutionPicker } from '../components/institution-picker';
import { Page } from '../components/page';
import { Pager } from '../components/pager';
import { api, download } from '../lib/api';
import { currentLanguage } from '../lib/i18n';
import { notifyError } from '../lib/notify';
import { formatDateTime } from '../lib/queries';

const FILTERS = ['protocol', 'patient', 'user', 'event', 'institutionId', 'from', 'to'] as const;
type Filters = Record<(typeof FILTERS)[number], string>;

/** Spec 2.2 `/admin/reports`: the audit trail, filtered, paged and exported as CSV. */
export function AuditPage() {
  const { t } = useTranslation();
  const language = currentLanguage();
  const [params] = useSearchParams();
  const initial = Object.fromEntries(FILTERS.map((f) => [f, params.get(f) ?? ''])) as Filters;
  const [filters, setFilters] = useState<Filters>(initial);
  const [applied, setApplied] = useState<Filters>(initial);
  const [page, setPage] = useState(1);
  const [exporting, setExporting] = useState(false);
  const { data } = useQuery({
    queryKey: ['audit', applied, page],
    // A new search or page keeps the rows on screen until its answer: rows never vanish under a click.
    placeholderData: keepPreviousData,
    queryFn: () => api<AuditPageData>('/api/administrationbe/audit', { query: { ...applied, page, size: 25 } }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setPage(1);
    setApplied(Object.fromEntries(FILTERS.map((f) => [f, filters[f].trim()])) as Filters);
  };
  const exportCsv = async () => {
    setExporting(true);
    try {
      await download('/api/administrationbe/audit/export.csv', applied, 'audit.csv');
    } catch (error) {
      notifyError(error);
    } finally {
      setExporting(false);
    }
  };
  const field = (key: keyof Filters) => ({
    value: filters[key],
    onChange: (e: { currentTarget: { value: string } }) => setFilters({ ...filters, [key]: e.currentTarget.value }),
  });
  return (
    <Page title={t('audit.title')}>
      <form onSubmit={submit} aria-label={t('audit.filters')}>
        <Group align="flex-end" wrap="wrap">
          <TextInput label={t('fields.protocolNumber')} {...field('protocol')} />
          <TextInput label={t('fields.patient')} {...field('patient')} />
          <TextInput label={t('audit.user')} {...field('user')} />
          <TextInput label={t('audit.event')} {...field('event')} />
          <TextInput label={t('fields.from')} type="date" {...field('from')} />
          <TextInput label={t('fields.to')} type="date" {...field('to')} />
          <InstitutionPicker
            allowAll
            value={filters.institutionId}
            onChange={(institutionId) => setFilters({ ...filters, institutionId })}
          />
          <Button type="submit">{t('common.search')}</Button>
          <Button variant="light" onClick={() => void exportCsv()} loading={exporting}>
            {t('audit.export')}
          </Button>
        </Group>
      </form>
      <Text size="sm" c="dimmed">
        {t('audit.exportHelp')}
      </Text>
      <DataTable<AuditItem>
        caption={t('audit.title')}
        rows={data?.items ?? []}
        rowKey={(a) => a.id}
        columns={[
          { label: t('audit.when'), cell: (a) => formatDateTime(a.occurredAt, language) },
          { label: t('audit.event'), cell: (a) => a.event },
          { label: t('fields.institution'), cell: (a) => a.tenant ?? '—' },
          { label: t('fields.protocolNumber'), cell: (a) => a.protocolNumber ?? '—' },
          {
            label: t('audit.user'),
            cell: (a) => [a.systemUser.name, a.systemUser.role].filter(Boolean).join(' · ') || a.sharedWith || '—',
          },
          {
            label: t('audit.detail'),
            cell: (a) => (
              <Text size="xs" style={{ wordBreak: 'break-word' }} component="span">
                {a.detail ? a.detail.slice(0, 160) : '—'}
              </Text>
            ),
          },
        ]}
      />
      {data ? <Pager page={page} size={data.size} total={data.total} onChange={setPage} /> : null}
    </Page>
  );
}
