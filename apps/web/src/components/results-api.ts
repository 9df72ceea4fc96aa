import type { Exam, ProtocolItem } from '@portal/shared/schemas/delivery';
import { keepPreviousData, type QueryClient, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, buildUrl } from '../lib/api-client';
import { getToken } from '../lib/session';
import { fileNameOf } from './content-disposition';

export type { Exam, ProtocolItem };

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  size: number;
}

/** Which list a dashboard reads (spec 7.3-7.4, contract 8). */
export type ListSource = 'dashboard' | 'physician' | 'external';

const LIST_PATH: Record<ListSource, string> = {
  dashboard: '/api/v2/delivery/dashboard/protocols',
  physician: '/api/delivery/persistence/protocols/physician',
  external: '/api/v2/delivery/protocols/listedByTags',
};

export interface ListParams {
  initialDate?: string;
  finalDate?: string;
  search?: string;
  read?: 'all' | 'read' | 'unread';
  tag?: string;
  orderBy?: 'date' | 'patient' | 'institution';
  /** Spec 2.7: the physician's advanced filters, answered by the server (totals and pages included). */
  protocol?: string;
  patient?: string;
  institution?: string;
  forceRefresh?: boolean;
  page: number;
  size: number;
}

export function useProtocolList(source: ListSource, params: ListParams, enabled = true) {
  return useQuery({
    queryKey: ['protocols', source, params],
    queryFn: ({ signal }) =>
      api<Page<ProtocolItem>>(LIST_PATH[source], {
        query: {
          ...params,
          read: params.read === 'all' ? undefined : params.read,
          search: params.search || undefined,
          protocol: params.protocol || undefined,
          patient: params.patient || undefined,
          institution: params.institution || undefined,
        },
        signal,
      }),
    placeholderData: keepPreviousData,
    enabled,
    // A file opened in another tab or on another device shows as read on coming back (spec 4.2);
    // the server answers an unchanged list from memory, so this costs little.
    refetchOnWindowFocus: 'always',
  });
}

/** A protocol's exams, loaded only when its row expands (spec 4.8). */
export function useProtocolExams(requestId: string, enabled: boolean) {
  return useQuery({
    queryKey: ['protocol-exams', requestId],
    queryFn: ({ signal }) =>
      api<Exam[]>('/api/v2/delivery/dashboard/protocols/exams', { query: { request: requestId }, signal }),
    enabled,
    refetchOnWindowFocus: true,
  });
}

export function useProtocolDetail(id: string | null) {
  return useQuery({
    queryKey: ['protocol', id],
    queryFn: ({ signal }) =>
      api<ProtocolItem>('/api/delivery/persistence/dashboard/protocol/byId', { query: { id: id ?? '' }, signal }),
    enabled: Boolean(id),
  });
}

export interface UserTag {
  id: string;
  tag: string;
  institutionName: string;
  value: string;
  text: string;
  /** The external user's favourite group (spec 2.10). */
  favorite: boolean;
}

export function useUserTags(enabled = true) {
  return useQuery({
    queryKey: ['user-tags'],
    queryFn: () => api<UserTag[]>('/api/v2/delivery/institutionUserTags'),
    enabled,
    staleTime: 5 * 60_000,
  });
}

/** Spec 4.2: what the server recorded when a file was opened, shown at once without a reload. */
export function markExamsRead(client: QueryClient, requestId: string, examIds: readonly string[] | 'all'): void {
  const isRead = (exam: Exam) => examIds === 'all' || examIds.includes(exam.id);
  const updateExams = (exams: Exam[] | undefined) =>
    exams?.map((exam) => (isRead(exam) ? { ...exam, examRead: true } : exam));
  client.setQueryData<Exam[]>(['protocol-exams', requestId], updateExams);
  let detailRead: boolean | null = null;
  client.setQueriesData<ProtocolItem>({ queryKey: ['protocol'] }, (protocol) => {
    if (!protocol || protocol.requestId !== requestId || !protocol.exams) return protocol;
    const exams = updateExams(protocol.exams) ?? [];
    const allRead = exams.length > 0 && exams.every((e) => e.examRead);
    detailRead = allRead;
    return { ...protocol, exams, protocolRead: allRead, allExamsRead: allRead };
  });
  const exams = client.getQueryData<Exam[]>(['protocol-exams', requestId]);
  const allRead =
    examIds === 'all' ||
    detailRead === true ||
    (exams !== undefined && exams.length > 0 && exams.every((e) => e.examRead));
  // The list row's exams lose their "new" mark, and the row its unread state once all are read.
  client.setQueriesData<Page<ProtocolItem>>({ queryKey: ['protocols'] }, (page) =>
    page
      ? {
          ...page,
          items: page.items.map((p) => {
            if (p.requestId !== requestId) return p;
            const examList = p.examList.map((e) =>
              examIds === 'all' || examIds.includes(e.id) ? { ...e, examRead: true } : e,
            );
            const read = allRead || (examList.length > 0 && examList.every((e) => e.examRead));
            return { ...p, examList, protocolRead: read, allExamsRead: read };
          }),
        }
      : page,
  );
}

export function useMarkRead() {
  const client = useQueryClient();
  return (requestId: string, examIds: readonly string[] | 'all') => markExamsRead(client, requestId, examIds);
}

export interface DownloadedFile {
  blob: Blob;
  fileName: string;
  /** Reports a merged PDF could not include (`X-Reports-Left-Out`); each has a page saying why. */
  leftOut: number;
}

async function failure(response: Response): Promise<ApiError> {
  let message = '';
  try {
    const body = (await response.json()) as { message?: unknown };
    message = typeof body.message === 'string' ? body.message : '';
  } catch {
    message = '';
  }
  if (response.status === 401) {
    // The shared client owns the session-expiry flow (message, logout, redirect); let it run.
    await api('/api/v2/auth/validate').catch(() => undefined);
  }
  return new ApiError(response.status, message);
}

/**
 * Fetches a binary answer with the bearer token, reporting bytes as they stream in, so a large
 * batch print shows progress instead of a frozen screen.
 */
export async function fetchFile(
  path: string,
  init: { method?: 'GET' | 'POST'; query?: Record<string, string | boolean | undefined>; body?: unknown },
  onProgress?: (received: number, total: number | null) => void,
): Promise<DownloadedFile> {
  const headers: Record<string, string> = {};
  const token = getToken();
  if (token) headers.authorization = `Bearer ${token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(buildUrl(path, init.query), {
      method: init.method ?? 'GET',
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      credentials: 'same-origin',
    });
  } catch {
    throw new ApiError(0, '');
  }
  if (!response.ok) throw await failure(response);
  const type = response.headers.get('content-type') ?? 'application/octet-stream';
  const fileName = fileNameOf(response.headers.get('content-disposition'), 'arquivo');
  const leftOut = Number(response.headers.get('x-reports-left-out')) || 0;
  const length = Number(response.headers.get('content-length')) || null;
  if (!response.body || !onProgress) return { blob: await response.blob(), fileName, leftOut };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  onProgress(0, length);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    received += value.byteLength;
    onProgress(received, length);
  }
  return { blob: new Blob(chunks as BlobPart[], { type }), fileName, leftOut };
}

/** Saves a blob under its name through the browser's download. */
export function saveFile(file: Pick<DownloadedFile, 'blob' | 'fileName'>): void {
  const url = URL.createObjectURL(file.blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = file.fileName;
  document.body.appendChild(link);
  link.click();
  link.remove();
  // The download has its own copy once started; keep the URL a moment for slow browsers.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
