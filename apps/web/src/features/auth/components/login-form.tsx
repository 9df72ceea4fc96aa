import { zodResolver } from '@hookform/resolvers/zod';
import { Anchor, Button, Group, SegmentedControl, Stack, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { ServerMessage } from '@portal/shared/errors';
import { DELAY_MS, MFA_TOKEN_LENGTH, TOAST_MS } from '@portal/shared/limits';
import { digitsOnly, formatCpf, looksLikeEmail, parseBrDate } from '@portal/shared/formats';
import { lazy, Suspense, useCallback, useEffect, useRef, useState } from 'react';
import { Controller, useForm, useWatch } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { PasswordField } from '../../../components/password-field';
import { Link, useNavigate } from 'react-router';
import { MaskedField } from '../../../components/masked-field';
import { MaskedInput } from '../../../components/masked-input';
import { ApiError } from '../../../lib/api-client';
import { errorText, isServerError } from '../../../lib/errors';
import { MASK } from '../../../lib/masks';
import { notify } from '../../../lib/notify';
import { markDrawnFormTaken, typedIntoDrawnForm, useHydrated } from '../../../lib/drawn-screen';
import { clearCredentials, setOriginCode, storeCredentials } from '../../../lib/session';
import type { PasskeyAssertion } from '@portal/shared/schemas/passkeys';
import {
  cancelPasskeyRequest,
  isCancelled,
  passkeyAssertion,
  passkeyAutofillSupported,
  passkeySignIn,
} from '../../passkeys/passkeys-api';
import { useLoginMutation, type LoginPayload } from '../api/auth-api';
import { useRememberedCpf } from '../hooks/use-remembered-cpf';
import { loginFormSchema, type LoginFormValues } from '../login-form-schema';

// Only the CPF mode shows it, and /login opens in the protocol or e-mail mode.
const RememberCpfCheckbox = lazy(() => import('./remember-cpf-checkbox'));

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A protocol login sends the date of birth only when it is a real dd/mm/yyyy date (spec 5). */
function dateOfBirthToSend(userName: string, value: string): string {
  if (looksLikeEmail(userName)) return '';
  return /^\d{2}\/\d{2}\/\d{4}$/.test(value) && parseBrDate(value) ? value : '';
}

export interface LoginFormProps {
  /** The institution code of a branded login page. */
  customLogin?: string;
  onForgotPassword: () => void;
}

/** Spec 2.4: one form, two modes (protocol or e-mail / CPF), MFA token after a challenge. */
export function LoginForm({ customLogin, onForgotPassword }: LoginFormProps) {
  const { t } = useTranslation(['auth', 'common']);
  const navigate = useNavigate();
  const mutation = useLoginMutation();
  const { remembered, remember, forget } = useRememberedCpf();
  const tokenRef = useRef<HTMLInputElement>(null);

  const {
    control,
    register,
    handleSubmit,
    setValue,
    setFocus,
    getValues,
    formState: { errors, isSubmitting },
  } = useForm<LoginFormValues>({
    resolver: zodResolver(loginFormSchema),
    defaultValues: {
      mode: remembered ? 'cpf' : 'default',
      userName: '',
      cpf: remembered ?? '',
      password: '',
      dateOfBirth: '',
      tokenMFA: '',
      rememberCpf: Boolean(remembered),
      mfaRequired: false,
    },
  });
  // The screen drawn at build time (login.html) can be typed into before the app has loaded: what
  // was typed is put back once the form is running; until then it cannot be sent, since a form
  // sent by the browser itself would put the password in the address.
  const hydrated = useHydrated();
  const [typed] = useState(typedIntoDrawnForm);
  useEffect(() => {
    markDrawnFormTaken();
    for (const name of ['userName', 'cpf', 'password', 'dateOfBirth'] as const) {
      const value = typed[name];
      if (value) setValue(name, value);
    }
  }, [typed, setValue]);
  const mode = useWatch({ control, name: 'mode' });
  const userName = useWatch({ control, name: 'userName' });
  const mfaRequired = useWatch({ control, name: 'mfaRequired' });
  const showDateOfBirth = mode === 'default' && !looksLikeEmail(userName);

  useEffect(() => {
    if (mfaRequired) tokenRef.current?.focus();
    // The password is in: the user name's passkey suggestions are no longer what is asked.
    if (mfaRequired) void cancelPasskeyRequest();
  }, [mfaRequired]);

  const fieldError = (message: string | undefined) => (message ? t(message, { ns: 'common' }) : undefined);
  const [passkeyBusy, setPasskeyBusy] = useState(false);

  /** A passkey alone: the same session as a password sign-in. */
  const signInWithPasskey = useCallback(
    async (autofill: boolean) => {
      let assertion: PasskeyAssertion;
      try {
        assertion = await passkeyAssertion(autofill);
      } catch (error) {
        // The autofill request ends silently (the page left, or another ceremony began).
        if (autofill) return;
        if (isCancelled(error)) notify('info', t('login.passkeyCancelled'), TOAST_MS.long);
        else notify('error', errorText(error, 'errors.loginDefault'), TOAST_MS.long);
        return;
      }
      setPasskeyBusy(true);
      try {
        const result = await passkeySignIn(assertion, customLogin?.toUpperCase());
        storeCredentials({ token: result.accessToken, user: result.user });
        setOriginCode(customLogin ?? null);
        navigate('/landing/');
      } catch (error) {
        clearCredentials();
        notify(isServerError(error) ? 'error' : 'info', errorText(error, 'errors.loginDefault'), TOAST_MS.persistent);
      } finally {
        setPasskeyBusy(false);
      }
    },
    [customLogin, navigate, t],
  );

  // The browser's conditional UI: saved passkeys are offered among the user name suggestions.
  useEffect(() => {
    let live = true;
    void passkeyAutofillSupported()
      .then((supported) => {
        if (live && supported) void signInWithPasskey(true);
      })
      .catch(() => undefined);
    return () => {
      live = false;
      void cancelPasskeyRequest();
    };
  }, [signInWithPasskey]);

  /** MFA is on: a passkey of the account in place of the code sent by SMS. */
  const secondFactorPasskey = async () => {
    let assertion: PasskeyAssertion;
    try {
      assertion = await passkeyAssertion(false);
    } catch (error) {
      if (isCancelled(error)) notify('info', t('login.passkeyCancelled'), TOAST_MS.long);
      else notify('error', errorText(error, 'errors.loginDefault'), TOAST_MS.long);
      return;
    }
    setPasskeyBusy(true);
    try {
      await onSubmit(getValues(), assertion);
    } finally {
      setPasskeyBusy(false);
    }
  };

  const onSubmit = async (values: LoginFormValues, passkey?: PasskeyAssertion) => {
    notifications.clean();
    const payload: LoginPayload = {
      userName: values.mode === 'cpf' ? formatCpf(values.cpf) : values.userName.trim(),
      password: values.password,
      dateOfBirth: values.mode === 'cpf' ? '' : dateOfBirthToSend(values.userName, values.dateOfBirth),
      tokenMFA: values.mfaRequired && !passkey ? digitsOnly(values.tokenMFA).slice(0, MFA_TOKEN_LENGTH) : '',
      ...(passkey ? { passkey } : {}),
      appKey: 'login',
      ...(customLogin ? { customLogin: customLogin.toUpperCase() } : {}),
    };
    try {
      const result = await mutation.mutateAsync(payload);
      if (values.mode === 'cpf') {
        if (values.rememberCpf) remember(values.cpf);
        else forget();
      }
      storeCredentials({ token: result.accessToken, user: result.user });
      setOriginCode(customLogin ?? null);
      navigate('/landing/');
    } catch (error) {
      clearCredentials();
      await wait(DELAY_MS.loginErrorHandling);
      const status = error instanceof ApiError ? error.status : 0;
      const serverMessage = error instanceof ApiError ? error.serverMessage : '';
      if (isServerError(error)) {
        notify('error', errorText(error, 'errors.loginDefault'), TOAST_MS.long);
      } else if (
        status === 400 &&
        !serverMessage.includes(ServerMessage.cpfInvalid) &&
        serverMessage !== ServerMessage.validation
      ) {
        // The account has MFA on: the code went to the phone and must be typed here.
        notify('warning', t('login.mfaChallenge'), TOAST_MS.mfaEdit);
        setValue('tokenMFA', '');
        setValue('mfaRequired', true);
      } else if (status === 400) {
        notify('error', errorText(error, 'errors.loginDefault'), TOAST_MS.long);
      } else {
        if (values.mfaRequired) {
          setValue('mfaRequired', false);
          setValue('tokenMFA', '');
        }
        notify('info', errorText(error, 'errors.loginDefault'), TOAST_MS.persistent);
      }
    }
  };

  return (
    <form onSubmit={handleSubmit((values) => onSubmit(values))} noValidate aria-label={t('login.formLabel')}>
      <Stack gap="md">
        <Controller
          control={control}
          name="mode"
          render={({ field }) => (
            <SegmentedControl
              fullWidth
              aria-label={t('login.modeLabel')}
              value={field.value}
              onChange={(value) => {
                field.onChange(value);
                setValue('mfaRequired', false);
                setTimeout(() => setFocus(value === 'cpf' ? 'cpf' : 'userName'), 0);
              }}
              data={[
                { value: 'default', label: t('login.modeDefault') },
                { value: 'cpf', label: t('login.modeCpf') },
              ]}
            />
          )}
        />

        {mode === 'default' ? (
          <TextInput
            label={t('login.userName')}
            description={t('login.userNameHint')}
            autoComplete="username webauthn"
            autoCapitalize="none"
            spellCheck={false}
            required
            error={fieldError(errors.userName?.message)}
            data-testid="login-username"
            {...register('userName')}
          />
        ) : (
          <Stack gap={6}>
            <MaskedField
              control={control}
              name="cpf"
              label={t('login.cpf')}
              mask={MASK.cpf}
              inputMode="numeric"
              autoComplete="username webauthn"
              placeholder="000.000.000-00"
              required
              error={fieldError(errors.cpf?.message)}
              data-testid="login-cpf"
            />
            <Group justify="space-between" gap="xs">
              <Controller
                control={control}
                name="rememberCpf"
                render={({ field }) => (
                  <Suspense fallback={null}>
                    <RememberCpfCheckbox
                      label={t('login.rememberCpf')}
                      checked={field.value}
                      onChange={field.onChange}
                    />
                  </Suspense>
                )}
              />
              {remembered && (
                <Button
                  variant="subtle"
                  size="compact-sm"
                  onClick={() => {
                    forget();
                    setValue('cpf', '');
                    setValue('rememberCpf', false);
                    setFocus('cpf');
                  }}
                >
                  {t('login.forgetCpf')}
                </Button>
              )}
            </Group>
          </Stack>
        )}

        <PasswordField
          label={t('login.password')}
          autoComplete="current-password"
          required
          error={fieldError(errors.password?.message)}
          data-testid="login-password"
          {...register('password')}
        />

        {showDateOfBirth && (
          <MaskedField
            control={control}
            name="dateOfBirth"
            label={t('login.dateOfBirth')}
            description={t('login.dateOfBirthHint')}
            mask={MASK.date}
            inputMode="numeric"
            autoComplete="bday"
            placeholder={t('common:formats.datePlaceholder')}
            data-testid="login-birthdate"
          />
        )}

        {mfaRequired && (
          <Controller
            control={control}
            name="tokenMFA"
            render={({ field }) => (
              <MaskedInput
                label={t('login.mfaToken')}
                description={t('login.mfaTokenHint')}
                mask={MASK.mfaToken}
                inputMode="numeric"
                autoComplete="one-time-code"
                required
                name={field.name}
                value={field.value}
                onChange={field.onChange}
                onBlur={field.onBlur}
                inputRef={(element: HTMLInputElement | null) => {
                  field.ref(element);
                  tokenRef.current = element;
                }}
                error={fieldError(errors.tokenMFA?.message)}
                data-testid="login-mfa"
              />
            )}
          />
        )}
        {mfaRequired && (
          <Button
            variant="default"
            onClick={() => void secondFactorPasskey()}
            loading={passkeyBusy}
            data-testid="login-mfa-passkey"
          >
            {t('login.passkeyInstead')}
          </Button>
        )}

        <Group justify="flex-end">
          <Anchor component="button" type="button" size="sm" onClick={onForgotPassword}>
            {t('login.forgotPassword')}
          </Anchor>
        </Group>

        <Button
          type="submit"
          size="md"
          fullWidth
          loading={isSubmitting}
          disabled={!hydrated}
          data-testid="login-submit"
        >
          {t('login.submit')}
        </Button>
        {!mfaRequired && (
          <Button
            variant="default"
            size="md"
            fullWidth
            onClick={() => void signInWithPasskey(false)}
            loading={passkeyBusy}
            data-testid="login-passkey"
          >
            {t('login.passkeySignIn')}
          </Button>
        )}

        <Stack gap={6} align="center">
          <Anchor component={Link} to="/patient/create" size="sm">
            {t('login.createAccount')}
          </Anchor>
          <Anchor component={Link} to="/physician-info" size="sm">
            {t('login.iAmPhysician')}
          </Anchor>
        </Stack>
      </Stack>
    </form>
  );
}
