import { Paper, SimpleGrid, Stack, Table, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { createContext, type ReactNode, useContext, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';

export interface Column<T> {
  label: string;
  cell: (row: T) => ReactNode;
  numeric?: boolean;
}

interface RowDialogs {
  /** The row whose cells are drawn. */
  row: string;
  /** The dialog open in this list (row and dialog name), if any. */
  open: string | null;
  setOpen: (key: string | null) => void;
}

const RowDialogsContext = createContext<RowDialogs | null>(null);

/**
 * Whether the dialog `name` of the enclosing list row is open, kept by the list itself: a phone's
 * cards and a desk's table are different elements, and a dialog held by the row's own button would
 * close when the window crosses the width between them or the row is drawn again. Outside a list,
 * null (the caller keeps its own state).
 */
export function useRowDialog(name: string): [boolean, (open: boolean) => void] | null {
  const scope = useContext(RowDialogsContext);
  if (!scope) return null;
  const key = `${scope.row}\u0000${name}`;
  return [scope.open === key, (open) => scope.setOpen(open ? key : null)];
}

function RowScope(props: {
  row: string;
  open: string | null;
  setOpen: (key: string | null) => void;
  children: ReactNode;
}) {
  const { row, open, setOpen } = props;
  const value = useMemo(() => ({ row, open, setOpen }), [row, open, setOpen]);
  return <RowDialogsContext.Provider value={value}>{props.children}</RowDialogsContext.Provider>;
}

/**
 * A list as a table on wide screens and as one card per row on phones, so a 390 px screen never
 * scrolls sideways and every value keeps its label.
 */
export function DataTable<T>(props: { caption: string; columns: Column<T>[]; rows: T[]; rowKey: (row: T) => string }) {
  const { t } = useTranslation();
  const phone = useMediaQuery('(max-width: 48em)');
  // Above the switch between cards and table: a row's open dialog survives it.
  const [open, setOpen] = useState<string | null>(null);
  if (props.rows.length === 0) return <Text c="dimmed">{t('common.empty')}</Text>;
  if (phone) {
    return (
      <Stack gap="sm" role="list" aria-label={props.caption}>
        {props.rows.map((row) => (
          <Paper key={props.rowKey(row)} withBorder p="sm" role="listitem">
            <RowScope row={props.rowKey(row)} open={open} setOpen={setOpen}>
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
            </RowScope>
          </Paper>
        ))}
      </Stack>
    );
  }
  return (
    // A table wider than the screen (the dashboard's many figures) scrolls within itself, not the page.
    <Table.ScrollContainer minWidth={0} type="native">
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
              <RowScope row={props.rowKey(row)} open={open} setOpen={setOpen}>
                {props.columns.map((column, i) => (
                  <Table.Td
                    key={i}
                    className={column.numeric ? 'numeric' : undefined}
                    style={column.numeric ? { textAlign: 'right' } : undefined}
                  >
                    {column.cell(row)}
                  </Table.Td>
                ))}
              </RowScope>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
