import '@mantine/core/styles/Badge.css';
import '@mantine/core/styles/Card.css';
import '@mantine/core/styles/Table.css';
import { Badge, Box, Button, Card, Checkbox, Collapse, Group, Stack, Table, Text } from '@mantine/core';
import dayjs from 'dayjs';
import { Fragment, type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { ProtocolItem } from '../../../components/results-api';
import { useResourceOpener } from '../../../components/resource-viewer';
import { formatCalendarDate, formatExamDate } from '../../../lib/dates';
import { ProtocolExams } from './protocol-exams';
import { ScrollTable } from '../../../components/scroll-table';
import { ExamWords } from '../../../components/exam-words';
import { usePhone } from '../../../lib/use-phone';

export type GroupBy = 'date' | 'patient' | 'institution';

export interface Selection {
  selected: ReadonlySet<string>;
  toggle: (requestId: string, checked: boolean) => void;
  toggleAll: (requestIds: string[], checked: boolean) => void;
}

/** Spec 9: group dates are calendar days in UTC (+0000), exam dates in GMT-3. */
function groupKey(protocol: ProtocolItem, groupBy: GroupBy, notInformed: string): string {
  if (groupBy === 'patient') return protocol.patientName ?? protocol.patient.name;
  if (groupBy === 'institution') return protocol.institutionName ?? protocol.institution.name;
  return protocol.requestedAt ? dayjs.utc(protocol.requestedAt).format('DD/MM/YYYY') : notInformed;
}

function ReadState({ read }: { read: boolean }) {
  const { t } = useTranslation('results');
  return (
    <Badge
      variant={read ? 'light' : 'filled'}
      color={read ? 'gray' : 'blue.9'}
      miw="max-content"
      data-testid="protocol-read-state"
    >
      {read ? t('list.read') : t('list.unread')}
    </Badge>
  );
}

/**
 * A page of protocols (spec 2.7): a table with expandable exam details on wide screens and cards
 * on phones; optional selection (print) and grouping headers.
 */
export function ProtocolList({
  items,
  detailPath,
  showPatient,
  showRequester,
  selection,
  groupBy,
  actions,
  cards = false,
}: {
  items: ProtocolItem[];
  /** Cards on every width (the unique-login dashboard, spec 2.7). */
  cards?: boolean;
  detailPath: string;
  showPatient: boolean;
  showRequester: boolean;
  selection?: Selection;
  groupBy?: GroupBy;
  actions?: (protocol: ProtocolItem) => ReactNode;
}) {
  const { t } = useTranslation('results');
  const phone = usePhone();
  const opener = useResourceOpener();
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const toggle = (id: string) =>
    setExpanded((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const ids = items.map((p) => p.requestId);
  const allChecked = selection !== undefined && ids.length > 0 && ids.every((id) => selection.selected.has(id));
  const someChecked = selection !== undefined && ids.some((id) => selection.selected.has(id));

  const groups: Array<{ key: string; items: ProtocolItem[] }> = [];
  for (const protocol of items) {
    const key = groupBy ? groupKey(protocol, groupBy, t('list.notInformed')) : '';
    const last = groups[groups.length - 1];
    if (last && last.key === key) last.items.push(protocol);
    else groups.push({ key, items: [protocol] });
  }

  const selectAll = selection && (
    <Checkbox
      label={t('list.selectAll')}
      checked={allChecked}
      indeterminate={!allChecked && someChecked}
      onChange={(event) => selection.toggleAll(ids, event.currentTarget.checked)}
    />
  );

  const detailLink = (p: ProtocolItem) => (
    <Button
      component={Link}
      to={`${detailPath}?id=${encodeURIComponent(p.requestId)}`}
      state={{ fromDashboard: true }}
      size="compact-sm"
      variant="light"
      aria-label={t('list.openProtocol', { number: p.number })}
    >
      {t('list.open')}
    </Button>
  );
  const expandButton = (p: ProtocolItem) => (
    <Button
      size="compact-sm"
      variant="subtle"
      aria-expanded={expanded.has(p.requestId)}
      aria-controls={`exams-${p.requestId}`}
      aria-label={t(expanded.has(p.requestId) ? 'list.hideExamsOf' : 'list.showExamsOf', { number: p.number })}
      onClick={() => toggle(p.requestId)}
    >
      {t(expanded.has(p.requestId) ? 'list.hideExams' : 'list.showExams')}
    </Button>
  );
  const checkbox = (p: ProtocolItem) =>
    selection && (
      <Checkbox
        aria-label={t('list.selectProtocol', { number: p.number })}
        checked={selection.selected.has(p.requestId)}
        onChange={(event) => selection.toggle(p.requestId, event.currentTarget.checked)}
      />
    );
  const requested = (p: ProtocolItem) => formatExamDate(p.requestedAt) ?? t('list.notInformed');
  const patientName = (p: ProtocolItem) => p.patientName ?? p.patient.name;
  const institutionName = (p: ProtocolItem) => p.institutionName ?? p.institution.name;

  if (phone || cards) {
    return (
      <Stack gap="sm">
        {opener.viewer}
        {selectAll}
        {groups.map((group, index) => (
          <Stack key={`${index}-${group.key}`} gap="xs">
            {groupBy && (
              <Text fw={700} size="sm" role="heading" aria-level={2}>
                {group.key}
              </Text>
            )}
            {group.items.map((p) => (
              <Card key={p.requestId} withBorder padding="sm" data-testid="protocol-row">
                <Stack gap={6}>
                  <Group justify="space-between" wrap="nowrap" align="flex-start">
                    <Group gap="xs" wrap="nowrap">
                      {checkbox(p)}
                      <Text fw={700}>
                        {t('list.protocol')} {p.number}
                      </Text>
                    </Group>
                    <ReadState read={p.protocolRead} />
                  </Group>
                  <Text size="sm">
                    {t('list.date')}: {requested(p)}
                  </Text>
                  <Text size="sm">
                    {t('list.institution')}: {institutionName(p)}
                  </Text>
                  <ExamWords exams={p.examList} showCode={p.hasExamStatusVisualizer} />
                  {showPatient && (
                    <Text size="sm">
                      {t('list.patient')}: {patientName(p)}
                      {p.patientBirthDate || p.patient.birthDate
                        ? ` (${formatCalendarDate(p.patientBirthDate ?? p.patient.birthDate) ?? ''})`
                        : ''}
                    </Text>
                  )}
                  <Group gap="xs">
                    {detailLink(p)}
                    {expandButton(p)}
                    {actions?.(p)}
                  </Group>
                  <Collapse in={expanded.has(p.requestId)} id={`exams-${p.requestId}`}>
                    {expanded.has(p.requestId) && (
                      <ProtocolExams protocol={p} showRequester={showRequester} opener={opener} />
                    )}
                  </Collapse>
                </Stack>
              </Card>
            ))}
          </Stack>
        ))}
      </Stack>
    );
  }

  const columns = 5 + (selection ? 1 : 0) + (showPatient ? 1 : 0);
  return (
    <Stack gap="xs">
      {opener.viewer}
      {selectAll}
      <ScrollTable label={t('list.tableLabel')} minWidth={900}>
        <Table withTableBorder verticalSpacing="sm" data-testid="protocol-table">
          <Table.Thead>
            <Table.Tr>
              {selection && (
                <Table.Th scope="col" w={48}>
                  <Box component="span" className="visually-hidden" style={visuallyHidden}>
                    {t('list.selection')}
                  </Box>
                </Table.Th>
              )}
              <Table.Th scope="col">{t('list.protocol')}</Table.Th>
              <Table.Th scope="col">{t('list.date')}</Table.Th>
              <Table.Th scope="col">{t('examWords.exams')}</Table.Th>
              {showPatient && <Table.Th scope="col">{t('list.patient')}</Table.Th>}
              <Table.Th scope="col">{t('list.institution')}</Table.Th>
              <Table.Th scope="col">{t('list.readState')}</Table.Th>
              <Table.Th scope="col">{t('list.actions')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {groups.map((group, index) => (
              // A page still ordered the old way may repeat a group; the index keeps keys unique.
              <Fragment key={`${index}-${group.key}`}>
                {groupBy && (
                  <Table.Tr bg="gray.1">
                    <Table.Th scope="colgroup" colSpan={columns + 1}>
                      {group.key}
                    </Table.Th>
                  </Table.Tr>
                )}
                {group.items.map((p) => (
                  <Fragment key={p.requestId}>
                    <Table.Tr data-testid="protocol-row">
                      {selection && <Table.Td>{checkbox(p)}</Table.Td>}
                      <Table.Td fw={600}>{p.number}</Table.Td>
                      <Table.Td>{requested(p)}</Table.Td>
                      <Table.Td>
                        <ExamWords exams={p.examList} showCode={p.hasExamStatusVisualizer} />
                      </Table.Td>
                      {showPatient && <Table.Td>{patientName(p)}</Table.Td>}
                      <Table.Td>{institutionName(p)}</Table.Td>
                      <Table.Td>
                        <ReadState read={p.protocolRead} />
                      </Table.Td>
                      <Table.Td>
                        <Group gap="xs" wrap="wrap">
                          {detailLink(p)}
                          {expandButton(p)}
                          {actions?.(p)}
                        </Group>
                      </Table.Td>
                    </Table.Tr>
                    {expanded.has(p.requestId) && (
                      <Table.Tr id={`exams-${p.requestId}`}>
                        <Table.Td colSpan={columns + 1} bg="gray.0">
                          <ProtocolExams protocol={p} showRequester={showRequester} opener={opener} />
                        </Table.Td>
                      </Table.Tr>
                    )}
                  </Fragment>
                ))}
              </Fragment>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollTable>
    </Stack>
  );
}

const visuallyHidden = {
  position: 'absolute',
  width: 1,
  height: 1,
  overflow: 'hidden',
  clip: 'rect(0 0 0 0)',
  whiteSpace: 'nowrap',
} as const;
