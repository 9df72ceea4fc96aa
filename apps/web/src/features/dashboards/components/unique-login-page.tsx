import { PAGE_SIZE } from '@portal/shared/limits';
import { useTranslation } from 'react-i18next';
import { SearchBox } from '../../../components/list-controls';
import { useProtocolList } from '../../../components/results-api';
import { useListFilters } from '../hooks/use-list-filters';
import { DashboardFrame } from './dashboard-frame';
import { ProtocolList } from './protocol-list';

/** Spec 2.7: a guest session over several protocols: search and cards only. */
export default function UniqueLoginPage() {
  const { t } = useTranslation('results');
  const filters = useListFilters(null, PAGE_SIZE.patient);
  const list = useProtocolList('dashboard', filters.params);
  return (
    <DashboardFrame
      title={t('titles.uniqueLogin')}
      filters={<SearchBox onSearch={filters.setSearch} />}
      query={list}
      page={filters.page}
      setPage={filters.setPage}
    >
      {(rows) => <ProtocolList items={rows} detailPath="/viewprotocol" showPatient showRequester cards />}
    </DashboardFrame>
  );
}
