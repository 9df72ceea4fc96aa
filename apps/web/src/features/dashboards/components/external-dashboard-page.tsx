import { PAGE_SIZE, PHYSICIAN_DATE_PRESETS } from '@portal/shared/limits';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DateRangeFilter, ReadFilter, RefreshLink, SearchBox } from '../../../components/list-controls';
import { useProtocolList, useUserTags } from '../../../components/results-api';
import { useCredentials } from '../../../lib/session';
import { PrintBar } from '../../printing/components/print-bar';
import { usePrintSelection } from '../../printing/hooks/use-print-selection';
import { useListFilters } from '../hooks/use-list-filters';
import { DashboardFrame } from './dashboard-frame';
import { ProtocolList } from './protocol-list';
import { TagSelect } from './tag-select';

/** Spec 2.7 and 9: the external user's tag-filtered exams, 50 a page, with batch printing. */
export default function ExternalDashboardPage() {
  const { t } = useTranslation('results');
  const credentials = useCredentials();
  const filters = useListFilters('last7Days', PAGE_SIZE.external);
  // His favourite group (spec 2.10) filters the list until he picks another group or all of them.
  const tags = useUserTags();
  const [chosen, setTag] = useState<string | null | undefined>(undefined);
  const tag = chosen === undefined ? (tags.data?.find((t) => t.favorite)?.value ?? null) : chosen;
  const selection = usePrintSelection();
  const params = useMemo(() => ({ ...filters.params, tag: tag ?? undefined }), [filters.params, tag]);
  // Waits for his groups, so the first list is already the favourite's (no unfiltered flash).
  const list = useProtocolList('external', params, !tags.isPending);
  const { setPage } = filters;
  return (
    <DashboardFrame
      title={t('titles.external')}
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
          <SearchBox onSearch={filters.setSearch} />
          <ReadFilter value={filters.read} onChange={filters.setRead} />
          <RefreshLink onClick={() => void list.refetch()} />
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
          detailPath="/dashboard/externaluser/showexam"
          showPatient
          showRequester={false}
          selection={selection}
        />
      )}
    </DashboardFrame>
  );
}
