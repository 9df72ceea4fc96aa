import '@mantine/core/styles/Radio.css';
import { Radio, Stack } from '@mantine/core';
import { EMAIL_FREQUENCIES, type EmailFrequency } from '@portal/shared/exam-status';
import { useTranslation } from 'react-i18next';

/** Spec 3: how often result mails arrive (DEFAULT follows the institution). */
export function EmailFrequencyField({
  value,
  onChange,
  error,
}: {
  value: EmailFrequency | undefined;
  onChange: (value: EmailFrequency) => void;
  error?: string;
}) {
  const { t } = useTranslation('account');
  return (
    <Radio.Group
      label={t('edit.frequency')}
      description={t('edit.frequencyHint')}
      value={value ?? null}
      onChange={(next) => onChange(next as EmailFrequency)}
      error={error}
      required
    >
      <Stack gap={8} mt="xs">
        {EMAIL_FREQUENCIES.map((frequency) => (
          <Radio key={frequency} value={frequency} label={t(`edit.frequencies.${frequency}`)} />
        ))}
      </Stack>
    </Radio.Group>
  );
}
