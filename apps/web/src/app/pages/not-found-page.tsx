import { Button, Container, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { usePageTitle } from '../../lib/use-page-title';

export function NotFoundPage() {
  const { t } = useTranslation();
  usePageTitle(t('notFound.title'));
  return (
    <Container size="sm" py={48}>
      <Stack align="center" gap="md" ta="center">
        <Text fw={800} fz={56} c="medical.7" lh={1} aria-hidden="true">
          404
        </Text>
        <Title order={1} data-testid="not-found-title">
          {t('notFound.title')}
        </Title>
        <Text>{t('notFound.text')}</Text>
        <Button component={Link} to="/login">
          {t('notFound.back')}
        </Button>
      </Stack>
    </Container>
  );
}
