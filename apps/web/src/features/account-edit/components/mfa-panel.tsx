import '@mantine/core/styles/Radio.css';
import { Button, Group, Loader, Radio, Stack, Text } from '@mantine/core';
import { MFA_PHONE_MIN_DIGITS, MFA_TOKEN_LENGTH, TOAST_MS } from '@portal/shared/limits';
import { digitsOnly } from '@portal/shared/formats';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PasswordField } from '../../../components/password-field';
import { StatusBadge } from '../../../components/status-badge';
import { CheckIcon, InfoIcon } from '../../../components/icons';
import { MaskedInput } from '../../../components/masked-input';
import { errorText, isServerError } from '../../../lib/errors';
import { MASK } from '../../../lib/masks';
import { notify } from '../../../lib/notify';
import { useMfaMutations, useMfaStatus } from '../api/account-api';

function notifyFailure(error: unknown) {
  // Spec 8: MFA server failures are errors, refusals are warnings; both for 6 s.
  notify(isServerError(error) ? 'error' : 'warning', errorText(error), TOAST_MS.mfaEdit);
}

/** Spec 4.6: initial (phone) → code sent → validated (phone locked, can disable) → back to initial. */
export function MfaPanel() {
  const { t } = useTranslation(['account', 'common']);
  const status = useMfaStatus();
  const { send, activate, inactivate } = useMfaMutations();
  const [phone, setPhone] = useState('');
  const [channel, setChannel] = useState<'whatsapp' | 'sms'>('whatsapp');
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [token, setToken] = useState('');
  const [password, setPassword] = useState('');
  const [phoneError, setPhoneError] = useState<string | undefined>();
  const [tokenError, setTokenError] = useState<string | undefined>();

  if (status.isPending) return <Loader size="sm" aria-label={t('common:loading.text')} />;
  if (status.isError) return <Text size="sm">{errorText(status.error)}</Text>;

  if (status.data.validate) {
    return (
      <Stack gap="sm">
        <Group gap="xs">
          <StatusBadge tone="success" icon={<CheckIcon size={14} />}>
            {t('mfa.enabled')}
          </StatusBadge>
          {status.data.phoneNumber && <Text size="sm">{t('mfa.phone', { phone: status.data.phoneNumber })}</Text>}
        </Group>
        <Text size="sm">{t('mfa.disableText')}</Text>
        <PasswordField
          label={t('edit.currentPassword')}
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.currentTarget.value)}
        />
        <Group justify="flex-end">
          <Button
            color="red"
            variant="light"
            loading={inactivate.isPending}
            disabled={!password}
            onClick={() =>
              inactivate.mutate(
                { password },
                {
                  onSuccess: () => {
                    setPassword('');
                    setSentTo(null);
                    notify('success', t('mfa.disabled'), TOAST_MS.mfaEdit);
                  },
                  onError: notifyFailure,
                },
              )
            }
          >
            {t('mfa.disable')}
          </Button>
        </Group>
      </Stack>
    );
  }

  const sendCode = () => {
    if (digitsOnly(phone).length < MFA_PHONE_MIN_DIGITS) {
      setPhoneError(t('mfa.phoneInvalid'));
      return;
    }
    setPhoneError(undefined);
    send.mutate(
      { phoneNumber: digitsOnly(phone), channel },
      {
        onSuccess: (result) => {
          setSentTo(result.phoneNumber);
          setToken('');
          notify('info', t('mfa.sent', { phone: result.phoneNumber }), TOAST_MS.mfaEdit);
        },
        onError: notifyFailure,
      },
    );
  };

  const validate = () => {
    const digits = digitsOnly(token);
    if (!digits) {
      setTokenError(t('mfa.tokenRequired'));
      return;
    }
    if (digits.length !== MFA_TOKEN_LENGTH) {
      setTokenError(t('mfa.tokenLength'));
      return;
    }
    setTokenError(undefined);
    activate.mutate(
      { phoneNumber: digitsOnly(phone), tokenValue: digits },
      {
        onSuccess: () => {
          setSentTo(null);
          setToken('');
          notify('success', t('mfa.validated'), TOAST_MS.mfaEdit);
        },
        onError: notifyFailure,
      },
    );
  };

  return (
    <Stack gap="sm">
      <Group gap="xs">
        <StatusBadge tone="neutral" icon={<InfoIcon size={14} />}>
          {t('mfa.notEnabled')}
        </StatusBadge>
      </Group>
      <Text size="sm">{t('mfa.intro')}</Text>
      {sentTo === null ? (
        <>
          <MaskedInput
            label={t('mfa.phoneLabel')}
            description={t('mfa.phoneHint')}
            mask={MASK.phone}
            inputMode="tel"
            autoComplete="tel-national"
            value={phone}
            onChange={setPhone}
            error={phoneError}
          />
          <Radio.Group label={t('mfa.channel')} value={channel} onChange={(v) => setChannel(v as 'whatsapp' | 'sms')}>
            <Group gap="md" mt={6}>
              <Radio value="whatsapp" label="WhatsApp" />
              <Radio value="sms" label="SMS" />
            </Group>
          </Radio.Group>
          <Group justify="flex-end">
            <Button variant="light" loading={send.isPending} onClick={sendCode}>
              {t('mfa.send')}
            </Button>
          </Group>
        </>
      ) : (
        <>
          <Text size="sm">{t('mfa.sentTo', { phone: sentTo })}</Text>
          <MaskedInput
            label={t('mfa.token')}
            mask={MASK.mfaToken}
            inputMode="numeric"
            autoComplete="one-time-code"
            value={token}
            onChange={setToken}
            error={tokenError}
          />
          <Group justify="space-between">
            <Button
              variant="subtle"
              onClick={() => {
                setSentTo(null);
                setPhone('');
                setToken('');
              }}
            >
              {t('mfa.changePhone')}
            </Button>
            <Button loading={activate.isPending} onClick={validate}>
              {t('mfa.validate')}
            </Button>
          </Group>
        </>
      )}
    </Stack>
  );
}
