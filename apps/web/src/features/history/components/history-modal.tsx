import '@mantine/core/styles/Combobox.css';
import '@mantine/core/styles/ScrollArea.css';
import '@mantine/core/styles/Table.css';
import { LineChart } from '@mantine/charts';
import '@mantine/charts/styles.css';
import { Alert, Button, Group, Loader, Modal, Select, Stack, Table, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { DELAY_MS, PATIENT_DATE_PRESETS, TOAST_MS } from '@portal/shared/limits';
import dayjs from 'dayjs';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AlertIcon } from '../../../components/icons';
import { ReferenceArea } from 'recharts';
import { type DateRange, presetRange, rangeQuery } from '../../../components/date-presets';
import { DateRangeFilter } from '../../../components/list-controls';
import { saveFile } from '../../../components/results-api';
import { formatCalendarDate, formatExamDate } from '../../../lib/dates';
import { errorText } from '../../../lib/errors';
import { currentLanguage, HTML_LANG } from '../../../lib/i18n';
import { notify } from '../../../lib/notify';
import { useAttributes, useExamTypes, useHistory } from '../api/history-api';
import { chartData, formatDecimal, localizeNumbers, rangeFlag, truncateCell } from '../history-format';
import { historyPdf } from '../history-pdf';
import { ScrollTable } from '../../../components/scroll-table';

// Spec 9: the history picker opens on the last 6 months (DEFAULT_RANGE.history).
const defaultRange = (): DateRange => presetRange('last6Months');

