import '@mantine/core/styles/Card.css';
import '@mantine/core/styles/Combobox.css';
import '@mantine/core/styles/ScrollArea.css';
import '@mantine/core/styles/Switch.css';
import '@mantine/core/styles/Table.css';
import {
  Alert,
  Anchor,
  Button,
  Card,
  Container,
  Group,
  Loader,
  Paper,
  ScrollArea,
  Select,
  Stack,
  Switch,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { PATIENT_DATE_PRESETS, TOAST_MS } from '@portal/shared/limits';
import type { AccessItem, AccessWho } from '@portal/shared/schemas/access-log';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { type DateRange, presetRange, rangeQuery } from '../../../components/date-presets';
import { InfoIcon } from '../../../components/icons';
import { DateRangeFilter, Pager } from '../../../components/list-controls';
import { fetchFile, saveFile, useProtocolList } from '../../../components/results-api';
import { formatExamDate } from '../../../lib/dates';
import { errorText } from '../../../lib/errors';
import { currentLanguage } from '../../../lib/i18n';
import { notify } from '../../../lib/notify';
import { useCredentials } from '../../../lib/session';
import { usePageTitle } from '../../../lib/use-page-title';
import { accessesCsvPath, useAccessAlerts, useAccessAlertsMutation, useAccesses } from '../api/access-log-api';
import { usePhone } from '../../../lib/use-phone';

const SIZE = 20;
const ALL = 'all';

/** Who did it, in the words of the patient's language. */
function useWhoText() {
  const { t } = useTranslation('accesses');
  return (who: AccessWho): string => {
    switch (who.kind) {
      case 'PHYSICIAN':
        return who.license
          ? t('who.physicianWithLicense', { name: who.name ?? '', license: who.license })
          : t('who.physician', { name: who.name ?? '' });
      case 'PARTNER':
        return who.tag ? t('who.partner', { tag: who.tag }) : t('who.partnerNoTag');
      case 'SHARE_RECIPIENT':
        return t('who.shareRecipient', { email: who.email ?? '' });
      case 'STAFF':
        return who.name ? t('who.staffNamed', { name: who.name }) : t('who.staff');
      default:
        return t(`who.${who.kind}`);
    }
  };
}

function ActionText({ item }: { item: AccessItem }) {
  const { t } = useTranslation('accesses');
  return (
    <>
      {t(`actions.${item.action}`)}
      {item.channel === 'FHIR' && (
        <Text span size="xs" c="dimmed">
          {' '}
          ({t('fhir')})
        </Text>
      )}
    </>
  );
}

/** "You" stands apart from everybody else at a glance. */
function WhoText({ item }: { item: AccessItem }) {
  const whoText = useWhoText();
  const you = item.who.kind === 'YOU';
  return (
    <Text size="sm" fw={you ? 400 : 700} c={you ? 'dimmed' : undefined} style={{ overflowWrap: 'anywhere' }}>
      {whoText(item.who)}
    </Text>
  );
}

function AccessCards({ items }: { items: AccessItem[] }) {
  const { t } = useTranslation('accesses');
  return (
    <Stack gap="sm" component="ul" p={0} m={0} style={{ listStyle: 'none' }}>
      {items.map((item) => (
        <Card key={item.id} withBorder padding="sm" component="li" data-testid="access-row">
          <Stack gap={6}>
            <Group justify="space-between" gap="xs" wrap="nowrap">
              <Text size="sm" fw={700}>
                {formatExamDate(item.occurredAt, true)}
              </Text>
              <Text size="xs" c="dimmed">
                {t('protocolNumber', { number: item.protocolNumber })}
              </Text>
            </Group>
            <WhoText item={item} />
            <Text size="sm">
              <ActionText item={item} />
            </Text>
            {item.exams.length > 0 && (
              <Text size="xs" c="dimmed">
                {item.exams.join(', ')}
              </Text>
            )}
          </Stack>
        </Card>
      ))}
    </Stack>
  );
}

function AccessTable({ items }: { items: AccessItem[] }) {
  const { t } = useTranslation('accesses');
  return (
    <ScrollArea type="auto">
      <Table striped withTableBorder verticalSpacing="sm" miw={760}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">{t('columns.when')}</Table.Th>
            <Table.Th scope="col">{t('columns.who')}</Table.Th>
            <Table.Th scope="col">{t('columns.what')}</Table.Th>
            <Table.Th scope="col">{t('columns.protocol')}</Table.Th>
            <Table.Th scope="col">{t('columns.exams')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.map((item) => (
            <Table.Tr key={item.id} data-testid="access-row">
              <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatExamDate(item.occurredAt, true)}</Table.Td>
              <Table.Td>
                <WhoText item={item} />
              </Table.Td>
              <Table.Td>
                <ActionText item={item} />
              </Table.Td>
              <Table.Td>
                <Text size="sm">{item.protocolNumber}</Text>
                <Text size="xs" c="dimmed">
                  {item.institutionName}
                </Text>
              </Table.Td>
              <Table.Td>{item.exams.join(', ')}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </ScrollArea>
  );
}

function AlertsSwitch({ userId }: { userId: string }) {
  const { t } = useTranslation('accesses');
  const alerts = useAccessAlerts(userId);
  const change = useAccessAlertsMutation(userId);
  return (
    <Switch
      label={t('alerts.label')}
      description={t('alerts.description')}
      checked={alerts.data?.enabled ?? false}
      disabled={alerts.isPending || change.isPending}
      onChange={(event) =>
        change.mutate(event.currentTarget.checked, {
          onSuccess: (data) => notify('success', t(data.enabled ? 'alerts.on' : 'alerts.off'), TOAST_MS.mfaEdit),
          onError: (error) => notify('error', errorText(error), TOAST_MS.mfaEdit),
        })
      }
    />
  );
}

/** "Who saw my results": every access to the patient's protocols, by protocol and period, with a CSV. */
export default function AccessLogPage() {
  const { t } = useTranslation(['accesses', 'common']);
  usePageTitle(t('title'));
  const credentials = useCredentials();
  const userId = credentials?.user?.identifier ?? '';
  const [params, setParams] = useSearchParams();
  const protocol = params.get('protocol') ?? '';
  const [range, setRange] = useState<DateRange>(() => presetRange('last6Months'));
  const [page, setPage] = useState(1);
  const [exporting, setExporting] = useState(false);
  const phone = usePhone();
  const filters = { protocol: protocol || undefined, ...rangeQuery(range) };
  const accesses = useAccesses(userId, { ...filters, page, size: SIZE });
  const protocols = useProtocolList('dashboard', { page: 1, size: 100 });
  // "All protocols" is an option of its own: the select's clear button is hidden from assistive technology.
  const options = [
    { value: ALL, label: t('filters.allProtocols') },
    ...(protocols.data?.items ?? []).map((p) => ({ value: p.requestId, label: `${p.number} · ${p.institution.name}` })),
  ];
  if (protocol && !options.some((o) => o.value === protocol)) options.push({ value: protocol, label: protocol });

  const chooseProtocol = (value: string | null) => {
    setPage(1);
    setParams(value && value !== ALL ? { protocol: value } : {}, { replace: true });
  };
  const exportCsv = async () => {
    setExporting(true);
    try {
      saveFile(await fetchFile(accessesCsvPath(userId), { query: { ...filters, language: currentLanguage() } }));
    } catch (error) {
      notify('error', errorText(error), TOAST_MS.long);
    } finally {
      setExporting(false);
    }
  };

  const data = accesses.data;
  const pages = data ? Math.max(1, Math.ceil(data.total / SIZE)) : 1;
  return (
    <Container size="lg" px="sm" py="lg">
      <Stack gap="md">
        <Anchor component={Link} to="/dashboard/patient/protocols" size="sm">
          ← {t('back')}
        </Anchor>
        <Title order={1} size="h2">
          {t('title')}
        </Title>
        <Text size="sm">{t('intro')}</Text>
        <Paper withBorder p="md" radius="md">
          <AlertsSwitch userId={userId} />
        </Paper>
        <Group gap="sm" align="flex-end" wrap="wrap">
          <Select
            label={t('filters.protocol')}
            data={options}
            value={protocol || ALL}
            onChange={chooseProtocol}
            allowDeselect={false}
            miw={260}
            comboboxProps={{ withinPortal: true }}
          />
          <DateRangeFilter
            value={range}
            onChange={(next) => {
              setPage(1);
              setRange(next);
            }}
            presets={PATIENT_DATE_PRESETS}
          />
          <Button variant="light" loading={exporting} onClick={() => void exportCsv()}>
            {t('export')}
          </Button>
        </Group>
        {accesses.isPending ? (
          <Loader size="sm" aria-label={t('common:loading.text')} />
        ) : accesses.isError ? (
          <Alert color="red">{errorText(accesses.error)}</Alert>
        ) : data && data.items.length === 0 ? (
          <Alert color="gray" icon={<InfoIcon />}>
            {t('empty')}
          </Alert>
        ) : data ? (
          <>
            <Text size="sm" c="dimmed" aria-live="polite">
              {t('count', { count: data.total })}
            </Text>
            {phone ? <AccessCards items={data.items} /> : <AccessTable items={data.items} />}
            <Pager page={page} pages={pages} onChange={setPage} />
          </>
        ) : null}
      </Stack>
    </Container>
  );
}
