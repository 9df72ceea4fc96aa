import { Paper, SimpleGrid, Stack, Table, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export interface Column<T> {
  label: string;
  cell: (row: T) => ReactNode;
  numeric?: boolean;
}

/**
 * A list as a table on wide screens and as one card per row on phones, so a 390 px screen never
 * scrolls sideways and every value keeps its label.
 */
export function DataTable<T>(props: { caption: string; columns: Column<T>[]; rows: T[]; rowKey: (row: T) => string }) {
  const { t } = useTranslation();
  const phone = useMediaQuery('(max-width: 48em)');
  if (props.rows.length === 0) return <Text c="dimmed">{t('common.empty')}</Text>;
  if (phone) {
    return (
      <Stack gap="sm" role="list" aria-label={props.caption}>
        {props.rows.map((row) => (
          <Paper key={props.rowKey(row)} withBorder p="sm" role="listitem">
            <SimpleGrid cols={1} spacing={4}>
              {props.columns.map((column, i) => (
                <div key={i}>
                  <Text size="xs" c="dimmed" component="span">
                    {column.label}:{' '}
                  </Text>
                  <Text size="sm" component="span" className={column.numeric ? 'numeric' : undefined}>
                    {column.cell(row)}
                  </Text>
                </div>
              ))}
            </SimpleGrid>
          </Paper>
        ))}
      </Stack>
    );
  }
  return (
    <Table striped highlightOnHover withTableBorder verticalSpacing="xs">
      <Table.Caption style={{ captionSide: 'top', textAlign: 'left' }}>{props.caption}</Table.Caption>
      <Table.Thead>
        <Table.Tr>
          {props.columns.map((column, i) => (
            <Table.Th key={i} style={column.numeric ? { textAlign: 'right' } : undefined}>
              {column.label}
            </Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {props.rows.map((row) => (
          <Table.Tr key={props.rowKey(row)}>
            {props.columns.map((column, i) => (
              <Table.Td
                key={i}
                className={column.numeric ? 'numeric' : undefined}
                style={column.numeric ? { textAlign: 'right' } : undefined}
              >
                {column.cell(row)}
              </Table.Td>
            ))}
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