/** Spec 2.9 and 4.9: the patient's numeric results over time, as a table and a chart, printable to PDF. */
export function HistoryModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const { t } = useTranslation(['results', 'common']);
  const [range, setRange] = useState<DateRange>(defaultRange);
  const query = useMemo(() => rangeQuery(range), [range]);
  // Spec 4.9 and 9: the exam types load one second after the range settles.
  const [settled] = useDebouncedValue(query, DELAY_MS.historyTypeLoad);
  const ready = opened && settled.initialDate === query.initialDate && settled.finalDate === query.finalDate;
  const types = useExamTypes(settled, ready);
  // Spec 4.9: the modal opens on a chart, not on empty selectors: the first exam type and its
  // first result are chosen until the patient picks others.
  const [chosenType, setTypeId] = useState<string | null>(null);
  const typeId = types.data?.some((x) => x.id === chosenType) ? chosenType : (types.data?.[0]?.id ?? null);
  const attributes = useAttributes(settled, ready ? typeId : null);
  const [chosenAttribute, setAttributeId] = useState<string | null>(null);
  const attributeId = attributes.data?.some((x) => x.id === chosenAttribute)
    ? chosenAttribute
    : (attributes.data?.[0]?.id ?? null);
  const history = useHistory(settled, ready ? typeId : null, attributeId);
  const [printing, setPrinting] = useState(false);

  const locale = HTML_LANG[currentLanguage()];
  // A previous answer kept while the next loads is shown only when it is of the chosen pair.
  const answer = attributeId ? history.data : undefined;
  // Numbers as the reader's language writes them (decimal comma and thousands point in pt-BR
  // and es), in the table, the chart and the PDF alike; the server's reference label translated.
  const table = answer && {
    ...answer,
    rows: answer.rows.map((row) =>
      row.map((cell, c) =>
        c > 0 ? localizeNumbers(cell, locale) : cell === 'Referência' ? t('results:history.reference') : cell,
      ),
    ),
  };
  const points = answer?.series ?? [];
  // The time axis is proportional to time: each point sits at its date's instant.
  const data = chartData(points).map((p) => ({ ...p, time: Date.parse(p.date) }));
  const dateOf = (time: unknown) => {
    const at = Number(time);
    return Number.isFinite(at) ? (formatExamDate(new Date(at).toISOString()) ?? '') : '';
  };
  const reference = points.find((p) => p.referenceMin !== null && p.referenceMax !== null);
  const unit = points.find((p) => p.unit)?.unit ?? '';
  const typeName = types.data?.find((x) => x.id === typeId)?.name ?? '';
  const attributeName = attributes.data?.find((x) => x.id === attributeId)?.name ?? '';

  // Out-of-range marks of the values' row (the first), one column per point.
  const cellFlag = (r: number, c: number) => {
    const point = r === 0 && c > 0 ? points[c - 1] : undefined;
    return point ? rangeFlag(point.value, point.referenceMin, point.referenceMax) : null;
  };

  const print = async () => {
    if (!table) return;
    setPrinting(true);
    try {
      const patient = answer?.patient;
      const blob = await historyPdf({
        title: t('results:history.title'),
        heading: [
          { label: t('results:history.pdf.patient'), value: patient?.name ?? '' },
          { label: t('results:history.pdf.birthDate'), value: formatCalendarDate(patient?.birthDate) ?? '' },
          { label: t('results:history.pdf.institution'), value: answer?.institution?.name ?? '' },
          { label: t('results:history.pdf.period'), value: `${query.initialDate} – ${query.finalDate}` },
          { label: t('results:history.pdf.exam'), value: `${typeName} · ${attributeName}` },
        ],
        chart:
          data.length > 0
            ? {
                points: data.map((p) => ({ time: p.time, value: p.value, outside: p.outside !== null })),
                referenceMin: reference?.referenceMin ?? null,
                referenceMax: reference?.referenceMax ?? null,
                labels: {
                  series: unit ? `${attributeName} (${unit})` : attributeName,
                  outside: t('results:history.outside'),
                  reference: t('results:history.reference'),
                },
                formatNumber: (value) => formatDecimal(value, locale),
                formatDate: dateOf,
              }
            : null,
        columns: table.columns,
        rows: table.rows.map((row, r) =>
          row.map((text, c) => {
            const flag = cellFlag(r, c);
            return flag ? { text, mark: t(`results:history.${flag}`) } : { text };
          }),
        ),
        footer: t('results:history.pdf.issued', { date: dayjs().format('DD/MM/YYYY HH:mm') }),
      });
      saveFile({ blob, fileName: `historico-${dayjs().format('YYYYMMDD-HHmm')}.pdf` });
    } catch {
      notify('error', t('results:history.printError'), TOAST_MS.long);
    } finally {
      setPrinting(false);
    }
  };

  const columnCount = table?.columns.length ?? 0;
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={t('results:history.title')}
      size="80rem"
      closeButtonProps={{ 'aria-label': t('results:modal.close') }}
    >
      <Stack gap="md">
        <Group align="flex-end" gap="md" wrap="wrap">
          <DateRangeFilter value={range} onChange={setRange} presets={PATIENT_DATE_PRESETS} />
          <Select
            label={t('results:history.examType')}
            placeholder={t('results:history.choose')}
            data={(types.data ?? []).map((x) => ({ value: x.id, label: x.name }))}
            value={typeId}
            onChange={(v) => {
              setTypeId(v);
              setAttributeId(null);
            }}
            disabled={!types.data || types.data.length === 0}
            miw={240}
          />
          <Select
            label={t('results:history.attribute')}
            placeholder={t('results:history.choose')}
            data={(attributes.data ?? []).map((x) => ({ value: x.id, label: x.name }))}
            value={attributeId}
            onChange={setAttributeId}
            disabled={!typeId || !attributes.data || attributes.data.length === 0}
            miw={240}
          />
        </Group>
        {(!ready || types.isFetching || attributes.isFetching || history.isFetching) && (
          <Loader size="sm" aria-label={t('common:loading.text')} />
        )}
        {[types, attributes, history].map(
          (q, i) =>
            q.isError && (
              <Alert key={i} color="red" icon={<AlertIcon />} role="alert">
                {errorText(q.error)}
              </Alert>
            ),
        )}
        {ready && types.data && types.data.length === 0 && <Text size="sm">{t('results:history.empty')}</Text>}
        {table && table.columns.length > 1 && (
          <>
            <ScrollTable label={t('results:history.title')} minWidth={Math.min(1200, 160 + columnCount * 110)}>
              <Table withTableBorder withColumnBorders striped data-testid="history-table">
                <Table.Thead>
                  <Table.Tr>
                    {table.columns.map((c, i) => (
                      <Table.Th key={`${c}-${i}`} scope="col">
                        {truncateCell(c, columnCount)}
                      </Table.Th>
                    ))}
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {table.rows.map((row, r) => (
                    <Table.Tr key={r}>
                      {row.map((cell, c) => {
                        const flag = cellFlag(r, c);
                        const text = truncateCell(cell, columnCount);
                        if (c === 0) {
                          return (
                            <Table.Th key={c} scope="row" title={cell !== text ? cell : undefined}>
                              {text}
                            </Table.Th>
                          );
                        }
                        return (
                          <Table.Td
                            key={c}
                            title={cell !== text ? cell : undefined}
                            c={flag ? 'red.9' : undefined}
                            fw={flag ? 700 : undefined}
                            data-flag={flag ?? undefined}
                          >
                            {text}
                            {flag && ` (${t(`results:history.${flag}`)})`}
                          </Table.Td>
                        );
                      })}
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </ScrollTable>
            {data.length > 0 && (
              <div
                data-testid="history-chart"
                role="img"
                aria-label={t('results:history.chartLabel', { name: attributeName })}
              >
                <LineChart
                  h={280}
                  data={data}
                  dataKey="time"
                  unit={unit ? ` ${unit}` : undefined}
                  valueFormatter={(value) => formatDecimal(value, locale)}
                  xAxisProps={{
                    type: 'number',
                    scale: 'time',
                    domain: ['dataMin', 'dataMax'],
                    padding: { left: 24, right: 24 },
                    tickFormatter: dateOf,
                  }}
                  tooltipProps={{ labelFormatter: dateOf }}
                  series={[
                    { name: 'value', label: attributeName, color: 'blue.7' },
                    { name: 'outside', label: t('results:history.outside'), color: 'red.8' },
                  ]}
                  connectNulls={false}
                  curveType="linear"
                  withLegend
                  lineProps={(series) => (series.name === 'outside' ? { strokeWidth: 0, dot: { r: 5 } } : {})}
                  yAxisProps={{ domain: ['auto', 'auto'] }}
                >
                  {reference && (
                    <ReferenceArea
                      yAxisId="left"
                      y1={reference.referenceMin ?? undefined}
                      y2={reference.referenceMax ?? undefined}
                      fill="#40c057"
                      fillOpacity={0.15}
                      ifOverflow="extendDomain"
                    />
                  )}
                </LineChart>
              </div>
            )}
            <Group justify="flex-end">
              <Button onClick={() => void print()} loading={printing}>
                {t('results:history.print')}
              </Button>
            </Group>
          </>
        )}
      </Stack>
    </Modal>
  );
}
