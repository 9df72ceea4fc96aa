import '@mantine/core/styles/Badge.css';
import { Badge } from '@mantine/core';
import type { ReactNode } from 'react';

// Mantine's light badges keep their text below 4.5:1 on the tinted background; these pairs keep 7:1 (AAA).
const TONES = {
  success: { bg: '#e6f4ea', fg: '#124a16' },
  warning: { bg: '#fff4d6', fg: '#6b4500' },
  neutral: { bg: '#eceff1', fg: '#37414a' },
  danger: { bg: '#fdecea', fg: '#8e1b1b' },
} as const;

export function StatusBadge({
  tone,
  icon,
  children,
}: {
  tone: keyof typeof TONES;
  icon?: ReactNode;
  children: ReactNode;
}) {
  const colors = TONES[tone];
  return (
    <Badge variant="filled" bg={colors.bg} c={colors.fg} leftSection={icon} style={{ textTransform: 'none' }}>
      {children}
    </Badge>
  );
}
