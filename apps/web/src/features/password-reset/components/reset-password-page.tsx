import { zodResolver } from '@hookform/resolvers/zod';
import { Alert, Button, Loader, Stack, TextInput } from '@mantine/core';
import { TOAST_MS } from '@portal/shared/limits';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { PasswordField } from '../../../components/password-field';
import { Link, useSearchParams } from 'react-router';
import { z } from 'zod';
import { AlertIcon, CheckIcon } from '../../../components/icons';
import { PageCard } from '../../../components/page-card';
import { errorText } from '../../../lib/errors';
import { fieldPassword, mustMatch } from '../../../lib/form-schemas';
import { currentLanguage } from '../../../lib/i18n';
import { notify } from '../../../lib/notify';
import { usePageTitle } from '../../../lib/use-page-title';
import { useResetPasswordMutation, useResetTokenEmail } from '../api/password-reset-api';

const schema = z
  .object({ newPassword: fieldPassword, confirmNewPassword: z.string().min(1, 'validation.required') })
  .superRefine(mustMatch('newPassword', 'confirmNewPassword', 'validation.passwordsMatch'));
type Values = z.infer<typeof schema>;

/** Spec 2.5 and 4.3: /password/reset?token&language. */
export default function ResetPasswordPage() {
  const { t } = useTranslation(['account', 'common']);
  usePageTitle(t('reset.title'));
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const tokenCheck = useResetTokenEmail(token);
  const mutation = useResetPasswordMutation();
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm<Values>({ resolver: zodResolver(schema), defaultValues: { newPassword: '', confirmNewPassword: '' } });
  const fieldError = (message?: string) => (message ? t(message, { ns: 'common' }) : undefined);

  const onSubmit = async (values: Values) => {
    try {
      await mutation.mutateAsync({
        token,
        password: values.newPassword,
        confirmPassword: values.confirmNewPassword,
        language: currentLanguage(),
      });
    } catch (error) {
      notify('error', errorText(error, 'errors.generic'), TOAST_MS.long);
    }
  };

  let body;
  if (!token || tokenCheck.isError) {
    body = (
      <Alert color="yellow" icon={<AlertIcon />} title={t('reset.invalidTitle')} role="status">
        <Stack gap="xs" align="flex-start">
          {t('reset.invalidText')}
          <Button component={Link} to="/login?toPassWordRecovery=true" variant="light" size="sm">
            {t('reset.askAgain')}
          </Button>
        </Stack>
      </Alert>
    );
  } else if (tokenCheck.isPending) {
    body = <Loader aria-label={t('common:loading.text')} />;
  } else if (mutation.isSuccess) {
    body = (
      <Alert color="green" icon={<CheckIcon />} title={t('reset.successTitle')} role="status">
        <Stack gap="xs" align="flex-start">
          {t('reset.successText')}
          <Button component={Link} to="/landing/" size="sm">
            {t('reset.goToLogin')}
          </Button>
        </Stack>
      </Alert>
    );
  } else {
    body = (
      <form onSubmit={handleSubmit(onSubmit)} noValidate>
        <Stack gap="md">
          <TextInput label={t('reset.email')} value={tokenCheck.data} readOnly autoComplete="username" />
          <PasswordField
            label={t('reset.newPassword')}
            description={t('common:hints.passwordMin')}
            autoComplete="new-password"
            required
            error={fieldError(errors.newPassword?.message)}
            {...register('newPassword')}
          />
          <PasswordField
            label={t('reset.confirmPassword')}
            autoComplete="new-password"
            required
            error={fieldError(errors.confirmNewPassword?.message)}
            {...register('confirmNewPassword')}
          />
          <Button type="submit" loading={mutation.isPending}>
            {t('reset.submit')}
          </Button>
        </Stack>
      </form>
    );
  }

  return <PageCard title={t('reset.title')}>{body}</PageCard>;
}
