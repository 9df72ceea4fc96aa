import { Box } from '@mantine/core';
import { Suspense, useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Outlet, useLocation } from 'react-router';
import { FullPageLoader } from '../pages/loading-page';
import { CookieConsent } from './cookie-consent';
import { Footer } from './footer';
import { Header } from './header';
import { ScamWarningModal } from './scam-warning-modal';

export function AppLayout() {
  const { t } = useTranslation();
  const location = useLocation();
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);

  // After a client-side navigation, screen readers should start at the new screen, not the old focus.
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    window.scrollTo({ top: 0 });
    main.current?.focus({ preventScroll: true });
  }, [location.pathname]);

  return (
    <>
      <a className="skip-link" href="#main">
        {t('layout.skipToContent')}
      </a>
      <Header />
      <Box component="main" id="main" ref={main} tabIndex={-1} style={{ flex: 1, outline: 'none' }} pb={96}>
        <Suspense fallback={<FullPageLoader />}>
          <Outlet />
        </Suspense>
      </Box>
      <Footer />
      <CookieConsent />
      <ScamWarningModal />
    </>
  );
}
