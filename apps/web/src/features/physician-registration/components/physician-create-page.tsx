import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Loader, SimpleGrid, Stack, TextInput } from '@mantine/core';
import { TOAST_MS } from '@portal/shared/limits';
import { useEffect } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { PasswordField } from '../../../components/password-field';
import { useNavigate, useSearchParams } from 'react-router';
import { z } from 'zod';
import { PageCard } from '../../../components/page-card';
import { TokenInvalidNotice } from '../../../components/token-invalid-notice';
import { errorText } from '../../../lib/errors';
import { fieldPassword, fieldRequired, mustMatch } from '../../../lib/form-schemas';
import { currentLanguage } from '../../../lib/i18n';
import { notify } from '../../../lib/notify';
import { usePageTitle } from '../../../lib/use-page-title';
import { useCreatePhysicianMutation, usePhysicianInvitation } from '../api/physician-registration-api';

const schema = z
  .object({
    fullName: fieldRequired,
    password: fieldPassword,
    confirmPassword: z.string().min(1, 'validation.required'),
  })
  .superRefine(mustMatch('password', 'confirmPassword', 'validation.passwordsMatch'));
type Values = z.infer<typeof schema>;

/** Spec 2.5: /physician/create?code&token&language; CRM and UF come from the invitation, read-only. */
export default function PhysicianCreatePage() {
  const { t } = useTranslation(['account', 'common']);
  usePageTitle(t('physicianCreate.title'));
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const invitation = usePhysicianInvitation(token);
  const mutation = useCreatePhysicianMutation();
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors },
  } = useForm<Values>({
    resolver: zodResolver(schema),
    defaultValues: { fullName: '', password: '', confirmPassword: '' },
  });

  useEffect(() => {
    if (invitation.data) reset((values) => ({ ...values, fullName: values.fullName || invitation.data.name || '' }));
  }, [invitation.data, reset]);

  const fieldError = (message?: string) => (message ? t(message, { ns: 'common' }) : undefined);

  const onSubmit = async (values: Values) => {
    try {
      await mutation.mutateAsync({
        token,
        fullName: values.fullName.trim(),
        password: values.password,
        confirmPassword: values.confirmPassword,
        language: currentLanguage(),
      });
      navigate('/login?activeSuccess=true');
    } catch (error) {
      notify('error', errorText(error), TOAST_MS.long);
    }
  };

  let body;
  if (!token || invitation.isError) body = <TokenInvalidNotice />;
  else if (invitation.isPending) body = <Loader aria-label={t('common:loading.text')} />;
  else {
    const data = invitation.data;
    body = (
      <form onSubmit={handleSubmit(onSubmit)} noValidate>
        <Stack gap="md">
          {data.institutionName && (
            <TextInput label={t('physicianCreate.institution')} value={data.institutionName} readOnly />
          )}
          <TextInput label={t('physicianCreate.email')} value={data.email} readOnly autoComplete="username" />
          <TextInput
            label={t('physicianCreate.fullName')}
            autoComplete="name"
            required
            error={fieldError(errors.fullName?.message)}
            {...register('fullName')}
          />
          <SimpleGrid cols={2} spacing="md">
            <TextInput label={t('physicianCreate.crm')} value={data.crm} readOnly />
            <TextInput label={t('physicianCreate.uf')} value={data.uf} readOnly />
          </SimpleGrid>
          <PasswordField
            label={t('physicianCreate.password')}
            description={t('common:hints.passwordMin')}
            autoComplete="new-password"
            required
            error={fieldError(errors.password?.message)}
            {...register('password')}
          />
          <PasswordField
            label={t('physicianCreate.confirmPassword')}
            autoComplete="new-password"
            required
            error={fieldError(errors.confirmPassword?.message)}
            {...register('confirmPassword')}
          />
          <Button type="submit" loading={mutation.isPending}>
            {t('physicianCreate.submit')}
          </Button>
        </Stack>
      </form>
    );
  }
  return <PageCard title={t('physicianCreate.title')}>{body}</PageCard>;
}
