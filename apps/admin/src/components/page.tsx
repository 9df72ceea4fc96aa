import { Center, Paper, Stack, Title } from '@mantine/core';
import { type ReactNode, useEffect } from 'react';
import { useTranslation } from 'react-i18next';

/** Names the browser tab after the screen, then the console. */
export function useDocumentTitle(title: string): void {
  const { t } = useTranslation();
  useEffect(() => {
    document.title = `${title} · ${t('layout.title')}`;
  }, [title, t]);
}

/** A console screen: its heading, and the document title naming it. */
export function Page({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  useDocumentTitle(title);
  return (
    <Stack gap="md" maw={1200}>
      <Stack gap="xs">
        <Title order={2}>{title}</Title>
        {actions}
      </Stack>
      {children}
    </Stack>
  );
}

/** A screen outside the console's frame (sign-in, first password): one card in the middle. */
export function CardScreen({ width, children }: { width: number; children: ReactNode }) {
  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="xl" radius="md" w="100%" maw={width}>
        {children}
      </Paper>
    </Center>
  );
}
