import '@mantine/core/styles/Accordion.css';
import '@mantine/core/styles/Radio.css';
import { zodResolver } from '@hookform/resolvers/zod';
import { Accordion, Alert, Button, Group, Paper, Radio, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import type { EmailFrequency } from '@portal/shared/exam-status';
import { TOAST_MS } from '@portal/shared/limits';
import { digitsOnly, formatCpf } from '@portal/shared/formats';
import { useEffect, useRef } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Link, Navigate } from 'react-router';
import { InfoIcon } from '../../../components/icons';
import { MaskedField } from '../../../components/masked-field';
import { formatCalendarDate } from '../../../lib/dates';
import { errorText } from '../../../lib/errors';
import { MASK } from '../../../lib/masks';
import { notify } from '../../../lib/notify';
import { useCredentials } from '../../../lib/session';
import { patientEditSchema, type PatientEditValues } from '../account-edit-schemas';
import { type UserRecord, useEditPatientMutation, useMyRecord } from '../api/account-api';
import { AccountPageFrame } from './account-page-frame';
import { ChangeEmailForm } from './change-email-form';
import { ChangePasswordForm } from './change-password-form';
import { EmailFrequencyField } from './email-frequency-field';
import { MfaPanel } from './mfa-panel';
import { PasskeysPanel } from '../../passkeys/passkeys-panel';
import { SharesTable } from './shares-table';

function cpfOf(record: UserRecord): string {
  const number = record.documents.find((d) => d.type.code.toUpperCase() === 'CPF')?.number ?? '';
  return digitsOnly(number).length === 11 ? formatCpf(number) : '';
}

