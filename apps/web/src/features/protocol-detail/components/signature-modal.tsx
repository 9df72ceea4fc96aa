import '@mantine/core/styles/List.css';
import { Anchor, Button, List, Modal, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';

export const SIGNATURE_VALIDATOR_URL = 'https://validar.iti.gov.br';

/** Spec 2.9: how to verify a report's ICP-Brasil signature on the government's validator. */
export function SignatureModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const { t } = useTranslation('results');
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={t('signature.title')}
      closeButtonProps={{ 'aria-label': t('modal.close') }}
    >
      <Stack gap="sm">
        <Text size="sm">{t('signature.intro')}</Text>
        <List type="ordered" size="sm" spacing={4}>
          <List.Item>{t('signature.step1')}</List.Item>
          <List.Item>
            {t('signature.step2')}{' '}
            <Anchor href={SIGNATURE_VALIDATOR_URL} target="_blank" rel="noopener noreferrer">
              {SIGNATURE_VALIDATOR_URL}
            </Anchor>
          </List.Item>
          <List.Item>{t('signature.step3')}</List.Item>
          <List.Item>{t('signature.step4')}</List.Item>
        </List>
        <Button onClick={onClose} w="fit-content">
          {t('modal.ok')}
        </Button>
      </Stack>
    </Modal>
  );
}
