import { Box } from '@mantine/core';
import { type ReactNode, Suspense, useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Outlet, useLocation } from 'react-router';
import { FullPageLoader } from '../pages/loading-page';
import { CookieConsent } from './cookie-consent';
import { Footer } from './footer';
import { Header } from './header';
import { ScamWarningModal } from './scam-warning-modal';

/**
 * The page around every screen. `drawnScreen` is for a screen drawn at build time for a person
 * signed in (prerender.tsx): it takes the route's place, and the once-per-visit scam warning is
 * left to the app, since that person has already seen it at sign-in.
 */
export function AppLayout({ drawnScreen }: { drawnScreen?: ReactNode }) {
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
        {drawnScreen ?? (
          <Suspense fallback={<FullPageLoader />}>
            <Outlet />
          </Suspense>
        )}
      </Box>
      <Footer />
      <CookieConsent />
      {drawnScreen === undefined && <ScamWarningModal />}
    </>
  );
}
