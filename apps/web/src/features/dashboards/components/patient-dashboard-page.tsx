import { Button } from '@mantine/core';
import { PAGE_SIZE, PATIENT_DATE_PRESETS } from '@portal/shared/limits';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DateRangeFilter, ReadFilter, RefreshLink, SearchBox } from '../../../components/list-controls';
import { type ProtocolItem, useProtocolList } from '../../../components/results-api';
import { profileIncompleteRemembered, useCredentials } from '../../../lib/session';
import { useMyRecord } from '../../account-edit/api/account-api';
import { useShareEnabled } from '../api/dashboard-api';
import { useListFilters } from '../hooks/use-list-filters';
import { PatientActions } from './dashboard-actions';
import { DashboardFrame } from './dashboard-frame';
import { ProfilePrompt } from './profile-prompt';
import { ProtocolList } from './protocol-list';

// The chart library and the PDF writer load only when the patient opens the history; the forms
// of linking and sharing (and the schema library their checks use) when she opens one of them.
const HistoryModal = lazy(() =>
  import('../../history/components/history-modal').then((m) => ({ default: m.HistoryModal })),
);
const LinkProtocolModal = lazy(() =>
  import('../../link-protocol/components/link-protocol-modal').then((m) => ({ default: m.LinkProtocolModal })),
);
const ShareModal = lazy(() => import('../../shares/components/share-modal').then((m) => ({ default: m.ShareModal })));

/** Spec 2.7: the patient's protocols, with link, share and history. */
export default function PatientDashboardPage() {
  const { t } = useTranslation('results');
  const credentials = useCredentials();
  const filters = useListFilters('last6Months', PAGE_SIZE.patient);
  const list = useProtocolList('dashboard', filters.params);
  const [linking, setLinking] = useState(false);
  const [linked, setLinked] = useState(0);
  const [sharing, setSharing] = useState<ProtocolItem | null>(null);
  const [history, setHistory] = useState(false);
  const items = list.data?.items ?? [];
  const shareEnabled = useShareEnabled(items.map((p) => p.institutionId));
  const hasHistory = items.some((p) => p.showHistoricButton);
  // Spec 8: an incomplete profile is pointed out here too, in the page's flow (never over it). Until
  // the record arrives, as this session last saw it: a dashboard opened again shows it at once.
  const record = useMyRecord();
  const [remembered] = useState(profileIncompleteRemembered);
  const incomplete = record.data ? !record.data.complete : remembered;

  return (
    <>
      <DashboardFrame
        title={t('titles.patient')}
        actions={
          <PatientActions onLink={() => setLinking(true)} onHistory={() => setHistory(true)} hasHistory={hasHistory} />
        }
        // The filters wait for her record too: the prompt above them is settled first, so they never
        // move down under her finger when it comes (the drawn page shows none either).
        filters={
          record.isPending ? null : (
            <>
              {filters.range && (
                <DateRangeFilter value={filters.range} onChange={filters.setRange} presets={PATIENT_DATE_PRESETS} />
              )}
              <SearchBox onSearch={filters.setSearch} resetKey={linked} />
              <ReadFilter value={filters.read} onChange={filters.setRead} />
              <RefreshLink
                onClick={() => (filters.forceRefresh ? void list.refetch() : filters.setForceRefresh(true))}
              />
            </>
          )
        }
        // The list shows once its share buttons and the profile prompt are known: parts that came
        // a moment later would move the list under the reader's eyes.
        query={{
          ...list,
          isPending: list.isPending || record.isPending || (items.length > 0 && shareEnabled.isPending),
        }}
        notice={incomplete ? <ProfilePrompt /> : null}
        page={filters.page}
        setPage={filters.setPage}
      >
        {(rows) => (
          <ProtocolList
            items={rows}
            detailPath="/dashboard/patient/showprotocol"
            showPatient={false}
            showRequester
            actions={(p) => (
              <>
                {shareEnabled.data?.get(p.institutionId) && (
                  <Button
                    size="compact-sm"
                    variant="subtle"
                    aria-label={t('share.openFor', { number: p.number })}
                    onClick={() => setSharing(p)}
                  >
                    {t('share.open')}
                  </Button>
                )}
                {p.showHistoricButton && (
                  <Button
                    size="compact-sm"
                    variant="subtle"
                    aria-label={t('history.openFor', { number: p.number })}
                    onClick={() => setHistory(true)}
                  >
                    {t('history.open')}
                  </Button>
                )}
              </>
            )}
          />
        )}
      </DashboardFrame>
      {/* One window at a time, each loaded when first opened. */}
      <Suspense fallback={null}>
        {linking && (
          <LinkProtocolModal
            opened={linking}
            onClose={() => setLinking(false)}
            patientUserId={credentials?.user?.identifier ?? ''}
            onLinked={() => setLinked((n) => n + 1)}
          />
        )}
        {sharing && <ShareModal protocol={sharing} onClose={() => setSharing(null)} />}
        {history && <HistoryModal opened={history} onClose={() => setHistory(false)} />}
      </Suspense>
    </>
  );
}
