import {
  Anchor,
  Badge,
  Button,
  Group,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import type { AdminProtocolDetail, AdminProtocolItem, AdminProtocolPage } from '@portal/shared/schemas/administration';
import { ConfirmButton } from '../components/confirm';
import { DataTable } from '../components/data-table';
import { InstitutionPicker } from '../components/institution-picker';
import { Page } from '../components/page';
import { Pager } from '../components/pager';
import { api } from '../lib/api';
import { currentLanguage } from '../lib/i18n';
import { notifyError, notifySuccess } from '../lib/notify';
import { formatDateTime } from '../lib/queries';

function StatusBadge({ disabled }: { disabled: boolean }) {
  const { t } = useTranslation();
  return (
    <Badge variant="light" color={disabled ? 'red' : 'green'}>
      {disabled ? t('protocols.disabled') : t('protocols.enabled')}
    </Badge>
  );
}

/** One protocol: its exams, files, reads and shares; disable or re-enable it with a reason. */
function ProtocolDetail({ id }: { id: string }) {
  const { t } = useTranslation();
  const language = currentLanguage();
  const queryClient = useQueryClient();
  const [reason, setReason] = useState('');
  const { data } = useQuery({
    queryKey: ['protocol', id],
    queryFn: () => api<AdminProtocolDetail>(`/api/administrationbe/protocols/${id}`),
  });
  const change = useMutation({
    mutationFn: (disabled: boolean) =>
      api<AdminProtocolDetail>(`/api/administrationbe/protocols/${id}/status`, {
        method: 'PUT',
        body: { disabled, reason: reason.trim() },
      }),
    onSuccess: (result) => {
      queryClient.setQueryData(['protocol', id], result);
      void queryClient.invalidateQueries({ queryKey: ['protocols'] });
      setReason('');
      notifySuccess(result.disabled ? t('protocols.disabledDone') : t('protocols.enabledDone'));
    },
    onError: notifyError,
  });
  if (!data) return null;
  const reasonField = (
    <Textarea
      label={t('protocols.reason')}
      description={t('protocols.reasonHelp')}
      required
      value={reason}
      onChange={(e) => setReason(e.currentTarget.value)}
      data-autofocus
    />
  );
  return (
    <Paper withBorder p="md" component="section" aria-label={t('protocols.detail', { number: data.number })}>
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap">
          <Title order={3} size="h4">
            {t('protocols.detail', { number: data.number })}
          </Title>
          <StatusBadge disabled={data.disabled} />
        </Group>
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          <Text size="sm">
            {t('fields.patient')}: {data.patientName}
          </Text>
          <Text size="sm">
            {t('fields.institution')}: {data.institution.name}
          </Text>
          <Text size="sm">
            {t('protocols.shares')}: {t('protocols.sharesCount', data.shares)}
          </Text>
        </SimpleGrid>
        <DataTable
          caption={t('protocols.exams')}
          rows={data.exams}
          rowKey={(e) => e.id}
          columns={[
            { label: t('protocols.exam'), cell: (e) => e.description },
            { label: t('protocols.modality'), cell: (e) => e.modalityName },
            { label: t('protocols.delivered'), cell: (e) => formatDateTime(e.deliveredAt, language) },
            { label: t('protocols.files'), cell: (e) => e.files.map((f) => f.type).join(', ') || '—' },
            { label: t('protocols.reads'), numeric: true, cell: (e) => e.reads },
          ]}
        />
        <Group>
          {data.disabled ? (
            <ConfirmButton
              label={t('protocols.enable')}
              color="green"
              size="sm"
              title={t('protocols.enableTitle', { number: data.number })}
              description={t('protocols.enableText')}
              confirmLabel={t('protocols.enable')}
              confirmDisabled={reason.trim().length < 3}
              onConfirm={() => change.mutateAsync(false)}
            >
              {reasonField}
            </ConfirmButton>
          ) : (
            <ConfirmButton
              label={t('protocols.disable')}
              size="sm"
              title={t('protocols.disableTitle', { number: data.number })}
              description={t('protocols.disableText')}
              confirmLabel={t('protocols.disable')}
              confirmDisabled={reason.trim().length < 3}
              onConfirm={() => change.mutateAsync(true)}
            >
              {reasonField}
            </ConfirmButton>
          )}
          <Anchor component={Link} to={`/reports?protocol=${encodeURIComponent(data.number)}`}>
            {t('protocols.trail')}
          </Anchor>
        </Group>
      </Stack>
    </Paper>
  );
}

/** Spec 2.2 `/admin/protocol/cancel`: find a protocol by number, patient or date. */
export function ProtocolsPage() {
  const { t } = useTranslation();
  const language = currentLanguage();
  const [params] = useSearchParams();
  const [filters, setFilters] = useState({
    number: params.get('number') ?? '',
    patient: '',
    from: params.get('from') ?? '',
    to: params.get('to') ?? '',
    institutionId: params.get('institutionId') ?? '',
  });
  const [applied, setApplied] = useState(filters);
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<string | null>(null);
  const { data } = useQuery({
    queryKey: ['protocols', applied, page],
    // A new search or page keeps the rows on screen until its answer: rows never vanish under a click.
    placeholderData: keepPreviousData,
    queryFn: () => api<AdminProtocolPage>('/api/administrationbe/protocols', { query: { ...applied, page, size: 20 } }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setPage(1);
    setSelected(null);
    setApplied({ ...filters, number: filters.number.trim(), patient: filters.patient.trim() });
  };
  const field = (key: keyof typeof filters) => ({
    value: filters[key],
    onChange: (e: { currentTarget: { value: string } }) => setFilters({ ...filters, [key]: e.currentTarget.value }),
  });
  return (
    <Page title={t('protocols.title')}>
      <form onSubmit={submit} aria-label={t('protocols.search')}>
        <Group align="flex-end" wrap="wrap">
          <TextInput label={t('fields.protocolNumber')} {...field('number')} />
          <TextInput label={t('fields.patient')} {...field('patient')} />
          <TextInput label={t('fields.from')} type="date" {...field('from')} />
          <TextInput label={t('fields.to')} type="date" {...field('to')} />
          <InstitutionPicker
            allowAll
            value={filters.institutionId}
            onChange={(institutionId) => setFilters({ ...filters, institutionId })}
          />
          <Button type="submit">{t('common.search')}</Button>
        </Group>
      </form>
      <DataTable<AdminProtocolItem>
        caption={t('protocols.results')}
        rows={data?.items ?? []}
        rowKey={(p) => p.id}
        columns={[
          {
            label: t('fields.protocolNumber'),
            cell: (p) => (
              <Anchor component="button" type="button" onClick={() => setSelected(p.id)}>
                {p.number}
              </Anchor>
            ),
          },
          { label: t('fields.patient'), cell: (p) => p.patientName },
          { label: t('fields.institution'), cell: (p) => p.institution.name },
          { label: t('fields.requestedAt'), cell: (p) => formatDateTime(p.requestedAt ?? p.createdAt, language) },
          { label: t('protocols.exams'), numeric: true, cell: (p) => p.examCount },
          { label: t('fields.state'), cell: (p) => <StatusBadge disabled={p.disabled} /> },
        ]}
      />
      {data ? <Pager page={page} size={data.size} total={data.total} onChange={setPage} /> : null}
      {selected ? <ProtocolDetail id={selected} /> : null}
    </Page>
  );
}
