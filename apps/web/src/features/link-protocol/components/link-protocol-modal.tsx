import { Button, Group, Modal, PasswordInput, Stack, TextInput } from '@mantine/core';
import { TOAST_MS } from '@portal/shared/limits';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText, isServerError } from '../../../lib/errors';
import { notify } from '../../../lib/notify';
import { useLinkProtocolMutation } from '../api/link-protocol-api';

/** Spec 2.9 and 5: links a protocol to the patient's account with its number and password. */
export function LinkProtocolModal({
  opened,
  onClose,
  patientUserId,
  onLinked,
}: {
  opened: boolean;
  onClose: () => void;
  patientUserId: string;
  onLinked?: () => void;
}) {
  const { t } = useTranslation(['results', 'common']);
  const link = useLinkProtocolMutation();
  const [protocol, setProtocol] = useState('');
  const [password, setPassword] = useState('');
  const [touched, setTouched] = useState(false);
  const protocolError = touched && !protocol.trim() ? t('results:form.required') : null;
  const passwordError = touched && !password ? t('results:form.required') : null;

  const close = () => {
    setProtocol('');
    setPassword('');
    setTouched(false);
    link.reset();
    onClose();
  };

  const submit = () => {
    setTouched(true);
    if (!protocol.trim() || !password) return;
    link.mutate(
      { protocol: protocol.trim(), password, patientUserId },
      {
        onSuccess: () => {
          notify('success', t('results:link.success'), TOAST_MS.long);
          close();
          onLinked?.();
        },
        onError: (error) => notify(isServerError(error) ? 'error' : 'warning', errorText(error), TOAST_MS.long),
      },
    );
  };

  return (
    <Modal
      opened={opened}
      onClose={close}
      title={t('results:link.title')}
      closeButtonProps={{ 'aria-label': t('results:modal.close') }}
    >
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <Stack gap="md">
          <TextInput
            label={t('results:link.protocol')}
            required
            value={protocol}
            error={protocolError}
            onChange={(event) => setProtocol(event.currentTarget.value)}
            data-autofocus
          />
          <PasswordInput
            label={t('results:link.password')}
            required
            value={password}
            error={passwordError}
            onChange={(event) => setPassword(event.currentTarget.value)}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              {t('results:modal.cancel')}
            </Button>
            <Button type="submit" loading={link.isPending}>
              {t('results:link.submit')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
