import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Loader, Stack, TextInput } from '@mantine/core';
import { TOAST_MS } from '@portal/shared/limits';
import { Controller, useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { PasswordField } from '../../../components/password-field';
import { useNavigate, useSearchParams } from 'react-router';
import { z } from 'zod';
import { PageCard } from '../../../components/page-card';
import { TermsAcceptance } from '../../../components/terms-acceptance';
import { TokenInvalidNotice } from '../../../components/token-invalid-notice';
import { errorKey } from '../../../lib/error-keys';
import { errorText, serverMessageOf } from '../../../lib/errors';
import { fieldPassword, fieldRequired, mustMatch } from '../../../lib/form-schemas';
import { currentLanguage } from '../../../lib/i18n';
import { notify } from '../../../lib/notify';
import { usePageTitle } from '../../../lib/use-page-title';
import { useCompanyInvitation, useCreateCompanyAccessMutation } from '../api/company-access-api';

const schema = z
  .object({
    fullName: fieldRequired,
    password: fieldPassword,
    confirmPassword: z.string().min(1, 'validation.required'),
    acceptTerms: z.boolean().refine((v) => v, 'validation.termsRequired'),
  })
  .superRefine(mustMatch('password', 'confirmPassword', 'validation.passwordsMatch'));
type Values = z.infer<typeof schema>;

/** Spec 2.5 and 4.3: /company-access/create?token&language. */
export default function CompanyAccessPage() {
  const { t } = useTranslation(['account', 'common']);
  usePageTitle(t('companyAccess.title'));
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const invitation = useCompanyInvitation(token);
  const mutation = useCreateCompanyAccessMutation();
  const {
    control,
    register,
    handleSubmit,
    formState: { errors },
  } = useForm<Values>({
    resolver: zodResolver(schema),
    defaultValues: { fullName: '', password: '', confirmPassword: '', acceptTerms: false },
  });
  const fieldError = (message?: string) => (message ? t(message, { ns: 'common' }) : undefined);

  const onSubmit = async (values: Values) => {
    try {
      await mutation.mutateAsync({
        token,
        fullName: values.fullName.trim(),
        password: values.password,
        confirmPassword: values.confirmPassword,
        acceptTerms: true,
        language: currentLanguage(),
      });
      navigate('/login?activeSuccess=true');
    } catch (error) {
      // Spec 8: the server's own text, translated when the catalogue knows it.
      const raw = serverMessageOf(error);
      const key = errorKey(raw, '');
      notify('error', key ? t(`errors:${key}`) : raw || errorText(error), TOAST_MS.long);
    }
  };

  let body;
  if (!token || invitation.isError) body = <TokenInvalidNotice />;
  else if (invitation.isPending) body = <Loader aria-label={t('common:loading.text')} />;
  else {
    body = (
      <form onSubmit={handleSubmit(onSubmit)} noValidate>
        <Stack gap="md">
          <TextInput label={t('companyAccess.email')} value={invitation.data} readOnly autoComplete="username" />
          <TextInput
            label={t('companyAccess.fullName')}
            autoComplete="name"
            required
            error={fieldError(errors.fullName?.message)}
            {...register('fullName')}
          />
          <PasswordField
            label={t('companyAccess.password')}
            description={t('common:hints.passwordMin')}
            autoComplete="new-password"
            required
            error={fieldError(errors.password?.message)}
            {...register('password')}
          />
          <PasswordField
            label={t('companyAccess.confirmPassword')}
            autoComplete="new-password"
            required
            error={fieldError(errors.confirmPassword?.message)}
            {...register('confirmPassword')}
          />
          <Controller
            control={control}
            name="acceptTerms"
            render={({ field }) => (
              <TermsAcceptance
                userType="COMPANY"
                checked={field.value}
                onChange={field.onChange}
                error={fieldError(errors.acceptTerms?.message)}
              />
            )}
          />
          <Button type="submit" loading={mutation.isPending}>
            {t('companyAccess.submit')}
          </Button>
        </Stack>
      </form>
    );
  }
  return <PageCard title={t('companyAccess.title')}>{body}</PageCard>;
}
