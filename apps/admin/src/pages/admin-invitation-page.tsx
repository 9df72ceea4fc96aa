import { Alert, Anchor, Button, Center, Loader, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { PASSWORD_MIN } from '@portal/shared/limits';
import type { LoginResponse } from '@portal/shared/schemas/auth';
import { CardScreen, useDocumentTitle } from '../components/page';
import { api } from '../lib/api';
import { errorKey } from '../lib/errors';
import { currentLanguage } from '../lib/i18n';
import { clearCredentials, storeCredentials } from '../lib/session';

/**
 * The first-password page of an admin invitation (`/admin/invitation?token=…`, the mail's link):
 * the invited person names themself, chooses a password and is signed in to the console.
 */
export function AdminInvitationPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  // Null until the person types: the invitation's name fills the field meanwhile.
  const [typedName, setFullName] = useState<string | null>(null);
  const [password, setPassword] = useState('');
  const [confirmPassword, setConfirmPassword] = useState('');
  const [touched, setTouched] = useState(false);
  useDocumentTitle(t('adminInvitation.title'));
  const invitation = useQuery({
    queryKey: ['admin-invitation', token],
    queryFn: () =>
      api<{ email: string; name: string | null }>('/api/auth/admin/invite/validate', {
        query: { token },
        signIn: true,
      }),
    enabled: token !== '',
  });
  const fullName = typedName ?? invitation.data?.name ?? '';
  const create = useMutation({
    mutationFn: async () => {
      await api('/api/auth/admin/create', {
        body: { token, fullName: fullName.trim(), password, confirmPassword, language: currentLanguage() },
        signIn: true,
      });
      return api<LoginResponse['data']>('/api/v2/auth/login', {
        body: { userName: invitation.data?.email ?? '', password, dateOfBirth: '', appKey: 'admin' },
        signIn: true,
      });
    },
    onSuccess: (data) => {
      clearCredentials();
      storeCredentials({ token: data.accessToken, user: data.user });
      void navigate('/dashboard', { replace: true });
    },
  });
  const tooShort = password.length < PASSWORD_MIN;
  const mismatch = confirmPassword !== password;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (!fullName.trim() || tooShort || mismatch) return;
    create.mutate();
  };
  const dead = token === '' || invitation.isError;
  return (
    <CardScreen width={460}>
      <Stack>
        <Title order={1} size="h2">
          {t('adminInvitation.title')}
        </Title>
        {dead ? (
          <>
            <Alert color="red" role="alert" title={t('adminInvitation.deadTitle')}>
              {t('adminInvitation.dead')}
            </Alert>
            <Anchor component={Link} to="/login">
              {t('adminInvitation.toLogin')}
            </Anchor>
          </>
        ) : !invitation.data ? (
          <Center>
            <Loader aria-label={t('common.loading')} />
          </Center>
        ) : (
          <form onSubmit={submit} noValidate>
            <Stack>
              <Text c="dimmed">{t('adminInvitation.intro')}</Text>
              {create.error ? (
                <Alert color="red" role="alert">
                  {t(errorKey(create.error))}
                </Alert>
              ) : null}
              <TextInput label={t('fields.email')} value={invitation.data.email} readOnly />
              <TextInput
                label={t('adminInvitation.fullName')}
                autoComplete="name"
                required
                value={fullName}
                onChange={(e) => setFullName(e.currentTarget.value)}
                error={touched && !fullName.trim() ? t('validation.required') : undefined}
              />
              <PasswordInput
                label={t('adminInvitation.password')}
                description={t('adminInvitation.passwordHelp', { min: PASSWORD_MIN })}
                autoComplete="new-password"
                required
                value={password}
                onChange={(e) => setPassword(e.currentTarget.value)}
                error={touched && tooShort ? t('adminInvitation.passwordHelp', { min: PASSWORD_MIN }) : undefined}
              />
              <PasswordInput
                label={t('adminInvitation.confirm')}
                autoComplete="new-password"
                required
                value={confirmPassword}
                onChange={(e) => setConfirmPassword(e.currentTarget.value)}
                error={touched && mismatch ? t('adminInvitation.mismatch') : undefined}
              />
              <Button type="submit" loading={create.isPending}>
                {t('adminInvitation.submit')}
              </Button>
            </Stack>
          </form>
        )}
      </Stack>
    </CardScreen>
  );
}
