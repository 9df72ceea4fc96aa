import { Anchor, Checkbox, Group, Stack } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TermType, TermUserType } from '../lib/terms-api';
import { LegalModal } from './legal-modal';

export interface TermsAcceptanceProps {
  checked: boolean;
  onChange: (checked: boolean) => void;
  error?: string;
  userType: TermUserType;
}

/** The required terms checkbox with the service terms and privacy policy one click away (spec 2.5, 2.9). */
export function TermsAcceptance({ checked, onChange, error, userType }: TermsAcceptanceProps) {
  const { t } = useTranslation();
  const [open, setOpen] = useState<TermType | null>(null);
  return (
    <Stack gap={6}>
      <Checkbox
        label={t('legal.accept')}
        checked={checked}
        onChange={(event) => onChange(event.currentTarget.checked)}
        error={error}
        required
        data-testid="terms-checkbox"
      />
      <Group gap="md" pl={32}>
        <Anchor component="button" type="button" size="sm" onClick={() => setOpen('TERMS')}>
          {t('legal.readTerms')}
        </Anchor>
        <Anchor component="button" type="button" size="sm" onClick={() => setOpen('PP')}>
          {t('legal.readPrivacy')}
        </Anchor>
      </Group>
      <LegalModal kind={open} userType={userType} onClose={() => setOpen(null)} />
    </Stack>
  );
}
