import '@mantine/core/styles/Modal.css';
import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import type { ExamHold } from '@portal/shared/schemas/delivery';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../lib/api-client';
import { formatExamDate } from '../lib/dates';
import { errorText } from '../lib/errors';
import { notify } from '../lib/notify';
import { StatusBadge } from './status-badge';

/**
 * Release holds (issue 22): what a held result says. On the patient's side the words "held by the
 * institution" and the institution's own text (or the portal's default), with when it ends for a
 * hold of N hours; for the requesting physician, that the patient does not see it yet.
 */
export function HoldNotice({ hold }: { hold: ExamHold }) {
  const { t } = useTranslation('results');
  if (!hold.withheld) {
    return (
      <Text size="xs" c="dimmed" data-testid="hold-physician">
        {t(`hold.forPhysician.${hold.rule}`)}
      </Text>
    );
  }
  const until = hold.until ? formatExamDate(hold.until, true) : null;
  return (
    <Stack gap={2} data-testid="hold-notice">
      <Text size="sm">{hold.message ?? t(`hold.defaultMessage.${hold.rule}`)}</Text>
      {until && (
        <Text size="xs" c="dimmed">
          {t('hold.until', { date: until })}
        </Text>
      )}
    </Stack>
  );
}

/** The held status in words, beside the exam's name. */
export function HoldBadge({ hold }: { hold: ExamHold }) {
  const { t } = useTranslation('results');
  return <StatusBadge tone="warning">{hold.withheld ? t('hold.status') : t('hold.statusPhysician')}</StatusBadge>;
}

/**
 * Which exam's release is being confirmed, kept by the exams' table above its switch between
 * table rows and phone cards: the row is drawn anew when the window crosses 768 px (a phone turned,
 * a window resized), and the dialog must stay open through that.
 */
export const ReleaseConfirmation = createContext<[string | null, (examId: string | null) => void] | null>(null);

function useConfirming(examId: string): [boolean, (open: boolean) => void] {
  const shared = useContext(ReleaseConfirmation);
  const own = useState<string | null>(null);
  const [confirming, setConfirming] = shared ?? own;
  return [confirming === examId, (open) => setConfirming(open ? examId : null)];
}

/** "Release to the patient", with a confirmation, for the requesting physician. */
export function ReleaseButton({ examId, description }: { examId: string; description: string }) {
  const { t } = useTranslation(['results', 'common']);
  const [open, setOpen] = useConfirming(examId);
  const client = useQueryClient();
  const release = useMutation({
    mutationFn: () =>
      api<{ examId: string; releasedAt: string }>(`/api/v2/delivery/exams/${examId}/release`, { method: 'POST' }),
    onSuccess: async () => {
      setOpen(false);
      notify('success', t('results:hold.released', { exam: description }));
      await Promise.all([
        client.invalidateQueries({ queryKey: ['protocol'] }),
        client.invalidateQueries({ queryKey: ['protocols'] }),
        client.invalidateQueries({ queryKey: ['protocol-exams'] }),
      ]);
    },
    onError: (error: unknown) => notify('error', errorText(error)),
  });
  return (
    <>
      <Button
        size="compact-sm"
        variant="default"
        onClick={() => setOpen(true)}
        aria-label={t('results:hold.releaseOf', { exam: description })}
        data-testid="release-hold"
      >
        {t('results:hold.release')}
      </Button>
      <Modal
        opened={open}
        onClose={() => setOpen(false)}
        title={t('results:hold.confirmTitle')}
        closeButtonProps={{ 'aria-label': t('common:actions.close') }}
        centered
      >
        <Stack>
          <Text size="sm">{t('results:hold.confirmText', { exam: description })}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setOpen(false)}>
              {t('results:hold.cancel')}
            </Button>
            <Button loading={release.isPending} onClick={() => release.mutate()} data-testid="confirm-release">
              {t('results:hold.confirm')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
