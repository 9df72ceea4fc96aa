import '@mantine/core/styles/Progress.css';
import { Button, Group, Progress, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { TOAST_MS } from '@portal/shared/limits';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText, isServerError } from '../../../lib/errors';
import { notify } from '../../../lib/notify';
import { markExamsRead } from '../../../components/results-api';
import { batchPrint } from '../api/batch-print-api';

interface Progressing {
  received: number;
  total: number | null;
}

function size(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}

/**
 * Print and compact print of the selected protocols (spec 2.7, 4.8): a toast asks yes or no; yes
 * prints, no cancels and clears the selection. The download shows its progress while it streams.
 */
export function PrintBar({
  selected,
  clear,
  userId,
}: {
  selected: ReadonlySet<string>;
  clear: () => void;
  userId: string | null;
}) {
  const { t } = useTranslation('results');
  const [progress, setProgress] = useState<Progressing | null>(null);
  const client = useQueryClient();

  const run = async (compressed: boolean) => {
    setProgress({ received: 0, total: null });
    const printed = [...selected];
    try {
      const { fileName: name, leftOut } = await batchPrint(printed, compressed, userId, (received, total) =>
        setProgress({ received, total }),
      );
      // Spec 4.2: the server marked the printed protocols read; the list says so at once.
      for (const requestId of printed) markExamsRead(client, requestId, 'all');
      // A report that could not be merged has a page of its own in the PDF; the reader is told how many.
      if (leftOut > 0) notify('warning', t('print.doneLeftOut', { name, count: leftOut }), TOAST_MS.long);
      else notify('success', t('print.done', { name }), TOAST_MS.long);
    } catch (error) {
      // Spec 8: a 5xx is an error toast for 5 s; the server's 4xx texts are warnings.
      notify(isServerError(error) ? 'error' : 'warning', errorText(error), TOAST_MS.long);
    } finally {
      setProgress(null);
    }
  };

  const ask = (compressed: boolean) => {
    if (selected.size === 0) {
      notify('warning', t('print.empty'), TOAST_MS.long);
      return;
    }
    const id = `print-confirm-${Date.now()}`;
    notifications.show({
      id,
      color: 'blue',
      withBorder: true,
      autoClose: TOAST_MS.long,
      closeButtonProps: { 'aria-label': t('modal.close') },
      title: t(compressed ? 'print.confirmCompactTitle' : 'print.confirmTitle'),
      message: (
        <Stack gap="xs">
          <Text size="sm" c="dark.7">
            {t('print.confirm', { count: selected.size })}
          </Text>
          <Group gap="xs">
            <Button
              size="compact-sm"
              onClick={() => {
                notifications.hide(id);
                void run(compressed);
              }}
            >
              {t('print.yes')}
            </Button>
            <Button
              size="compact-sm"
              variant="default"
              onClick={() => {
                notifications.hide(id);
                clear();
              }}
            >
              {t('print.no')}
            </Button>
          </Group>
        </Stack>
      ),
    });
  };

  return (
    <Stack gap={6}>
      <Group gap="sm" wrap="wrap">
        <Text size="sm" aria-live="polite" data-testid="selection-count">
          {t('print.selected', { count: selected.size })}
        </Text>
        <Button size="sm" onClick={() => ask(false)} disabled={progress !== null}>
          {t('print.print')}
        </Button>
        <Button size="sm" variant="light" onClick={() => ask(true)} disabled={progress !== null}>
          {t('print.compact')}
        </Button>
      </Group>
      {progress && (
        <Stack gap={2} aria-live="polite" data-testid="print-progress">
          <Text size="xs">
            {t('print.progress', {
              received: size(progress.received),
              total: progress.total ? size(progress.total) : '…',
            })}
          </Text>
          <Progress
            value={progress.total ? (100 * progress.received) / progress.total : 100}
            animated={!progress.total}
            aria-label={t('print.progressLabel')}
          />
        </Stack>
      )}
    </Stack>
  );
}
