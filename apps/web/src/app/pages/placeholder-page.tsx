import { Alert, Button, Container, Stack, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { InfoIcon } from '../../components/icons';
import { usePageTitle } from '../../lib/use-page-title';

/** A screen of the spec that is not available yet: says so plainly instead of a blank page. */
export function PlaceholderPage({ path }: { path: string }) {
  const { t } = useTranslation();
  const name = t(`screens.${path}`, { defaultValue: path });
  usePageTitle(name);
  return (
    <Container size="sm" py="xl">
      <Stack gap="md">
        <Title order={1}>{name}</Title>
        <Alert variant="light" color="medical" icon={<InfoIcon />} title={t('placeholder.title')}>
          {t('placeholder.text')}
        </Alert>
        <Button component={Link} to="/landing/" variant="light" w="fit-content">
          {t('actions.backToStart')}
        </Button>
      </Stack>
    </Container>
  );
}
