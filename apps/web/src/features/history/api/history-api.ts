import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { SeriesPoint } from '../history-format';

export interface IdName {
  id: string;
  name: string;
}

export interface HistoryTable {
  columns: string[];
  rows: string[][];
  series: SeriesPoint[];
  patient?: { name: string; birthDate: string } | null;
  institution?: { id: string; name: string } | null;
}

interface Range {
  initialDate?: string;
  finalDate?: string;
}

/** Contract 8 'History': exam types with results in the period. */
export function useExamTypes(range: Range, enabled: boolean) {
  return useQuery({
    queryKey: ['history-types', range],
    queryFn: ({ signal }) => api<IdName[]>('/api/delivery/examtypes/range', { query: { ...range }, signal }),
    enabled,
  });
}

export function useAttributes(range: Range, examTypeId: string | null) {
  return useQuery({
    queryKey: ['history-attributes', range, examTypeId],
    queryFn: ({ signal }) =>
      api<IdName[]>('/api/delivery/history/attributes', {
        query: { ...range, examTypeInstitutionId: examTypeId ?? '' },
        signal,
      }),
    enabled: Boolean(examTypeId),
  });
}

export function useHistory(range: Range, examTypeId: string | null, attributeId: string | null) {
  return useQuery({
    queryKey: ['history', range, examTypeId, attributeId],
    queryFn: ({ signal }) =>
      api<HistoryTable>('/api/delivery/history', {
        query: { ...range, examTypeInstitutionId: examTypeId ?? '', attributeId: attributeId ?? '' },
        signal,
      }),
    enabled: Boolean(examTypeId && attributeId),
    placeholderData: keepPreviousData,
  });
}
