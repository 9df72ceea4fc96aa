import '@mantine/core/styles/Fieldset.css';
import { Button, Fieldset, Group, Stack, Text, TextInput } from '@mantine/core';
import { TOAST_MS } from '@portal/shared/limits';
import { useState } from 'react';
import type { UseFormRegister } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { PasswordField } from '../../../components/password-field';
import { StatusBadge } from '../../../components/status-badge';
import { CheckIcon } from '../../../components/icons';
import { errorText } from '../../../lib/errors';
import { notify } from '../../../lib/notify';
import { useValidateProtocolMutation } from '../api/patient-registration-api';
import type { PatientCreateValues } from '../patient-create-schema';

export interface ProtocolValidationBoxProps {
  register: UseFormRegister<PatientCreateValues>;
  protocolNumber: string;
  protocolPassword: string;
  valid: boolean;
  onValidated: () => void;
}

/** Spec 4.5: optional protocol box, valid only after a successful check; editing resets it. */
export function ProtocolValidationBox({
  register,
  protocolNumber,
  protocolPassword,
  valid,
  onValidated,
}: ProtocolValidationBoxProps) {
  const { t } = useTranslation(['account', 'common']);
  const mutation = useValidateProtocolMutation();
  const [missing, setMissing] = useState(false);

  const validate = async () => {
    if (!protocolNumber.trim() || !protocolPassword) {
      setMissing(true);
      return;
    }
    setMissing(false);
    try {
      await mutation.mutateAsync({ protocol: protocolNumber.trim(), password: protocolPassword });
      notify('success', t('errors:messages.protocolValid'), TOAST_MS.protocolValidation);
      onValidated();
    } catch (error) {
      notify('error', errorText(error, 'errors.invalidProtocol'), TOAST_MS.protocolValidation);
    }
  };

  return (
    <Fieldset legend={t('patientCreate.protocolBox')} radius="md">
      <Stack gap="sm">
        <Text size="sm">{t('patientCreate.protocolBoxText')}</Text>
        <TextInput
          label={t('patientCreate.protocolNumber')}
          autoComplete="off"
          error={missing && !protocolNumber.trim() ? t('common:validation.required') : undefined}
          {...register('protocolNumber')}
        />
        <PasswordField
          label={t('patientCreate.protocolPassword')}
          autoComplete="off"
          error={missing && !protocolPassword ? t('common:validation.required') : undefined}
          {...register('protocolPassword')}
        />
        <Group justify="space-between">
          <div aria-live="polite">
            {valid && (
              <StatusBadge tone="success" icon={<CheckIcon size={14} />}>
                {t('patientCreate.protocolValidated')}
              </StatusBadge>
            )}
          </div>
          <Button variant="light" onClick={validate} loading={mutation.isPending} disabled={valid}>
            {t('patientCreate.validateProtocol')}
          </Button>
        </Group>
      </Stack>
    </Fieldset>
  );
}
