import '@mantine/core/styles/Combobox.css';
import '@mantine/core/styles/ScrollArea.css';
import { Select, Text } from '@mantine/core';
import { PAGE_SIZE, PHYSICIAN_DATE_PRESETS } from '@portal/shared/limits';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { rangeQuery } from '../../../components/date-presets';
import { DateRangeFilter, ReadFilter, RefreshLink, SearchBox } from '../../../components/list-controls';
import { useProtocolList } from '../../../components/results-api';
import { useCredentials } from '../../../lib/session';
import { PrintBar } from '../../printing/components/print-bar';
import { usePrintSelection } from '../../printing/hooks/use-print-selection';
import { useListFilters } from '../hooks/use-list-filters';
import { AdvancedFilters, type AdvancedValues, EMPTY_ADVANCED } from './advanced-filters';
import { PhysicianNav } from './dashboard-actions';
import { DashboardFrame } from './dashboard-frame';
import { type GroupBy, ProtocolList } from './protocol-list';
import { TagSelect } from './tag-select';

/** Spec 2.7: the physician's protocols by period, tag and group, with batch printing. */
export default function PhysicianDashboardPage({ variant = 'protocols' }: { variant?: 'protocols' | 'exams' }) {
  const { t } = useTranslation('results');
  const credentials = useCredentials();
  const filters = useListFilters('last7Days', PAGE_SIZE.physician);
  const [tag, setTag] = useState<string | null>(null);
  const [groupBy, setGroupBy] = useState<GroupBy>('date');
  const [advanced, setAdvanced] = useState<AdvancedValues>(EMPTY_ADVANCED);
  const selection = usePrintSelection();
  const params = useMemo(() => {
    const byDate = advanced.date ? rangeQuery([advanced.date, advanced.date]) : {};
    const { protocol, patient, institution } = advanced;
    return { ...filters.params, ...byDate, protocol, patient, institution, tag: tag ?? undefined, orderBy: groupBy };
  }, [filters.params, advanced, tag, groupBy]);
  // The exams variant lists what his institution groups bring him (spec 2.7), apart from his own list.
  const list = useProtocolList(variant === 'exams' ? 'external' : 'physician', params);
  const { setPage } = filters;

  return (
    <DashboardFrame
      title={t(variant === 'exams' ? 'titles.physicianExams' : 'titles.physician')}
      actions={<PhysicianNav current={variant} />}
      notice={
        variant === 'exams' ? (
          <Text size="sm" data-testid="external-exams-notice">
            {t('titles.physicianExamsNotice')}
          </Text>
        ) : undefined
      }
      filters={
        <>
          {filters.range && (
            <DateRangeFilter value={filters.range} onChange={filters.setRange} presets={PHYSICIAN_DATE_PRESETS} />
          )}
          <TagSelect
            value={tag}
            onChange={(next) => {
              setTag(next);
              setPage(1);
            }}
          />
          <Select
            label={t('filters.groupBy.label')}
            value={groupBy}
            allowDeselect={false}
            onChange={(v) => {
              setGroupBy((v as GroupBy | null) ?? 'date');
              setPage(1);
            }}
            data={(['date', 'patient', 'institution'] as const).map((v) => ({
              value: v,
              label: t(`filters.groupBy.${v}`),
            }))}
            w={170}
          />
          <SearchBox onSearch={filters.setSearch} />
          <ReadFilter value={filters.read} onChange={filters.setRead} />
          <RefreshLink onClick={() => void list.refetch()} />
          <AdvancedFilters
            onApply={(values) => {
              setAdvanced(values);
              setPage(1);
            }}
          />
        </>
      }
      foldFilters
      tools={
        <PrintBar
          selected={selection.selected}
          clear={selection.clear}
          userId={credentials?.user?.identifier ?? null}
        />
      }
      query={list}
      page={filters.page}
      setPage={filters.setPage}
    >
      {(rows) => (
        <ProtocolList
          items={rows}
          detailPath="/dashboard/physician/showprotocol"
          showPatient
          showRequester={false}
          selection={selection}
          groupBy={groupBy}
        />
      )}
    </DashboardFrame>
  );
}

/** The physician's external exams (spec 2.7's variant), apart from his own list. */
export function PhysicianExamsPage() {
  return <PhysicianDashboardPage variant="exams" />;
}
