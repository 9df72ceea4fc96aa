import { Group, Pagination, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** Pages of a list, with its total. */
export function Pager(props: { page: number; size: number; total: number; onChange: (page: number) => void }) {
  const { t } = useTranslation();
  const pages = Math.max(1, Math.ceil(props.total / props.size));
  return (
    <Group justify="space-between">
      <Text size="sm" c="dimmed" aria-live="polite">
        {t('common.total', { count: props.total })}
      </Text>
      {pages > 1 ? (
        <Pagination
          total={pages}
          value={props.page}
          onChange={props.onChange}
          size="sm"
          getControlProps={(control) => ({ 'aria-label': t(`common.pager.${control}`) })}
          getItemProps={(page) => ({ 'aria-label': t('common.pager.page', { page }) })}
        />
      ) : null}
    </Group>
  );
}
