import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { Suspense } from 'react';
import { I18nextProvider } from 'react-i18next';
import { RouterProvider } from 'react-router';
import { i18n } from '../lib/i18n';
import { registerNavigator } from '../lib/navigation';
import { FullPageLoader } from './pages/loading-page';
import { router } from './router';
import { Toasts } from './toasts';
import { cssVariablesResolver, theme } from './theme';

const queryClient = new QueryClient({
  defaultOptions: {
    // Results change rarely within a visit; refetching on every focus would only cost mobile data.
    queries: { retry: false, refetchOnWindowFocus: false, staleTime: 30_000 },
    mutations: { retry: false },
  },
});

registerNavigator((to, options) => void router.navigate(to, options));

export function App() {
  return (
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} defaultColorScheme="light">
      <Toasts />
      <QueryClientProvider client={queryClient}>
        <I18nextProvider i18n={i18n}>
          <Suspense fallback={<FullPageLoader />}>
            <RouterProvider router={router} />
          </Suspense>
        </I18nextProvider>
      </QueryClientProvider>
    </MantineProvider>
  );
}
