import { TOAST_MS, DELAY_MS } from '@portal/shared/limits';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { LoadingPage } from '../../../app/pages/loading-page';
import { ApiError } from '../../../lib/api-client';
import { i18n } from '../../../lib/i18n';
import { logout } from '../../../lib/logout';
import { notify } from '../../../lib/notify';
import { getCredentials, storeCredentials } from '../../../lib/session';
import { validateSession } from '../api/auth-api';
import { landingTarget } from '../landing-redirect';

function failLater(key: string): void {
  // The logout navigates first; the message must outlive the page change (spec 9: 1 s).
  setTimeout(() => notify('info', i18n.t(key), TOAST_MS.persistent), DELAY_MS.landingFailureToast);
}

/** Spec 2.1 and 2.3: /landing/{accessToken} validates the session and sends the user on by type. */
export default function LandingPage() {
  const { t } = useTranslation('auth');
  const { accessToken } = useParams();
  const navigate = useNavigate();
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    // A shared-protocol link carries its own session token; otherwise use the stored one.
    if (accessToken) storeCredentials({ token: accessToken, user: null });
    const stored = getCredentials();
    if (!stored?.token) {
      logout({ revoke: false });
      return;
    }
    validateSession()
      .then((validated) => {
        if (!accessToken && stored.user && stored.user.identifier !== validated.identifier) {
          logout();
          failLater('landing.failed');
          return;
        }
        const target = landingTarget(validated);
        if (!target) {
          logout();
          failLater('landing.adminCancelled');
          return;
        }
        storeCredentials({ token: stored.token, user: { ...stored.user, ...validated } });
        navigate(target, { replace: true });
      })
      .catch((error: unknown) => {
        logout({ revoke: false });
        const expired = error instanceof ApiError && error.serverMessage.includes('is expired!');
        failLater(expired ? 'errors:errors.shareExpired' : 'landing.failed');
      });
  }, [accessToken, navigate]);

  return <LoadingPage message={t('landing.wait')} />;
}
