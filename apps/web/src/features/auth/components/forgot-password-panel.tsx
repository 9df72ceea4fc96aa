import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { TOAST_MS } from '@portal/shared/limits';
import { EMAIL_PATTERN } from '@portal/shared/formats';
import { useEffect } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { ApiError } from '../../../lib/api-client';
import { errorText } from '../../../lib/errors';
import { currentLanguage } from '../../../lib/i18n';
import { notify } from '../../../lib/notify';
import { useForgotPasswordMutation } from '../api/auth-api';

const schema = z.object({
  email: z.string().trim().min(1, 'validation.required').regex(EMAIL_PATTERN, 'validation.email'),
});
type Values = z.infer<typeof schema>;

/** Spec 2.4 and 4.3: password recovery panel, toggling with the login panel. */
export function ForgotPasswordPanel({ onBack }: { onBack: () => void }) {
  const { t } = useTranslation(['auth', 'common']);
  const mutation = useForgotPasswordMutation();
  const {
    register,
    handleSubmit,
    setFocus,
    formState: { errors },
  } = useForm<Values>({ resolver: zodResolver(schema), defaultValues: { email: '' } });

  useEffect(() => setFocus('email'), [setFocus]);

  const onSubmit = async ({ email }: Values) => {
    try {
      await mutation.mutateAsync({ username: email.trim(), language: currentLanguage() });
      notify('success', t('forgot.sent'), TOAST_MS.protocolValidation);
      onBack();
    } catch (error) {
      const tooMany = error instanceof ApiError && error.status === 429;
      notify('error', tooMany ? errorText(error) : t('forgot.notFound'), TOAST_MS.long);
    }
  };

  return (
    <form onSubmit={handleSubmit(onSubmit)} noValidate aria-labelledby="forgot-title">
      <Stack gap="md">
        <Title order={2} size="h3" id="forgot-title">
          {t('forgot.title')}
        </Title>
        <Text size="sm">{t('forgot.text')}</Text>
        <TextInput
          label={t('forgot.email')}
          type="email"
          autoComplete="email"
          required
          error={errors.email?.message ? t(errors.email.message, { ns: 'common' }) : undefined}
          data-testid="forgot-email"
          {...register('email')}
        />
        <Group justify="space-between" wrap="wrap-reverse">
          <Button variant="default" onClick={onBack}>
            {t('forgot.back')}
          </Button>
          <Button type="submit" loading={mutation.isPending}>
            {t('forgot.submit')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
