import { Button, Container, Group, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { isRouteErrorResponse, Link, useRouteError } from 'react-router';
import { NotFoundPage } from './not-found-page';

/**
 * A screen failed to render or its code could not be downloaded (a new version was deployed, the
 * connection dropped). Without this the whole app would go blank.
 */
export function RouteErrorPage() {
  const { t } = useTranslation();
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFoundPage />;
  return (
    <Container size="sm" py={48}>
      <Stack align="center" gap="md" ta="center" role="alert">
        <Title order={1}>{t('routeError.title')}</Title>
        <Text>{t('routeError.text')}</Text>
        <Group justify="center">
          <Button onClick={() => window.location.reload()}>{t('routeError.reload')}</Button>
          <Button component={Link} to="/login" variant="default" reloadDocument>
            {t('notFound.back')}
          </Button>
        </Group>
      </Stack>
    </Container>
  );
}
