import { DELAY_MS, TOAST_MS } from '@portal/shared/limits';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { LoadingPage } from '../../../app/pages/loading-page';
import { TermsAcceptanceModal } from '../../../components/terms-acceptance-modal';
import { ApiError } from '../../../lib/api-client';
import { errorText } from '../../../lib/errors';
import { currentLanguage, i18n } from '../../../lib/i18n';
import { logout } from '../../../lib/logout';
import { notify } from '../../../lib/notify';
import { getCredentials, storeCredentials } from '../../../lib/session';
import type { TermUserType } from '../../../lib/terms-api';
import { acceptTerms, pendingTerms, type PendingTerm, validateSession, type ValidatedUser } from '../api/auth-api';
import { landingTarget } from '../landing-redirect';

function failLater(key: string): void {
  // The logout navigates first; the message must outlive the page change (spec 9: 1 s).
  setTimeout(() => notify('info', i18n.t(key), TOAST_MS.persistent), DELAY_MS.landingFailureToast);
}

function termUserType(user: ValidatedUser): TermUserType | null {
  if (user.isPhysicianType) return 'PHYSICIAN';
  if (user.isExternalType) return 'EXTERNAL';
  if (user.isUserType) return 'PATIENT';
  return null;
}

interface TermsStep {
  target: string;
  userType: TermUserType;
  terms: PendingTerm[];
}

/** Spec 2.1, 2.3 and 4.4: /landing/{accessToken} validates the session, asks for new terms, sends the user on. */
export default function LandingPage() {
  const { t } = useTranslation('auth');
  const { accessToken } = useParams();
  const navigate = useNavigate();
  const started = useRef(false);
  const [termsStep, setTermsStep] = useState<TermsStep | null>(null);
  const [accepting, setAccepting] = useState(false);

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
      .then(async (validated) => {
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
        const userType = termUserType(validated);
        const terms = userType ? await pendingTerms(currentLanguage()).catch(() => []) : [];
        if (userType && terms.some((term) => term.newTerm)) setTermsStep({ target, userType, terms });
        else navigate(target, { replace: true });
      })
      .catch((error: unknown) => {
        logout({ revoke: false });
        const expired = error instanceof ApiError && error.serverMessage.includes('is expired!');
        failLater(expired ? 'errors:errors.shareExpired' : 'landing.failed');
      });
  }, [accessToken, navigate]);

  if (termsStep) {
    return (
      <>
        <LoadingPage message={t('landing.wait')} />
        <TermsAcceptanceModal
          opened
          userType={termsStep.userType}
          kinds={termsStep.terms.map((term) => term.termType)}
          loading={accepting}
          onConfirm={() => {
            setAccepting(true);
            acceptTerms(termsStep.terms.map((term) => term.id))
              .then(() => {
                notify('success', t('terms.accepted'), TOAST_MS.long);
                navigate(termsStep.target, { replace: true });
              })
              .catch((error: unknown) => {
                setAccepting(false);
                notify('error', errorText(error), TOAST_MS.long);
              });
          }}
          onCancel={() => {
            notify('error', t('terms.refused'), TOAST_MS.long);
            logout();
          }}
        />
      </>
    );
  }
  return <LoadingPage message={t('landing.wait')} />;
}
