import '@mantine/core/styles/Skeleton.css';
import { Skeleton } from '@mantine/core';
import { useEffect, useState } from 'react';
import { getToken } from '../lib/session';

export const DICOMWEB = '/api/dicomweb';

/** The viewer's route for a study, titled with the exam's description. */
export function studyPath(studyUid: string, title: string): string {
  return `/study/${encodeURIComponent(studyUid)}?exam=${encodeURIComponent(title)}`;
}

/** The bearer header of the session, for calls that cannot go through the JSON client (images, DICOM). */
export function authHeaders(): Record<string, string> {
  const token = getToken();
  return token ? { authorization: `Bearer ${token}` } : {};
}

/**
 * An image the server renders behind the session (a study's key image, a series thumbnail): an
 * <img> cannot send the bearer token, so it is fetched and shown from an object URL.
 */
export function AuthorizedImage({ path, alt, size }: { path: string; alt: string; size: number }) {
  const [url, setUrl] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let objectUrl: string | null = null;
    const abort = new AbortController();
    fetch(path, { headers: authHeaders(), signal: abort.signal, credentials: 'same-origin' })
      .then(async (response) => {
        if (!response.ok) throw new Error(String(response.status));
        objectUrl = URL.createObjectURL(await response.blob());
        setUrl(objectUrl);
      })
      .catch(() => {
        if (!abort.signal.aborted) setFailed(true);
      });
    return () => {
      abort.abort();
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [path]);
  if (failed) return null;
  if (!url) return <Skeleton width={size} height={size} radius="sm" />;
  return (
    <img
      src={url}
      alt={alt}
      width={size}
      height={size}
      style={{ objectFit: 'contain', background: '#000', borderRadius: 4, display: 'block' }}
    />
  );
}
