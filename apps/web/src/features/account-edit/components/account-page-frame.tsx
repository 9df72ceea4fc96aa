import { Alert, Anchor, Container, Group, Loader, Stack, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { AlertIcon, ArrowLeftIcon } from '../../../components/icons';
import { errorText } from '../../../lib/errors';
import { usePageTitle } from '../../../lib/use-page-title';

/** The frame of the account screens: title, Back to landing, loading and failure states. */
export function AccountPageFrame({
  loading,
  error,
  children,
}: {
  loading: boolean;
  error: unknown;
  children: ReactNode;
}) {
  const { t } = useTranslation(['account', 'common']);
  usePageTitle(t('edit.title'));
  return (
    <Container size={760} px="sm" py="lg">
      <Stack gap="md">
        <Anchor component={Link} to="/landing/" size="sm" w="fit-content">
          <Group gap={4} component="span">
            <ArrowLeftIcon size={16} />
            {t('common:actions.back')}
          </Group>
        </Anchor>
        <Title order={1} size="h2">
          {t('edit.title')}
        </Title>
        {loading && <Loader aria-label={t('common:loading.text')} />}
        {Boolean(error) && (
          <Alert color="red" icon={<AlertIcon />} role="alert">
            {errorText(error)}
          </Alert>
        )}
        {!loading && !error && children}
      </Stack>
    </Container>
  );
}
