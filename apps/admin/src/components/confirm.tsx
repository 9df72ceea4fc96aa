import { Button, Group, Modal, Text } from '@mantine/core';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useRowDialog } from './data-table';

/**
 * A destructive action: the button opens a dialog saying what will happen, and only its confirm
 * button does it.
 */
export function ConfirmButton(props: {
  label: string;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<unknown> | void;
  color?: string;
  disabled?: boolean;
  /** The confirm button waits for what the dialog asks (a reason, for instance). */
  confirmDisabled?: boolean;
  size?: string;
  children?: ReactNode;
}) {
  const { t } = useTranslation();
  // In a list row, the list keeps whether the dialog is open (it outlives the row's elements).
  const row = useRowDialog(props.title);
  const [ownOpen, setOwnOpen] = useState(false);
  const [open, setOpen] = row ?? [ownOpen, setOwnOpen];
  const [busy, setBusy] = useState(false);
  const confirm = async () => {
    setBusy(true);
    try {
      await props.onConfirm();
      setOpen(false);
    } catch {
      // The action reported its own failure; the dialog stays open to try again or cancel.
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Button
        size={props.size ?? 'xs'}
        variant="light"
        color={props.color ?? 'red'}
        disabled={props.disabled}
        onClick={() => setOpen(true)}
      >
        {props.label}
      </Button>
      <Modal
        opened={open}
        onClose={() => setOpen(false)}
        title={props.title}
        centered
        closeButtonProps={{ 'aria-label': t('common.close') }}
      >
        <Text mb="md">{props.description}</Text>
        {props.children}
        <Group justify="flex-end" mt="md">
          <Button variant="default" onClick={() => setOpen(false)}>
            {t('common.cancel')}
          </Button>
          <Button
            color={props.color ?? 'red'}
            loading={busy}
            disabled={props.confirmDisabled}
            onClick={() => void confirm()}
          >
            {props.confirmLabel}
          </Button>
        </Group>
      </Modal>
    </>
  );
}
