import { Anchor, Paper, SimpleGrid, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { Dashboard } from '@portal/shared/schemas/administration';
import { DataTable } from '../components/data-table';
import { Page } from '../components/page';
import { api } from '../lib/api';
import { currentLanguage } from '../lib/i18n';
import { formatDateTime } from '../lib/queries';

type Row = Dashboard['institutions'][number];

function Figure(props: { label: string; value: number; to: string }) {
  return (
    <Paper withBorder p="md">
      <Text size="sm" c="dimmed">
        {props.label}
      </Text>
      <Anchor component={Link} to={props.to} fz="xl" fw={650} className="numeric">
        {props.value}
      </Anchor>
    </Paper>
  );
}

/** Per institution: what was delivered today and this week, what patients opened, and what went wrong. */
export function DashboardPage() {
  const { t } = useTranslation();
  const language = currentLanguage();
  const { data, error } = useQuery({
    queryKey: ['dashboard'],
    queryFn: () => api<Dashboard>('/api/administrationbe/dashboard'),
    // Coming back to the dashboard shows the figures as they are now, not as they were a moment ago.
    refetchOnMount: 'always',
  });
  const number = (value: number, to: string) => (
    <Anchor component={Link} to={to}>
      {value}
    </Anchor>
  );
  // The days the figures count, as the protocol search takes them (YYYY-MM-DD in the portal's zone).
  const day = (iso: string) =>
    new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(new Date(iso));
  const protocols = (r: Row, from: string | undefined) =>
    from ? `/protocol/cancel?institutionId=${r.id}&from=${day(from)}&to=${day(new Date().toISOString())}` : '';
  const share = (row: Row) =>
    row.examsDeliveredWeek ? `${Math.round((row.examsOpenedWeek / row.examsDeliveredWeek) * 100)}%` : '—';
  return (
    <Page title={t('dashboard.title')}>
      {error ? <Text c="red">{t('errors.default')}</Text> : null}
      {data?.portal ? (
        <SimpleGrid cols={{ base: 2, sm: 4 }}>
          <Figure label={t('dashboard.outboxWaiting')} value={data.portal.outboxWaiting} to="/outbox?status=PENDING" />
          <Figure label={t('dashboard.outboxFailed')} value={data.portal.outboxFailed} to="/outbox?status=DEAD" />
          <Figure
            label={t('dashboard.loginFailures')}
            value={data.portal.loginFailures24h}
            to="/reports?event=LOGIN_FAILED"
          />
          <Figure label={t('dashboard.locked')} value={data.portal.lockedNow} to="/people?state=LOCKED" />
        </SimpleGrid>
      ) : null}
      {data ? (
        <DataTable<Row>
          caption={t('dashboard.perInstitution')}
          rows={data.institutions}
          rowKey={(r) => r.id}
          columns={[
            { label: t('fields.institution'), cell: (r) => r.name },
            {
              label: t('dashboard.protocolsToday'),
              numeric: true,
              cell: (r) => number(r.protocolsToday, protocols(r, data.today)),
            },
            {
              label: t('dashboard.protocolsWeek'),
              numeric: true,
              cell: (r) => number(r.protocolsWeek, protocols(r, data.weekStart)),
            },
            {
              label: t('dashboard.examsToday'),
              numeric: true,
              cell: (r) => number(r.examsDeliveredToday, protocols(r, data.today)),
            },
            {
              label: t('dashboard.examsWeek'),
              numeric: true,
              cell: (r) => number(r.examsDeliveredWeek, protocols(r, data.weekStart)),
            },
            { label: t('dashboard.opened'), numeric: true, cell: share },
            { label: t('dashboard.lastIngest'), cell: (r) => formatDateTime(r.lastIngestAt, language) },
            {
              label: t('dashboard.ingestCalls'),
              numeric: true,
              cell: (r) => number(r.ingestCalls24h, `/ingest-calls?institutionId=${r.id}`),
            },
            {
              label: t('dashboard.ingestErrors'),
              numeric: true,
              cell: (r) => number(r.ingestErrors24h, `/ingest-calls?institutionId=${r.id}&errors=true`),
            },
            {
              label: t('dashboard.loginFailures'),
              numeric: true,
              cell: (r) => number(r.loginFailures24h, `/reports?event=LOGIN_FAILED&institutionId=${r.id}`),
            },
            {
              label: t('dashboard.lockedColumn'),
              numeric: true,
              cell: (r) => number(r.lockedNow, `/people?state=LOCKED&institutionId=${r.id}`),
            },
            {
              // Waiting / given up: two figures of one column keep the table within a desk's width.
              label: t('dashboard.outboxColumn'),
              numeric: true,
              cell: (r) => (
                <>
                  <Anchor
                    component={Link}
                    to={`/outbox?status=PENDING&institutionId=${r.id}`}
                    aria-label={t('dashboard.outboxWaitingOf', { count: r.outboxWaiting, name: r.name })}
                  >
                    {r.outboxWaiting}
                  </Anchor>
                  {' / '}
                  <Anchor
                    component={Link}
                    to={`/outbox?status=DEAD&institutionId=${r.id}`}
                    aria-label={t('dashboard.outboxFailedOf', { count: r.outboxFailed, name: r.name })}
                  >
                    {r.outboxFailed}
                  </Anchor>
                </>
              ),
            },
          ]}
        />
      ) : null}
    </Page>
  );
}
