import { Alert, Stack } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useSearchParams } from 'react-router';
import { AlertIcon, CheckIcon, InfoIcon } from '../../../components/icons';
import { closeAllToasts } from '../../../lib/notify';
import { ForgotPasswordPanel } from './forgot-password-panel';
import { LoginForm } from './login-form';

export interface LoginNoticeState {
  notice?: 'oldVersion' | 'invalidLink';
}

/** The login and recovery panels with the notices a link can bring (spec 2.1, 2.4). */
export function LoginPanels({ customLogin }: { customLogin?: string }) {
  const { t } = useTranslation('auth');
  const [params] = useSearchParams();
  const location = useLocation();
  const notice = (location.state as LoginNoticeState | null)?.notice;
  const activeSuccess = params.get('activeSuccess');
  // The box says what happened: a toast left from the screen before (an error, a hint) would say
  // something else beside it, so one message stays.
  const boxShown = activeSuccess === 'true' || activeSuccess === 'false' || notice !== undefined;
  useEffect(() => {
    if (boxShown) closeAllToasts();
  }, [boxShown, activeSuccess, notice]);
  const [panel, setPanel] = useState<'login' | 'forgot'>(() =>
    params.get('toPassWordRecovery') === 'true' ? 'forgot' : 'login',
  );

  return (
    <Stack gap="md">
      {activeSuccess === 'true' && (
        <Alert color="green" variant="light" icon={<CheckIcon />} title={t('activation.successTitle')} role="status">
          {t('activation.successText')}
        </Alert>
      )}
      {activeSuccess === 'false' && (
        <Alert color="yellow" variant="light" icon={<AlertIcon />} title={t('activation.failedTitle')} role="status">
          {t('activation.failedText')}
        </Alert>
      )}
      {notice === 'oldVersion' && (
        <Alert color="medical" variant="light" icon={<InfoIcon />} role="status">
          {t('notices.oldVersion')}
        </Alert>
      )}
      {notice === 'invalidLink' && (
        <Alert color="yellow" variant="light" icon={<AlertIcon />} role="status">
          {t('notices.invalidLink')}
        </Alert>
      )}
      {panel === 'login' ? (
        <LoginForm customLogin={customLogin} onForgotPassword={() => setPanel('forgot')} />
      ) : (
        <ForgotPasswordPanel onBack={() => setPanel('login')} />
      )}
    </Stack>
  );
}
