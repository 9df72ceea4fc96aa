import { Stack, Title } from '@mantine/core';
import { type ReactNode, useEffect } from 'react';
import { useTranslation } from 'react-i18next';

/** A console screen: its heading, and the document title naming it. */
export function Page({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  const { t } = useTranslation();
  useEffect(() => {
    document.title = `${title} · ${t('layout.title')}`;
  }, [title, t]);
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
