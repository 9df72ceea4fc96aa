import { Button, Group, Modal, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

const SEEN_KEY = 'portal.scamWarningSeen';

/** Spec 1: once per visit, warn against people asking payment for results delivered at home. */
export function ScamWarningModal() {
  const { t } = useTranslation();
  const [opened, setOpened] = useState(() => sessionStorage.getItem(SEEN_KEY) !== '1');
  const close = () => {
    sessionStorage.setItem(SEEN_KEY, '1');
    setOpened(false);
  };
  return (
    <Modal
      opened={opened}
      onClose={close}
      title={t('scam.title')}
      centered
      size="md"
      closeButtonProps={{ 'aria-label': t('actions.close') }}
    >
      <Text size="sm" mb="sm">
        {t('scam.text')}
      </Text>
      <Text size="sm" fw={600} mb="md">
        {t('scam.advice')}
      </Text>
      <Group justify="flex-end">
        <Button onClick={close} data-autofocus>
          {t('scam.understood')}
        </Button>
      </Group>
    </Modal>
  );
}
