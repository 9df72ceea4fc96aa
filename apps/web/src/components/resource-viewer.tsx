import { Alert, Anchor, Button, Center, Group, Loader, Modal, Stack, Text } from '@mantine/core';
import { TOAST_MS } from '@portal/shared/limits';
import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../lib/api-client';
import { errorText, isServerError } from '../lib/errors';
import { notify } from '../lib/notify';
import { ImageViewer } from './file-viewer/image-viewer';
import { DownloadIcon } from './icons';
import { type DownloadedFile, fetchFile, saveFile, useMarkRead } from './results-api';
import { usePhone } from '../lib/use-phone';

interface Shown {
  title: string;
  url: string;
  file: DownloadedFile;
  /** Set for a single PDF report: the download asks for its stamped copy (issue 22.3). */
  stamped?: { resourceId: string; request: string };
}

type Kind = 'report' | 'image' | 'signature';

// pdf.js (about 1.5 MB with its worker) is downloaded the first time a report opens, never before.
const PdfViewer = lazy(() => import('./file-viewer/pdf-viewer'));

/**
 * Opens reports and images in an in-page viewer (a blob URL, so the bearer token never goes into
 * a link) and marks them read on screen as soon as the server has served them (spec 4.2).
 */
export function useResourceOpener() {
  const { t } = useTranslation('results');
  const markRead = useMarkRead();
  // A phone gives the file the whole screen; the frame below the toolbar takes what is left of it.
  const phone = usePhone();
  const frameHeight = phone ? 'calc(100dvh - 150px)' : 'min(75vh, 900px)';
  const [shown, setShown] = useState<Shown | null>(null);
  const [busy, setBusy] = useState<string | null>(null);

  useEffect(() => () => (shown ? URL.revokeObjectURL(shown.url) : undefined), [shown]);

  const open = useCallback(
    async (
      kind: Kind,
      resourceId: string,
      target: { requestId: string; examIds: readonly string[] | 'all'; title: string },
      showAll = false,
    ) => {
      setBusy(`${kind}:${resourceId}:${showAll}`);
      try {
        const file = await fetchFile(`/api/v2/delivery/resource/${kind}`, {
          query: { resourceId, request: target.requestId, showAll: showAll || undefined },
        });
        if (kind === 'signature') {
          saveFile(file);
          return;
        }
        markRead(target.requestId, target.examIds);
        // A single PDF report downloads as its copy with the verification code in the margin.
        const stampable = kind === 'report' && !showAll && file.blob.type === 'application/pdf';
        setShown({
          title: target.title,
          url: URL.createObjectURL(file.blob),
          file,
          stamped: stampable ? { resourceId, request: target.requestId } : undefined,
        });
      } catch (error) {
        const status = error instanceof ApiError ? error.status : 0;
        if (status === 401) return;
        if (isServerError(error)) notify('error', errorText(error), TOAST_MS.long);
        else if (status === 404 || status === 409 || status === 410)
          notify('info', t('detail.unavailable'), TOAST_MS.long);
        else notify('error', errorText(error), TOAST_MS.long);
      } finally {
        setBusy(null);
      }
    },
    [markRead, t],
  );

  const download = useCallback(async (what: Shown) => {
    if (!what.stamped) return saveFile(what.file);
    try {
      saveFile(await fetchFile('/api/v2/delivery/resource/report', { query: { ...what.stamped, stamp: true } }));
    } catch {
      // The copy could not be made: the report as it was received still downloads.
      saveFile(what.file);
    }
  }, []);

  const viewer = (
    <Modal
      opened={shown !== null}
      onClose={() => setShown(null)}
      title={shown?.title}
      size="min(1100px, 96vw)"
      fullScreen={phone}
      padding={phone ? 'xs' : 'md'}
      closeButtonProps={{ 'aria-label': t('viewer.close') }}
    >
      {shown && (
        <Stack gap={6}>
          <Group gap="sm">
            <Button
              size="xs"
              variant="light"
              leftSection={<DownloadIcon size={16} />}
              onClick={() => void download(shown)}
            >
              {t('viewer.download')}
            </Button>
            {!phone && (
              <Anchor href={shown.url} target="_blank" rel="noopener" size="sm">
                {t('viewer.newTab')}
              </Anchor>
            )}
          </Group>
          {shown.file.leftOut > 0 && (
            <Alert color="yellow" variant="light" role="status" data-testid="reports-left-out">
              {t('viewer.leftOut', { count: shown.file.leftOut })}
            </Alert>
          )}
          {shown.file.blob.type.startsWith('image/') ? (
            <ImageViewer url={shown.url} title={shown.title} height={frameHeight} />
          ) : shown.file.blob.type === 'application/pdf' ? (
            <Suspense
              fallback={
                <Center h={frameHeight}>
                  <Loader size="sm" aria-label={t('viewer.loading')} />
                </Center>
              }
            >
              <PdfViewer blob={shown.file.blob} title={shown.title} height={frameHeight} />
            </Suspense>
          ) : (
            <Text size="sm">{t('viewer.noPreview')}</Text>
          )}
        </Stack>
      )}
    </Modal>
  );

  return { open, busy, viewer };
}
