import '@mantine/core/styles/Accordion.css';
import { zodResolver } from '@hookform/resolvers/zod';
import { Accordion, Button, Group, Paper, SimpleGrid, Stack, TextInput } from '@mantine/core';
import { EMAIL_FREQUENCIES, type EmailFrequency } from '@portal/shared/exam-status';
import { TOAST_MS } from '@portal/shared/limits';
import { digitsOnly, formatCpf } from '@portal/shared/formats';
import { Controller, useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Link, Navigate } from 'react-router';
import { MaskedInput } from '../../../components/masked-input';
import { formatCalendarDate } from '../../../lib/dates';
import { errorText } from '../../../lib/errors';
import { MASK } from '../../../lib/masks';
import { notify } from '../../../lib/notify';
import { useCredentials } from '../../../lib/session';
import { physicianEditSchema, type PhysicianEditValues } from '../account-edit-schemas';
import { type UserRecord, useEditPhysicianMutation, useMyRecord } from '../api/account-api';
import { AccountPageFrame } from './account-page-frame';
import { ChangeEmailForm } from './change-email-form';
import { ChangePasswordForm } from './change-password-form';
import { EmailFrequencyField } from './email-frequency-field';
import { PasskeysPanel } from '../../passkeys/passkeys-panel';

function PhysicianEditForm({ record }: { record: UserRecord }) {
  const { t } = useTranslation(['account', 'common']);
  const mutation = useEditPhysicianMutation();
  const cpf = record.documents.find((d) => d.type.code.toUpperCase() === 'CPF')?.number ?? '';
  const license = record.licenses[0];
  const frequency = (EMAIL_FREQUENCIES as readonly string[]).includes(record.frequencyReceiveEmail)
    ? (record.frequencyReceiveEmail as EmailFrequency)
    : undefined;
  const {
    control,
    handleSubmit,
    formState: { errors, isValid },
  } = useForm<PhysicianEditValues>({
    resolver: zodResolver(physicianEditSchema),
    mode: 'all',
    defaultValues: {
      cpf: digitsOnly(cpf).length === 11 ? formatCpf(cpf) : '',
      birth: formatCalendarDate(record.birth) ?? '',
      mobile: record.phones.find((p) => p.type === 'CELULAR')?.number ?? '',
      landline: record.phones.find((p) => p.type === 'FIXO')?.number ?? '',
      frequencyReceiveEmail: frequency,
    },
  });
  const fieldError = (message?: string) => (message ? t(message, { ns: 'common' }) : undefined);

  const onSubmit = async (values: PhysicianEditValues) => {
    const phones: Array<{ number: string; type: 'CELULAR' | 'FIXO' }> = [];
    if (digitsOnly(values.mobile)) phones.push({ number: digitsOnly(values.mobile), type: 'CELULAR' });
    if (digitsOnly(values.landline)) phones.push({ number: digitsOnly(values.landline), type: 'FIXO' });
    try {
      await mutation.mutateAsync({
        documents: [{ type: { code: 'CPF' }, number: digitsOnly(values.cpf) }],
        birth: values.birth,
        phones,
        frequencyReceiveEmail: values.frequencyReceiveEmail,
      });
      notify('success', t('edit.saved'), TOAST_MS.mfaEdit);
    } catch (error) {
      notify('error', errorText(error), TOAST_MS.mfaEdit);
    }
  };

  const masked = (
    name: 'cpf' | 'birth' | 'mobile' | 'landline',
    label: string,
    mask: string | ReadonlyArray<{ mask: string }>,
    required: boolean,
  ) => (
    <Controller
      control={control}
      name={name}
      render={({ field }) => (
        <MaskedInput
          label={label}
          mask={mask}
          inputMode={name === 'mobile' || name === 'landline' ? 'tel' : 'numeric'}
          required={required}
          name={field.name}
          value={field.value ?? ''}
          onChange={field.onChange}
          onBlur={field.onBlur}
          inputRef={field.ref}
          error={fieldError(errors[name]?.message)}
        />
      )}
    />
  );

  return (
    <Stack gap="md">
      <Accordion multiple defaultValue={['personal', 'professional']} variant="separated" radius="md">
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
              <TextInput label={t('edit.name')} value={record.name} readOnly />
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                {masked('cpf', t('edit.cpf'), MASK.cpf, true)}
                {masked('birth', t('edit.birth'), MASK.date, true)}
                {masked('mobile', t('edit.mobile'), MASK.phone, false)}
                {masked('landline', t('edit.landline'), MASK.phone, false)}
              </SimpleGrid>
            </Stack>
          </Accordion.Panel>
        </Accordion.Item>
        <Accordion.Item value="professional">
          <Accordion.Control>{t('edit.sections.professional')}</Accordion.Control>
          <Accordion.Panel>
            <SimpleGrid cols={2}>
              <TextInput label={t('physicianCreate.crm')} value={license?.number ?? ''} readOnly />
              <TextInput label={t('physicianCreate.uf')} value={license?.state ?? ''} readOnly />
            </SimpleGrid>
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
              render={({ field }) => (
                <EmailFrequencyField
                  value={field.value}
                  onChange={field.onChange}
                  error={fieldError(errors.frequencyReceiveEmail?.message)}
                />
              )}
            />
          </Accordion.Panel>
        </Accordion.Item>
      </Accordion>
      <Paper withBorder p="sm" radius="md">
        <Group justify="flex-end" gap="sm">
          <Button component={Link} to="/landing/" variant="default">
            {t('common:actions.back')}
          </Button>
          <Button onClick={handleSubmit(onSubmit)} disabled={!isValid} loading={mutation.isPending}>
            {t('common:actions.save')}
          </Button>
        </Group>
      </Paper>
    </Stack>
  );
}

/** Spec 2.10 physician edit; spec 6: physicians only. */
export default function PhysicianEditPage() {
  const credentials = useCredentials();
  const record = useMyRecord();
  if (!credentials?.user?.isPhysicianType) return <Navigate to="/landing/" replace />;
  return (
    <AccountPageFrame loading={record.isPending} error={record.error}>
      {record.data && <PhysicianEditForm record={record.data} />}
    </AccountPageFrame>
  );
}
