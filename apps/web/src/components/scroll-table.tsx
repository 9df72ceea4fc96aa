import '@mantine/core/styles/Table.css';
import { Table } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * A table that scrolls sideways on narrow screens. The scrolling box is a named region that
 * takes the keyboard's focus, so people who do not use a mouse can scroll it with the arrows.
 */
export function ScrollTable({ label, minWidth, children }: { label: string; minWidth: number; children: ReactNode }) {
  return (
    <Table.ScrollContainer minWidth={minWidth} type="native" tabIndex={0} role="region" aria-label={label}>
      {children}
    </Table.ScrollContainer>
  );
}
