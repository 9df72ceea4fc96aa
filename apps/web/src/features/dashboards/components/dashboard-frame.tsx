import { Alert, Button, Container, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { type ReactNode, useDeferredValue, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AlertIcon, ChevronDownIcon } from '../../../components/icons';
import { BackToTop, Pager } from '../../../components/list-controls';
import { pageCount } from '../../../components/pager-window';
import type { Page, ProtocolItem } from '../../../components/results-api';
import { errorText } from '../../../lib/errors';
import { usePageTitle } from '../../../lib/use-page-title';

/** Title, filters, the list or its empty message, the pager and back-to-top (spec 2.7). */
export function DashboardFrame({
  title,
  actions,
  notice,
  filters,
  foldFilters = false,
  tools,
  query,
  page,
  setPage,
  children,
}: {
  title: string;
  actions?: ReactNode;
  /** Shown under the title, in the page's flow, above the filters and the list. */
  notice?: ReactNode;
  /** null while they wait for something (a loader stands in their place). */
  filters: ReactNode;
  /** On phones the filters fold behind one "Filtros" button, so the first result shows above the fold. */
  foldFilters?: boolean;
  /** Shown after the filters on every width, folded or not (the batch printing bar). */
  tools?: ReactNode;
  query: { data?: Page<ProtocolItem>; isPending: boolean; isFetching: boolean; isError: boolean; error: unknown };
  page: number;
  setPage: (page: number) => void;
  children: (items: ProtocolItem[]) => ReactNode;
}) {
  const { t } = useTranslation(['results', 'common']);
  usePageTitle(title);
  // A list that appears (up to a hundred protocols) is drawn in the background: React yields to
  // the browser every few milliseconds meanwhile, so a slow phone never holds a tap or a scroll for
  // the whole list. A list already shown changes at once (a report read, a protocol linked).
  const arrived = query.isPending ? undefined : query.data;
  const drawnInBackground = useDeferredValue(arrived);
  const data = drawnInBackground === undefined ? undefined : arrived;
  const [unfolded, setUnfolded] = useState(false);
  const filtersId = useId();
  return (
    <Container size="lg" px="sm" py="lg">
      <Stack gap="md">
        <Group justify="space-between" align="center" wrap="wrap">
          <Title order={1} size="h2">
            {title}
          </Title>
          {actions && <Group gap="xs">{actions}</Group>}
        </Group>
        {notice}
        {foldFilters && (
          <Button
            hiddenFrom="sm"
            variant="default"
            rightSection={<ChevronDownIcon size={16} style={{ transform: unfolded ? 'rotate(180deg)' : undefined }} />}
            aria-expanded={unfolded}
            aria-controls={filtersId}
            onClick={() => setUnfolded((open) => !open)}
            data-testid="filters-toggle"
          >
            {t('results:filters.fold')}
          </Button>
        )}
        {filters === null ? (
          // Filters not shown yet (the drawn page; the patient's, until her record settles the prompt
          // above them): the loader alone, which the filters and their own loader replace at once,
          // so nothing already on screen moves down when they come.
          <Loader size="sm" aria-label={t('common:loading.text')} />
        ) : (
          <Group
            align="flex-end"
            gap="md"
            wrap="wrap"
            className="dashboard-filters"
            id={filtersId}
            data-folded={foldFilters && !unfolded ? true : undefined}
          >
            {filters}
            {/* Kept in place while hidden: a loader that came and went would move the list. */}
            <Loader
              size="sm"
              aria-label={t('common:loading.text')}
              aria-hidden={!query.isFetching}
              style={{ visibility: query.isFetching ? 'visible' : 'hidden' }}
            />
          </Group>
        )}
        {tools}
        {query.isError ? (
          <Alert color="red" icon={<AlertIcon />} role="alert">
            {errorText(query.error)}
          </Alert>
        ) : !data ? null : data.items.length === 0 ? (
          <Text data-testid="list-empty">{t('results:list.empty')}</Text>
        ) : (
          <>
            <Text size="sm" c="dimmed" aria-live="polite">
              {t('results:list.total', { count: data.total })}
            </Text>
            {children(data.items)}
            <Pager page={page} pages={pageCount(data.total, data.size)} onChange={setPage} />
          </>
        )}
      </Stack>
      <BackToTop />
    </Container>
  );
}
