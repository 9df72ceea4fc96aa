import { Button, Collapse, Group, TextInput } from '@mantine/core';
import dayjs from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { MaskedInput } from '../../../components/masked-input';
import { MASK } from '../../../lib/masks';

export interface AdvancedValues {
  date: Date | null;
  protocol: string;
  patient: string;
  institution: string;
}

export const EMPTY_ADVANCED: AdvancedValues = { date: null, protocol: '', patient: '', institution: '' };

/** Spec 5: day/month/year with a four-digit year, separated by / or -. */
export function parseAdvancedDate(text: string): Date | null | 'invalid' {
  const value = text.trim();
  if (!value) return null;
  const m = /^(\d{1,2})[/-](\d{1,2})[/-](\d{4})$/.exec(value);
  if (!m) return 'invalid';
  const d = dayjs(`${m[3]}-${m[2]?.padStart(2, '0')}-${m[1]?.padStart(2, '0')}`, 'YYYY-MM-DD', true);
  return d.isValid() ? d.toDate() : 'invalid';
}

/** Spec 2.7: the physician's advanced filters (date, protocol, patient, institution). */
export function AdvancedFilters({ onApply }: { onApply: (values: AdvancedValues) => void }) {
  const { t } = useTranslation(['results', 'common']);
  const [open, setOpen] = useState(false);
  const [date, setDate] = useState('');
  const [protocol, setProtocol] = useState('');
  const [patient, setPatient] = useState('');
  const [institution, setInstitution] = useState('');
  const parsed = parseAdvancedDate(date);
  return (
    <div style={{ width: '100%' }}>
      <Button
        variant="subtle"
        size="compact-sm"
        aria-expanded={open}
        aria-controls="advanced-filters"
        onClick={() => setOpen((o) => !o)}
      >
        {t('advanced.toggle')}
      </Button>
      <Collapse in={open} id="advanced-filters">
        <form
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            if (parsed === 'invalid') return;
            onApply({
              date: parsed,
              protocol: protocol.trim(),
              patient: patient.trim(),
              institution: institution.trim(),
            });
          }}
        >
          <Group align="flex-end" gap="sm" wrap="wrap" mt="xs">
            <MaskedInput
              label={t('advanced.date')}
              placeholder={t('common:formats.datePlaceholder')}
              mask={MASK.date}
              inputMode="numeric"
              value={date}
              onChange={setDate}
              error={parsed === 'invalid' ? t('form.invalidDate') : null}
              w={150}
            />
            <TextInput
              label={t('advanced.protocol')}
              value={protocol}
              onChange={(e) => setProtocol(e.currentTarget.value)}
              w={160}
            />
            <TextInput
              label={t('advanced.patient')}
              value={patient}
              onChange={(e) => setPatient(e.currentTarget.value)}
              w={200}
            />
            <TextInput
              label={t('advanced.institution')}
              value={institution}
              onChange={(e) => setInstitution(e.currentTarget.value)}
              w={200}
            />
            <Button type="submit">{t('advanced.apply')}</Button>
            <Button
              variant="default"
              onClick={() => {
                setDate('');
                setProtocol('');
                setPatient('');
                setInstitution('');
                onApply(EMPTY_ADVANCED);
              }}
            >
              {t('advanced.clear')}
            </Button>
          </Group>
        </form>
      </Collapse>
    </div>
  );
}
