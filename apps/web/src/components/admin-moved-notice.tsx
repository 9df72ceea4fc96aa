import { Alert, Anchor, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { InfoIcon } from './icons';

/** Spec 1 and 6, contract 9: the administration lives in its own console, at /admin/. */
export function AdminMovedNotice() {
  const { t } = useTranslation();
  return (
    <Alert variant="light" color="medical" icon={<InfoIcon />} title={t('adminMoved.title')}>
      <Text size="sm">{t('adminMoved.text')}</Text>
      {/* A plain link: the console is another app, outside this router. */}
      <Anchor href="/admin/" fw={600} size="sm">
        {t('adminMoved.link')}
      </Anchor>
    </Alert>
  );
}
