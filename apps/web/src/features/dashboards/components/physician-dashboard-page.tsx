import '@mantine/core/styles/Combobox.css';
import '@mantine/core/styles/ScrollArea.css';
import { Select } from '@mantine/core';
import { PAGE_SIZE, PHYSICIAN_DATE_PRESETS } from '@portal/shared/limits';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { rangeQuery } from '../../../components/date-presets';
import { DateRangeFilter, ReadFilter, RefreshLink, SearchBox } from '../../../components/list-controls';
import { type ProtocolItem, useProtocolList } from '../../../components/results-api';
import { useCredentials } from '../../../lib/session';
import { PrintBar } from '../../printing/components/print-bar';
import { usePrintSelection } from '../../printing/hooks/use-print-selection';
import { useListFilters } from '../hooks/use-list-filters';
import { AdvancedFilters, type AdvancedValues, EMPTY_ADVANCED } from './advanced-filters';
import { DashboardFrame } from './dashboard-frame';
import { type GroupBy, ProtocolList } from './protocol-list';
import { TagSelect } from './tag-select';

const fold = (text: string) =>
  text
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase();

function matchesAdvanced(p: ProtocolItem, advanced: AdvancedValues): boolean {
  if (advanced.institution && !fold(p.institution.name).includes(fold(advanced.institution))) return false;
  if (advanced.protocol && advanced.patient && !fold(p.patient.name).includes(fold(advanced.patient))) return false;
  return true;
}

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
    const search = advanced.protocol || advanced.patient || filters.params.search;
    return { ...filters.params, ...byDate, search, tag: tag ?? undefined, orderBy: groupBy };
  }, [filters.params, advanced, tag, groupBy]);
  const list = useProtocolList('physician', params);
  const { setPage } = filters;

  return (
    <DashboardFrame
      title={t(variant === 'exams' ? 'titles.physicianExams' : 'titles.physician')}
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
          <PrintBar
            selected={selection.selected}
            clear={selection.clear}
            userId={credentials?.user?.identifier ?? null}
          />
        </>
      }
      query={list}
      page={filters.page}
      setPage={filters.setPage}
    >
      {(rows) => (
        <ProtocolList
          items={rows.filter((p) => matchesAdvanced(p, advanced))}
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

export function PhysicianExamsPage() {
  return <PhysicianDashboardPage variant="exams" />;
}
