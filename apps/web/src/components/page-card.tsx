import { Container, Paper, Stack, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** The frame of the public form screens: one card, one h1, phone-first width. */
export function PageCard({ title, children, width = 560 }: { title: string; children: ReactNode; width?: number }) {
  return (
    <Container size={width} px="sm" py="lg">
      <Paper withBorder shadow="sm" p={{ base: 'md', sm: 'xl' }} radius="lg">
        <Stack gap="lg">
          <Title order={1} size="h2">
            {title}
          </Title>
          {children}
        </Stack>
      </Paper>
    </Container>
  );
}
