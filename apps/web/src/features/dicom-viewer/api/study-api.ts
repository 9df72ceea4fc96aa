import { useQuery } from '@tanstack/react-query';
import { ApiError, api } from '../../../lib/api-client';
import { authHeaders, DICOMWEB } from '../../../components/dicom-images';

/** One attribute of a DICOM JSON answer (PS3.18 F). */
type Attr = { vr: string; Value?: unknown[] };
type DicomJson = Record<string, Attr | undefined>;

const first = (json: DicomJson, tag: string): unknown => json[tag]?.Value?.[0];
const text = (json: DicomJson, tag: string): string | null => {
  const v = first(json, tag);
  if (v === undefined || v === null) return null;
  if (typeof v === 'object' && 'Alphabetic' in v) return String((v as { Alphabetic: unknown }).Alphabetic);
  return String(v);
};
const num = (json: DicomJson, tag: string): number | null => {
  const v = first(json, tag);
  return v === undefined || v === null || Number.isNaN(Number(v)) ? null : Number(v);
};

export interface SeriesInfo {
  uid: string;
  number: number | null;
  modality: string | null;
  description: string | null;
  instances: number;
}

export interface InstanceInfo {
  sopUid: string;
  number: number | null;
  frames: number;
  transferSyntax: string | null;
}

export interface StudyInfo {
  patientName: string | null;
  studyDate: string | null;
  description: string | null;
  modalities: string[];
}

async function dicomJson(path: string): Promise<DicomJson[]> {
  const response = await fetch(path, { headers: { ...authHeaders(), accept: 'application/dicom+json' } });
  if (!response.ok) {
    // The shared client owns the session-expiry flow: let it see the 401.
    if (response.status === 401) await api('/api/v2/auth/validate').catch(() => undefined);
    throw new ApiError(response.status, '');
  }
  return (await response.json()) as DicomJson[];
}

export function useStudySeries(studyUid: string) {
  return useQuery({
    queryKey: ['dicom', studyUid, 'series'],
    queryFn: async (): Promise<SeriesInfo[]> =>
      (await dicomJson(`${DICOMWEB}/studies/${studyUid}/series`)).map((s) => ({
        uid: text(s, '0020000E') ?? '',
        number: num(s, '00200011'),
        modality: text(s, '00080060'),
        description: text(s, '0008103E'),
        instances: num(s, '00201209') ?? 0,
      })),
    staleTime: 60_000,
    retry: false,
  });
}

/** The study's overlay facts, from the first instance's metadata. */
export function useStudyInfo(studyUid: string, seriesUid: string | null) {
  return useQuery({
    queryKey: ['dicom', studyUid, seriesUid, 'info'],
    enabled: !!seriesUid,
    queryFn: async (): Promise<{ study: StudyInfo; instances: InstanceInfo[] }> => {
      const list = await dicomJson(`${DICOMWEB}/studies/${studyUid}/series/${seriesUid}/instances`);
      const instances = list.map((i) => ({
        sopUid: text(i, '00080018') ?? '',
        number: num(i, '00200013'),
        frames: num(i, '00280008') ?? 1,
        transferSyntax: text(i, '00083002'),
      }));
      const [meta] = await dicomJson(
        `${DICOMWEB}/studies/${studyUid}/series/${seriesUid}/instances/${instances[0]?.sopUid}/metadata`,
      );
      const study = meta ?? {};
      return {
        instances,
        study: {
          patientName: text(study, '00100010')?.replace(/\^/g, ' ').trim() ?? null,
          studyDate: text(study, '00080020'),
          description: text(study, '00081030'),
          modalities: [text(study, '00080060')].filter((m): m is string => !!m),
        },
      };
    },
    staleTime: 60_000,
    retry: false,
  });
}

/** Transfer syntaxes dwv decodes itself: native little and big endian, JPEG, JPEG 2000, RLE. */
const DECODED_IN_BROWSER = new Set([
  '1.2.840.10008.1.2',
  '1.2.840.10008.1.2.1',
  '1.2.840.10008.1.2.2',
  '1.2.840.10008.1.2.4.50',
  '1.2.840.10008.1.2.4.51',
  '1.2.840.10008.1.2.4.57',
  '1.2.840.10008.1.2.4.70',
  '1.2.840.10008.1.2.4.90',
  '1.2.840.10008.1.2.4.91',
  '1.2.840.10008.1.2.5',
]);

/**
 * The Accept of a series' files: as stored, or, when one of them is in a syntax the browser cannot
 * decode (JPEG-LS, or a deflated data set), Explicit VR Little Endian, which the server decodes or
 * inflates them to.
 */
export function instanceAccept(instances: InstanceInfo[]): string {
  const decodable = instances.every((i) => !i.transferSyntax || DECODED_IN_BROWSER.has(i.transferSyntax));
  return decodable ? 'application/dicom' : 'application/dicom; transfer-syntax=1.2.840.10008.1.2.1';
}

/** The URL of one instance as a bare Part 10 file (what the renderer loads). */
export function instanceUrl(studyUid: string, seriesUid: string, sopUid: string): string {
  return `${DICOMWEB}/studies/${studyUid}/series/${seriesUid}/instances/${sopUid}`;
}
