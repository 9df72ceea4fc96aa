import { Container, Paper, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { AdminMovedNotice } from '../../../components/admin-moved-notice';
import { usePageTitle } from '../../../lib/use-page-title';
import { LoginPanels } from './login-panels';

/** Spec 2.4: /login, titled 'results delivery'. */
export default function LoginPage() {
  const { t } = useTranslation('auth');
  usePageTitle(t('login.pageTitle'));
  return (
    <Container size={440} px="sm" py="lg">
      <Stack gap="md">
        <Paper withBorder shadow="sm" p={{ base: 'md', sm: 'xl' }} radius="lg">
          <Stack gap="lg">
            <Stack gap={4}>
              <Title order={1} size="h2">
                {t('login.title')}
              </Title>
              <Text size="sm" c="dimmed">
                {t('login.subtitle')}
              </Text>
            </Stack>
            <LoginPanels />
          </Stack>
        </Paper>
        <AdminMovedNotice />
      </Stack>
    </Container>
  );
}
