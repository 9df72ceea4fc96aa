import { TOAST_MS } from '@portal/shared/limits';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { LoadingPage } from '../../../app/pages/loading-page';
import { ApiError } from '../../../lib/api-client';
import { errorText } from '../../../lib/errors';
import { notify } from '../../../lib/notify';
import { clearCredentials, storeCredentials } from '../../../lib/session';
import { usePageTitle } from '../../../lib/use-page-title';
import type { LoginResult } from '../api/auth-api';
import type { LoginNoticeState } from './login-panels';

export interface LinkLoginProps {
  /** Reads the link's parameters; null when the link is malformed. */
  read: (params: URLSearchParams) => (() => Promise<LoginResult>) | null;
  /** The i18n key shown when the server answers 404. */
  notFoundKey: string;
  notFoundMs: number;
}

/**
 * Spec 2.1 /login-qrcode and /login-external: sign in from a link and show a waiting message.
 * The password travels in the query string, so it is wiped from the address bar and history at once.
 */
export function LinkLogin({ read, notFoundKey, notFoundMs }: LinkLoginProps) {
  const { t } = useTranslation('auth');
  const navigate = useNavigate();
  const started = useRef(false);
  usePageTitle(t('linkLogin.title'));

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    const attempt = read(new URLSearchParams(window.location.search));
    window.history.replaceState(window.history.state, '', window.location.pathname);
    if (!attempt) {
      const state: LoginNoticeState = { notice: 'invalidLink' };
      navigate('/login', { replace: true, state });
      return;
    }
    attempt()
      .then((result) => {
        storeCredentials({ token: result.accessToken, user: result.user });
        navigate('/landing/', { replace: true });
      })
      .catch((error: unknown) => {
        clearCredentials();
        if (error instanceof ApiError && error.status === 404) notify('info', t(notFoundKey), notFoundMs);
        else notify('error', errorText(error, 'errors.loginDefault'), TOAST_MS.long);
        navigate('/login', { replace: true });
      });
  }, [navigate, notFoundKey, notFoundMs, read, t]);

  return <LoadingPage message={t('linkLogin.wait')} />;
}
