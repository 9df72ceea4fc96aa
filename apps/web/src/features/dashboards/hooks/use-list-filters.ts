import { useCallback, useMemo, useState } from 'react';
import { type DatePreset, type DateRange, presetRange, rangeQuery } from '../../../components/date-presets';
import type { ReadFilterValue } from '../../../components/list-controls';
import type { ListParams } from '../../../components/results-api';

/** The filters every dashboard shares (spec 2.7); any change goes back to page 1. */
export function useListFilters(defaultPreset: DatePreset | null, size: number) {
  const [range, setRangeState] = useState<DateRange | null>(() => (defaultPreset ? presetRange(defaultPreset) : null));
  const [search, setSearchState] = useState('');
  const [read, setReadState] = useState<ReadFilterValue>('all');
  const [page, setPage] = useState(1);
  const [forceRefresh, setForceRefresh] = useState(false);

  // A forced refresh may fall back to the latest protocols (spec 9); a new filter must not.
  const setRange = useCallback((next: DateRange) => {
    setRangeState(next);
    setPage(1);
    setForceRefresh(false);
  }, []);
  const setSearch = useCallback((next: string) => {
    setSearchState((current) => {
      if (current !== next) {
        setPage(1);
        setForceRefresh(false);
      }
      return next;
    });
  }, []);
  const setRead = useCallback((next: ReadFilterValue) => {
    setReadState(next);
    setPage(1);
    setForceRefresh(false);
  }, []);

  const params: ListParams = useMemo(
    () => ({ ...rangeQuery(range), search, read, page, size, forceRefresh: forceRefresh || undefined }),
    [range, search, read, page, size, forceRefresh],
  );
  return { range, setRange, search, setSearch, read, setRead, page, setPage, params, forceRefresh, setForceRefresh };
}
