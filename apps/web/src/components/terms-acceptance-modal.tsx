import { Anchor, Button, Checkbox, Group, Modal, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TermType, TermUserType } from '../lib/terms-api';
import { LegalModal } from './legal-modal';

export interface TermsAcceptanceModalProps {
  opened: boolean;
  userType: TermUserType;
  /** Which terms changed, to say so. */
  kinds: TermType[];
  loading: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}

/** Spec 2.9 and 4.4: a new version of the terms must be accepted (required checkbox) or the user leaves. */
export function TermsAcceptanceModal({
  opened,
  userType,
  kinds,
  loading,
  onConfirm,
  onCancel,
}: TermsAcceptanceModalProps) {
  const { t } = useTranslation();
  const [checked, setChecked] = useState(false);
  const [touched, setTouched] = useState(false);
  const [reading, setReading] = useState<TermType | null>(null);
  return (
    <>
      <Modal
        opened={opened && reading === null}
        onClose={onCancel}
        title={t('termsUpdate.title')}
        centered
        closeOnClickOutside={false}
        closeButtonProps={{ 'aria-label': t('actions.cancel') }}
      >
        <Stack gap="md">
          <Text size="sm">{t('termsUpdate.text')}</Text>
          <Group gap="md">
            {kinds.includes('TERMS') && (
              <Anchor component="button" type="button" size="sm" onClick={() => setReading('TERMS')}>
                {t('legal.readTerms')}
              </Anchor>
            )}
            {kinds.includes('PP') && (
              <Anchor component="button" type="button" size="sm" onClick={() => setReading('PP')}>
                {t('legal.readPrivacy')}
              </Anchor>
            )}
          </Group>
          <Checkbox
            label={t('legal.accept')}
            checked={checked}
            onChange={(event) => setChecked(event.currentTarget.checked)}
            error={touched && !checked ? t('validation.termsRequired') : undefined}
            required
            data-testid="terms-update-checkbox"
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onCancel}>
              {t('actions.cancel')}
            </Button>
            <Button
              loading={loading}
              onClick={() => {
                setTouched(true);
                if (checked) onConfirm();
              }}
            >
              {t('actions.confirm')}
            </Button>
          </Group>
        </Stack>
      </Modal>
      <LegalModal kind={reading} userType={userType} onClose={() => setReading(null)} />
    </>
  );
}
