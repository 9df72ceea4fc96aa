import { Alert } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { InfoIcon } from './icons';

/** Spec 1 and 6: the administration system is no longer part of this portal. */
export function AdminMovedNotice() {
  const { t } = useTranslation();
  return (
    <Alert variant="light" color="medical" icon={<InfoIcon />} title={t('adminMoved.title')}>
      {t('adminMoved.text')}
    </Alert>
  );
}
