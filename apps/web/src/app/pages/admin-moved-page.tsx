import { Button, Container, Stack, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { usePageTitle } from '../../lib/use-page-title';
import { AdminMovedNotice } from '../../components/admin-moved-notice';

export default function AdminMovedPage() {
  const { t } = useTranslation();
  usePageTitle(t('adminMoved.title'));
  return (
    <Container size="sm" py="xl">
      <Stack gap="md">
        <Title order={1}>{t('adminMoved.title')}</Title>
        <AdminMovedNotice />
        <Button component={Link} to="/login" w="fit-content">
          {t('notFound.back')}
        </Button>
      </Stack>
    </Container>
  );
}
