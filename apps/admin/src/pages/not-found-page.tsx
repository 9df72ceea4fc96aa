import { Anchor, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { Page } from '../components/page';

export function NotFoundPage() {
  const { t } = useTranslation();
  return (
    <Page title={t('notFound.title')}>
      <Text>{t('notFound.text')}</Text>
      <Anchor component={Link} to="/dashboard">
        {t('nav.dashboard')}
      </Anchor>
    </Page>
  );
}
