import { Button, Group, Modal, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

/** Spec 2.9: the e-mail is already registered; offer password recovery instead. */
export function AlreadyRegisteredModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const { t } = useTranslation(['account', 'common']);
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={t('patientCreate.alreadyTitle')}
      centered
      closeButtonProps={{ 'aria-label': t('common:actions.close') }}
    >
      <Text size="sm" mb="md">
        {t('patientCreate.alreadyText')}
      </Text>
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose}>
          {t('common:actions.close')}
        </Button>
        <Button component={Link} to="/login?toPassWordRecovery=true">
          {t('patientCreate.recoverPassword')}
        </Button>
      </Group>
    </Modal>
  );
}
