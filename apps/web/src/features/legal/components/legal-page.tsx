import { Alert, Container, Loader, Paper, Stack, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { AlertIcon } from '../../../components/icons';
import { TermText } from '../../../components/term-text';
import { type TermType, useCurrentTerms } from '../../../lib/terms-api';
import { usePageTitle } from '../../../lib/use-page-title';

/** The current patient version of a term, as the server keeps it (so the page and the modals agree). */
export function LegalPage({ kind }: { kind: TermType }) {
  const { t } = useTranslation();
  const title = kind === 'PP' ? t('legal.privacyPolicy') : t('legal.termsOfUse');
  usePageTitle(title);
  const terms = useCurrentTerms('PATIENT');
  const term = terms.data?.find((item) => item.termType === kind);
  return (
    <Container size={760} px="sm" py="lg">
      <Paper withBorder p={{ base: 'md', sm: 'xl' }} radius="lg">
        <Stack gap="md">
          <Title order={1} size="h2">
            {title}
          </Title>
          {terms.isPending && <Loader aria-label={t('loading.text')} />}
          {(terms.isError || (terms.isSuccess && !term)) && (
            <Alert color="yellow" icon={<AlertIcon />}>
              {t('legal.loadFailed')}
            </Alert>
          )}
          {term && <TermText text={term.data} titleOrder={2} />}
        </Stack>
      </Paper>
    </Container>
  );
}
