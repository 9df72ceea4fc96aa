// The entry of the screens drawn at build time (vite.config.ts: login.html, the dashboards). The
// page is painted first; only then is the app's code asked for, the screen's code and texts with
// it rather than after it. Compiling that code on a slow phone's main thread would otherwise hold
// the drawing back, and the person would wait for the app to see a screen that needs none of it.
const RETRIED = 'portal.bootRetried';

/** Each drawn screen's own code and texts (their chunks are those of src/app/router.tsx). */
const SCREENS: Record<string, () => void> = {
  '/login': () => {
    void import('./features/auth/components/login-page');
    void import('./locales/pt-br/auth.json');
  },
  '/dashboard/patient/protocols': () => {
    void import('./features/dashboards/components/patient-dashboard-page');
    void import('./locales/pt-br/results.json');
  },
  '/dashboard/physician/protocols': () => {
    void import('./features/dashboards/components/physician-dashboard-page');
    void import('./locales/pt-br/results.json');
  },
};

function start(): void {
  SCREENS[window.location.pathname]?.();
  void import('./locales/pt-br/common.json');
  void import('./locales/pt-br/errors.json');
  import('./main').then(
    () => sessionStorage.removeItem(RETRIED),
    () => {
      // The app could not be downloaded (the network dropped): the drawn screen cannot work
      // without it, so the page is asked for again, once.
      if (sessionStorage.getItem(RETRIED)) return;
      sessionStorage.setItem(RETRIED, '1');
      window.location.reload();
    },
  );
}

requestAnimationFrame(() => setTimeout(start, 0));
