import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { Suspense, type ReactNode } from 'react';
import { I18nextProvider } from 'react-i18next';
import { i18n } from '../lib/i18n';
import { getToken, subscribeCredentials } from '../lib/session';
import { FullPageLoader } from './pages/loading-page';
import { Toasts } from './toasts';
import { cssVariablesResolver, theme } from './theme';

const queryClient = new QueryClient({
  defaultOptions: {
    // Results change rarely within a visit; refetching on every focus would only cost mobile data.
    queries: { retry: false, refetchOnWindowFocus: false, staleTime: 30_000 },
    mutations: { retry: false },
  },
});

// A session's answers end with it: at a sign-out, an expired session or another sign-in in the same
// tab (a shared computer), everything fetched is forgotten, so the next person never sees the last
// one's protocols or record, not even while his own load. The token names the session: it stays
// the same while a sign-in completes the stored user.
if (typeof window !== 'undefined') {
  let sessionToken = getToken();
  subscribeCredentials(() => {
    const token = getToken();
    if (token === sessionToken) return;
    sessionToken = token;
    queryClient.clear();
  });
}

/**
 * Everything around the router: the browser's app and the sign-in screen drawn at build time
 * (prerender.tsx) share it, so the drawn page and the app that takes it over are the same tree.
 */
export function AppProviders({ children }: { children: ReactNode }) {
  return (
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} defaultColorScheme="light">
      <Toasts />
      <QueryClientProvider client={queryClient}>
        <I18nextProvider i18n={i18n}>
          <Suspense fallback={<FullPageLoader />}>{children}</Suspense>
        </I18nextProvider>
      </QueryClientProvider>
    </MantineProvider>
  );
}
