import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Checkbox, Group, Stack } from '@mantine/core';
import { TOAST_MS } from '@portal/shared/limits';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { PasswordField } from '../../../components/password-field';
import { errorText } from '../../../lib/errors';
import { notify } from '../../../lib/notify';
import { changePasswordSchema, type ChangePasswordValues } from '../account-edit-schemas';
import { useChangePasswordMutation } from '../api/account-api';

/** Spec 3 changePassword form: the fields (and the current password) appear when the box is ticked. */
export function ChangePasswordForm() {
  const { t } = useTranslation(['account', 'common']);
  const [open, setOpen] = useState(false);
  const mutation = useChangePasswordMutation();
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors },
  } = useForm<ChangePasswordValues>({
    resolver: zodResolver(changePasswordSchema),
    defaultValues: { currentPassword: '', newPassword: '', confirmNewPassword: '' },
  });
  const fieldError = (message?: string) => (message ? t(message, { ns: 'common' }) : undefined);

  const onSubmit = async (values: ChangePasswordValues) => {
    try {
      await mutation.mutateAsync(values);
      notify('success', t('edit.passwordChanged'), TOAST_MS.mfaEdit);
      reset();
      setOpen(false);
    } catch (error) {
      notify('error', errorText(error), TOAST_MS.mfaEdit);
    }
  };

  return (
    <Stack gap="sm">
      <Checkbox label={t('edit.changePassword')} checked={open} onChange={(e) => setOpen(e.currentTarget.checked)} />
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
            <PasswordField
              label={t('edit.newPassword')}
              description={t('common:hints.passwordMin')}
              autoComplete="new-password"
              required
              error={fieldError(errors.newPassword?.message)}
              {...register('newPassword')}
            />
            <PasswordField
              label={t('edit.confirmNewPassword')}
              autoComplete="new-password"
              required
              error={fieldError(errors.confirmNewPassword?.message)}
              {...register('confirmNewPassword')}
            />
            <Group justify="flex-end">
              <Button type="submit" variant="light" loading={mutation.isPending}>
                {t('edit.savePassword')}
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Stack>
  );
}
