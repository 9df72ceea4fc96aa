import { ActionIcon, Group, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { FitIcon, ZoomInIcon, ZoomOutIcon } from '../icons';
import { percent } from './zoom';

/** The viewers' zoom controls: out, the zoom read out as a percentage, in, and back to fit. */
export function ZoomBar(props: {
  zoom: number;
  canZoomIn: boolean;
  canZoomOut: boolean;
  onZoomIn: () => void;
  onZoomOut: () => void;
  onFit: () => void;
  fitLabel: string;
  children?: ReactNode;
}) {
  const { t } = useTranslation('results');
  return (
    <Group gap={4} justify="space-between" wrap="nowrap" mb={6} data-testid="zoom-bar">
      <Group gap={4} wrap="nowrap">
        <ActionIcon
          variant="default"
          size="lg"
          aria-label={t('viewer.zoomOut')}
          disabled={!props.canZoomOut}
          onClick={props.onZoomOut}
        >
          <ZoomOutIcon />
        </ActionIcon>
        <Text size="sm" w={52} ta="center" aria-live="polite" data-testid="zoom-level">
          {percent(props.zoom)}
        </Text>
        <ActionIcon
          variant="default"
          size="lg"
          aria-label={t('viewer.zoomIn')}
          disabled={!props.canZoomIn}
          onClick={props.onZoomIn}
        >
          <ZoomInIcon />
        </ActionIcon>
        <ActionIcon
          variant="default"
          size="lg"
          aria-label={props.fitLabel}
          title={props.fitLabel}
          onClick={props.onFit}
        >
          <FitIcon />
        </ActionIcon>
      </Group>
      {props.children}
    </Group>
  );
}
