import { Button, Group, Modal, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useStoredValue } from '../../lib/stored-value';

const SEEN_KEY = 'portal.scamWarningSeen';

/** Spec 1: once per visit, warn against people asking payment for results delivered at home. */
export function ScamWarningModal() {
  const { t } = useTranslation();
  const [seen, setSeen] = useStoredValue('sessionStorage', SEEN_KEY);
  const opened = seen !== '1';
  const close = () => setSeen('1');
  return (
    <Modal
      opened={opened}
      onClose={close}
      title={t('scam.title')}
      centered
      size="md"
      // In the page rather than a portal, so the sign-in screen drawn at build time shows it too.
      withinPortal={false}
      data-first-visit="scam-warning"
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