function PatientEditForm({ record }: { record: UserRecord }) {
  const { t } = useTranslation(['account', 'common']);
  const mutation = useEditPatientMutation();
  const warned = useRef(false);
  const {
    control,
    register,
    handleSubmit,
    formState: { errors, isValid, isDirty },
  } = useForm<PatientEditValues>({
    resolver: zodResolver(patientEditSchema),
    mode: 'all',
    defaultValues: {
      name: record.name,
      cpf: cpfOf(record),
      birth: formatCalendarDate(record.birth) ?? '',
      gender: record.gender === 'FEMALE' || record.gender === 'MALE' ? record.gender : '',
      phone: record.phones.find((p) => p.type === 'CELULAR')?.number ?? record.phones[0]?.number ?? '',
      frequencyReceiveEmail: (record.frequencyReceiveEmail as EmailFrequency) || 'DEFAULT',
    },
  });
  const fieldError = (message?: string) => (message ? t(message, { ns: 'common' }) : undefined);

  // Spec 8: an incomplete profile shows a persistent info toast (once per visit of the screen).
  useEffect(() => {
    if (!record.complete && !warned.current) {
      warned.current = true;
      notify('info', t('edit.incomplete'), TOAST_MS.persistent);
    }
  }, [record.complete, t]);

  const onSubmit = async (values: PatientEditValues) => {
    try {
      await mutation.mutateAsync({
        name: values.name.trim(),
        documents: [{ type: { code: 'CPF' }, number: digitsOnly(values.cpf) }],
        birth: values.birth,
        gender: values.gender === 'FEMALE' || values.gender === 'MALE' ? values.gender : undefined,
        phones: [{ number: digitsOnly(values.phone), type: 'CELULAR' }],
        frequencyReceiveEmail: values.frequencyReceiveEmail,
      });
      notify('success', t('edit.saved'), TOAST_MS.mfaEdit);
    } catch (error) {
      notify('error', errorText(error), TOAST_MS.mfaEdit);
    }
  };

  return (
    <Stack gap="md">
      {!record.complete && (
        <Alert color="medical" icon={<InfoIcon />} title={t('edit.incompleteTitle')}>
          {t('edit.incomplete')}
        </Alert>
      )}
      <Accordion multiple defaultValue={['personal']} variant="separated" radius="md">
        <Accordion.Item value="access">
          <Accordion.Control>{t('edit.sections.access')}</Accordion.Control>
          <Accordion.Panel>
            <Stack gap="lg">
              <ChangePasswordForm />
              <ChangeEmailForm currentEmail={record.email} />
            </Stack>
          </Accordion.Panel>
        </Accordion.Item>
        <Accordion.Item value="personal">
          <Accordion.Control>{t('edit.sections.personal')}</Accordion.Control>
          <Accordion.Panel>
            <Stack gap="sm">
              <TextInput
                label={t('edit.name')}
                autoComplete="name"
                required
                error={fieldError(errors.name?.message)}
                {...register('name')}
              />
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <MaskedField
                  control={control}
                  name="cpf"
                  label={t('edit.cpf')}
                  mask={MASK.cpf}
                  inputMode="numeric"
                  required
                  error={fieldError(errors.cpf?.message)}
                />
                <MaskedField
                  control={control}
                  name="birth"
                  label={t('edit.birth')}
                  mask={MASK.date}
                  inputMode="numeric"
                  autoComplete="bday"
                  placeholder={t('common:formats.datePlaceholder')}
                  required
                  error={fieldError(errors.birth?.message)}
                />
              </SimpleGrid>
              <MaskedField
                control={control}
                name="phone"
                label={t('edit.mobile')}
                mask={MASK.phone}
                inputMode="tel"
                autoComplete="tel-national"
                required
                error={fieldError(errors.phone?.message)}
              />
              <Controller
                control={control}
                name="gender"
                render={({ field }) => (
                  <Radio.Group
                    label={t('edit.gender')}
                    required
                    value={field.value || null}
                    onChange={(value) => {
                      field.onChange(value);
                      field.onBlur();
                    }}
                    error={fieldError(errors.gender?.message)}
                  >
                    <Group gap="md" mt={6}>
                      <Radio value="FEMALE" label={t('edit.female')} />
                      <Radio value="MALE" label={t('edit.male')} />
                    </Group>
                  </Radio.Group>
                )}
              />
            </Stack>
          </Accordion.Panel>
        </Accordion.Item>
        <Accordion.Item value="mfa">
          <Accordion.Control>{t('edit.sections.mfa')}</Accordion.Control>
          <Accordion.Panel>
            <MfaPanel />
          </Accordion.Panel>
        </Accordion.Item>
        <Accordion.Item value="passkeys">
          <Accordion.Control>{t('edit.sections.passkeys')}</Accordion.Control>
          <Accordion.Panel>
            <PasskeysPanel />
          </Accordion.Panel>
        </Accordion.Item>
        <Accordion.Item value="preferences">
          <Accordion.Control>{t('edit.sections.preferences')}</Accordion.Control>
          <Accordion.Panel>
            <Controller
              control={control}
              name="frequencyReceiveEmail"
              render={({ field }) => <EmailFrequencyField value={field.value} onChange={field.onChange} />}
            />
          </Accordion.Panel>
        </Accordion.Item>
        <Accordion.Item value="shares">
          <Accordion.Control>{t('edit.sections.shares')}</Accordion.Control>
          <Accordion.Panel>
            <SharesTable userId={record.id} />
          </Accordion.Panel>
        </Accordion.Item>
      </Accordion>
      <Paper withBorder p="sm" radius="md">
        <Group justify="space-between" gap="sm">
          <Text size="sm" c="dimmed" style={{ flex: '1 1 12rem' }}>
            {isValid ? (isDirty ? t('edit.unsaved') : '') : t('edit.fixPersonal')}
          </Text>
          <Group gap="sm">
            <Button component={Link} to="/landing/" variant="default">
              {t('common:actions.back')}
            </Button>
            <Button onClick={handleSubmit(onSubmit)} disabled={!isValid} loading={mutation.isPending}>
              {t('common:actions.save')}
            </Button>
          </Group>
        </Group>
      </Paper>
    </Stack>
  );
}

/** Spec 2.10 patient edit (My account); spec 6: patients only here, others go back to landing. */
export default function PatientEditPage() {
  const credentials = useCredentials();
  const allowed = Boolean(
    credentials?.user?.isUserType || credentials?.user?.isAdminType || credentials?.user?.isCompanyType,
  );
  const record = useMyRecord();
  if (!allowed) return <Navigate to="/landing/" replace />;
  return (
    <AccountPageFrame loading={record.isPending} error={record.error}>
      {record.data && <PatientEditForm record={record.data} />}
    </AccountPageFrame>
  );
}
