import '@mantine/core/styles/Affix.css';
import {
  ActionIcon,
  Affix,
  Button,
  Group,
  SegmentedControl,
  TextInput,
  Transition,
  UnstyledButton,
} from '@mantine/core';
import { DatePickerInput } from '@mantine/dates';
import { useDebouncedValue, useWindowScroll } from '@mantine/hooks';
import { BACK_TO_TOP_PX, DELAY_MS, WEEK_START } from '@portal/shared/limits';
import dayjs from 'dayjs';
import 'dayjs/locale/es';
import 'dayjs/locale/pt-br';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import '@mantine/dates/styles.css';
import { currentLanguage } from '../lib/i18n';
import { type DatePreset, type DateRange, presetRange } from './date-presets';
import { pageWindow } from './pager-window';

/** Spec 2.7: the period picker with the spec's presets. */
export function DateRangeFilter({
  value,
  onChange,
  presets,
  label,
}: {
  value: DateRange;
  onChange: (range: DateRange) => void;
  presets: readonly DatePreset[];
  label?: string;
}) {
  const { t } = useTranslation('results');
  // A half-chosen range stays local until its second day is picked.
  const [partial, setPartial] = useState<[string | null, string | null] | null>(null);
  const draft = partial ?? [dayjs(value[0]).format('YYYY-MM-DD'), dayjs(value[1]).format('YYYY-MM-DD')];
  const language = currentLanguage();
  const fieldLabel = label ?? t('filters.period');
  return (
    <DatePickerInput
      type="range"
      label={fieldLabel}
      value={draft}
      locale={language === 'en' ? 'en' : language}
      valueFormat="DD/MM/YYYY"
      firstDayOfWeek={WEEK_START as 1}
      allowSingleDateInRange
      presets={presets.map((preset) => {
        const [from, to] = presetRange(preset);
        const value: [string, string] = [dayjs(from).format('YYYY-MM-DD'), dayjs(to).format('YYYY-MM-DD')];
        return { value, label: t(`presets.${preset}`) };
      })}
      onChange={(next) => {
        const [from, to] = next;
        if (from && to) {
          setPartial(null);
          onChange([dayjs(from).toDate(), dayjs(to).toDate()]);
        } else setPartial(next);
      }}
      // The month arrows are named (axe: button-name); the level buttons keep the month or year they
      // show as their name (WCAG 2.5.3).
      ariaLabels={{
        previousMonth: t('filters.calendar.previousMonth'),
        nextMonth: t('filters.calendar.nextMonth'),
        previousYear: t('filters.calendar.previousYear'),
        nextYear: t('filters.calendar.nextYear'),
        previousDecade: t('filters.calendar.previousDecade'),
        nextDecade: t('filters.calendar.nextDecade'),
      }}
      // The popup's target is the field's button, whose text is the chosen dates: the dialog is named
      // after the field's label instead.
      popoverProps={{
        withRoles: true,
        attributes: {
          dropdown: { 'aria-labelledby': undefined, 'aria-label': t('filters.calendar.dialog', { field: fieldLabel }) },
        },
      }}
      classNames={{ day: 'calendar-day', datePickerRoot: 'calendar-root', presetsList: 'calendar-presets' }}
      miw={230}
    />
  );
}

/**
 * Spec 2.7 and 9: free-text search sent 500 ms after the last keystroke. Each change of `resetKey`
 * (after a protocol is linked) empties the box 1 second later, so the new protocol is not hidden
 * by a search typed before, and the toast saying it was added is read first.
 */
export function SearchBox({
  onSearch,
  label,
  placeholder,
  resetKey = 0,
}: {
  onSearch: (text: string) => void;
  label?: string;
  placeholder?: string;
  resetKey?: number;
}) {
  const { t } = useTranslation('results');
  const [text, setText] = useState('');
  const [debounced] = useDebouncedValue(text.trim(), DELAY_MS.searchDebounce);
  useEffect(() => onSearch(debounced), [debounced, onSearch]);
  useEffect(() => {
    if (resetKey === 0) return undefined;
    const timer = window.setTimeout(() => {
      setText('');
      onSearch('');
    }, DELAY_MS.searchClear);
    return () => window.clearTimeout(timer);
  }, [resetKey, onSearch]);
  return (
    <TextInput
      type="search"
      label={label ?? t('filters.search')}
      placeholder={placeholder ?? t('filters.searchPlaceholder')}
      value={text}
      onChange={(event) => setText(event.currentTarget.value)}
      miw={270}
    />
  );
}

export type ReadFilterValue = 'all' | 'read' | 'unread';

export function ReadFilter({ value, onChange }: { value: ReadFilterValue; onChange: (v: ReadFilterValue) => void }) {
  const { t } = useTranslation('results');
  return (
    <div>
      <div id="read-filter-label" style={{ fontSize: 'var(--mantine-font-size-sm)', fontWeight: 500 }}>
        {t('filters.read.label')}
      </div>
      <SegmentedControl
        aria-labelledby="read-filter-label"
        value={value}
        onChange={(v) => onChange(v as ReadFilterValue)}
        data={(['all', 'read', 'unread'] as const).map((v) => ({ value: v, label: t(`filters.read.${v}`) }))}
      />
    </div>
  );
}

/** Spec 2.7 and 9: previous, next and a window of 5 page numbers. */
export function Pager({ page, pages, onChange }: { page: number; pages: number; onChange: (page: number) => void }) {
  const { t } = useTranslation('results');
  if (pages <= 1) return null;
  return (
    <nav aria-label={t('pager.label')}>
      <Group gap={4} justify="center" wrap="wrap">
        <Button variant="default" size="compact-md" disabled={page <= 1} onClick={() => onChange(page - 1)}>
          {t('pager.previous')}
        </Button>
        {pageWindow(page, pages).map((n) => (
          <Button
            key={n}
            size="compact-md"
            variant={n === page ? 'filled' : 'default'}
            aria-current={n === page ? 'page' : undefined}
            aria-label={t('pager.page', { page: n })}
            onClick={() => onChange(n)}
          >
            {n}
          </Button>
        ))}
        <Button variant="default" size="compact-md" disabled={page >= pages} onClick={() => onChange(page + 1)}>
          {t('pager.next')}
        </Button>
      </Group>
    </nav>
  );
}

/** Spec 9: a back-to-top button once the page has scrolled 300 px. */
export function BackToTop() {
  const { t } = useTranslation('results');
  const [scroll, scrollTo] = useWindowScroll();
  return (
    <Affix position={{ bottom: 20, right: 20 }}>
      <Transition transition="slide-up" mounted={scroll.y > BACK_TO_TOP_PX}>
        {(styles) => (
          <ActionIcon
            style={styles}
            size="xl"
            radius="xl"
            aria-label={t('list.backToTop')}
            onClick={() => scrollTo({ y: 0 })}
          >
            <svg
              width={20}
              height={20}
              viewBox="0 0 24 24"
              fill="none"
              stroke="currentColor"
              strokeWidth={2}
              aria-hidden="true"
            >
              <path d="M12 19V5M5 12l7-7 7 7" />
            </svg>
          </ActionIcon>
        )}
      </Transition>
    </Affix>
  );
}

/** Spec 2.7: the force-refresh link. */
export function RefreshLink({ onClick }: { onClick: () => void }) {
  const { t } = useTranslation('results');
  return (
    <UnstyledButton
      className="touch-target"
      onClick={onClick}
      c="medical.8"
      fz="sm"
      td="underline"
      style={{ alignSelf: 'flex-end', paddingBottom: 8 }}
    >
      {t('filters.refresh')}
    </UnstyledButton>
  );
}
