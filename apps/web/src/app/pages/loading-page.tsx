import { Center, Loader, Stack, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { usePageTitle } from '../../lib/use-page-title';

const WAIT: Record<string, string> = { 'pt-BR': 'Carregando…', es: 'Cargando…', en: 'Loading…' };

/**
 * Shown while a screen or the texts are still downloading, before translations are available.
 * `data-loading-screen` tells a screen drawn at build time that the app is not ready to replace it
 * yet (lib/drawn-screen.ts).
 */
export function FullPageLoader() {
  const label = (typeof document === 'undefined' ? undefined : WAIT[document.documentElement.lang]) ?? WAIT['pt-BR'];
  return (
    <Center mih="60vh" role="status" aria-live="polite" data-loading-screen="">
      <Loader aria-hidden="true" />
      <span style={{ position: 'absolute', left: -9999 }}>{label}</span>
    </Center>
  );
}

/** Spec 2.1 /loading. */
export function LoadingPage({ message }: { message?: string }) {
  const { t } = useTranslation();
  usePageTitle(t('loading.title'));
  return (
    <Center mih="60vh" role="status" aria-live="polite">
      <Stack align="center" gap="sm">
        <Loader aria-hidden="true" />
        <Title order={1} size="h4" fw={500}>
          {message ?? t('loading.text')}
        </Title>
      </Stack>
    </Center>
  );
}
