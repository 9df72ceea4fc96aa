import { Alert, Anchor, Button, Group, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { AuthMessage } from '@portal/shared/messages';
import type { LoginResponse } from '@portal/shared/schemas/auth';
import { CardScreen, useDocumentTitle } from '../components/page';
import { api, ApiError } from '../lib/api';
import { errorKey } from '../lib/errors';
import { currentLanguage } from '../lib/i18n';
import { storeCredentials, useCredentials } from '../lib/session';

/** Sign-in for admin and company users (`appKey: "admin"`); everyone else is sent to the results portal. */
export function LoginPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const credentials = useCredentials();
  const [userName, setUserName] = useState('');
  const [password, setPassword] = useState('');
  const [forgot, setForgot] = useState(false);
  useDocumentTitle(t('login.title'));

  // What is sent is what the submit read from the form, never values of an earlier render.
  const signIn = useMutation({
    mutationFn: (typed: { userName: string; password: string }) =>
      api<LoginResponse['data']>('/api/v2/auth/login', {
        body: { userName: typed.userName.trim(), password: typed.password, dateOfBirth: '', appKey: 'admin' },
        signIn: true,
      }),
    onSuccess: (data) => {
      storeCredentials({ token: data.accessToken, user: data.user });
      void navigate('/dashboard', { replace: true });
    },
  });
  const recover = useMutation({
    mutationFn: (typedUserName: string) =>
      api<boolean>('/api/auth/password/forgotPassword', {
        method: 'POST',
        query: { username: typedUserName.trim(), language: currentLanguage().toUpperCase() },
        signIn: true,
      }),
  });

  if (credentials) return <Navigate to="/dashboard" replace />;
  const notAdmin = signIn.error instanceof ApiError && signIn.error.serverMessage.includes(AuthMessage.adminLoginOnly);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (forgot) recover.mutate(userName);
    else signIn.mutate({ userName, password });
  };

  return (
    <CardScreen width={420}>
      <form onSubmit={submit} noValidate>
        <Stack>
          <Title order={1} size="h2">
            {t('layout.title')}
          </Title>
          <Text c="dimmed">{forgot ? t('login.forgotIntro') : t('login.intro')}</Text>
          {params.get('expired') && !signIn.error ? (
            <Alert color="yellow" role="status">
              {t('login.expired')}
            </Alert>
          ) : null}
          {notAdmin ? (
            <Alert color="yellow" role="alert" title={t('login.notAdminTitle')}>
              {t('login.notAdmin')} <Anchor href="/login">{t('login.toPortal')}</Anchor>
            </Alert>
          ) : signIn.error ? (
            <Alert color="red" role="alert">
              {t(errorKey(signIn.error))}
            </Alert>
          ) : null}
          {recover.isSuccess ? (
            <Alert color="green" role="status">
              {t('login.forgotSent')}
            </Alert>
          ) : null}
          <TextInput
            label={t('login.email')}
            type="email"
            autoComplete="username"
            required
            value={userName}
            onChange={(e) => setUserName(e.currentTarget.value)}
          />
          {!forgot ? (
            <PasswordInput
              label={t('login.password')}
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
            />
          ) : null}
          <Button type="submit" loading={signIn.isPending || recover.isPending} disabled={!userName}>
            {forgot ? t('login.sendLink') : t('login.submit')}
          </Button>
          <Group justify="space-between">
            <Anchor
              component="button"
              type="button"
              onClick={() => {
                setForgot(!forgot);
                recover.reset();
                signIn.reset();
              }}
            >
              {forgot ? t('login.back') : t('login.forgot')}
            </Anchor>
            <Anchor href="/login">{t('login.toPortal')}</Anchor>
          </Group>
        </Stack>
      </form>
    </CardScreen>
  );
}
