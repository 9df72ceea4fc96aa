import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Checkbox, Group, Stack, Text, TextInput } from '@mantine/core';
import { TOAST_MS } from '@portal/shared/limits';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { PasswordField } from '../../../components/password-field';
import { errorText } from '../../../lib/errors';
import { notify } from '../../../lib/notify';
import { changeEmailSchema, type ChangeEmailValues } from '../account-edit-schemas';
import { useChangeEmailMutation } from '../api/account-api';

/** Spec 3 changeEmail form (changeNewEmail ticks it open). */
export function ChangeEmailForm({ currentEmail }: { currentEmail: string }) {
  const { t } = useTranslation(['account', 'common']);
  const [open, setOpen] = useState(false);
  const mutation = useChangeEmailMutation();
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors },
  } = useForm<ChangeEmailValues>({
    resolver: zodResolver(changeEmailSchema),
    defaultValues: { currentPassword: '', newEmail: '', confirmNewEmail: '' },
  });
  const fieldError = (message?: string) => (message ? t(message, { ns: 'common' }) : undefined);

  const onSubmit = async (values: ChangeEmailValues) => {
    try {
      await mutation.mutateAsync({
        ...values,
        newEmail: values.newEmail.trim(),
        confirmNewEmail: values.confirmNewEmail.trim(),
      });
      notify('success', t('edit.emailChanged'), TOAST_MS.mfaEdit);
      reset();
      setOpen(false);
    } catch (error) {
      notify('error', errorText(error), TOAST_MS.mfaEdit);
    }
  };

  return (
    <Stack gap="sm">
      <Text size="sm">
        {t('edit.currentEmail')}: <strong>{currentEmail}</strong>
      </Text>
      <Checkbox label={t('edit.changeEmail')} checked={open} onChange={(e) => setOpen(e.currentTarget.checked)} />
      {open && (
        <form onSubmit={handleSubmit(onSubmit)} noValidate>
          <Stack gap="sm">
            <PasswordField
              label={t('edit.currentPassword')}
              autoComplete="current-password"
              required
              error={fieldError(errors.currentPassword?.message)}
              {...register('currentPassword')}
            />
            <TextInput
              label={t('edit.newEmail')}
              description={t('edit.newEmailHint')}
              type="email"
              autoComplete="email"
              required
              error={fieldError(errors.newEmail?.message)}
              {...register('newEmail')}
            />
            <TextInput
              label={t('edit.confirmNewEmail')}
              type="email"
              autoComplete="email"
              required
              error={fieldError(errors.confirmNewEmail?.message)}
              {...register('confirmNewEmail')}
            />
            <Group justify="flex-end">
              <Button type="submit" variant="light" loading={mutation.isPending}>
                {t('edit.saveEmail')}
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Stack>
  );
}
