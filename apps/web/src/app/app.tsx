import { createBrowserRouter, RouterProvider } from 'react-router';
import { registerNavigator } from '../lib/navigation';
import { AppProviders } from './providers';
import { routes } from './router';

const router = createBrowserRouter(routes);
registerNavigator((to, options) => void router.navigate(to, options));

export function App() {
  return (
    <AppProviders>
      <RouterProvider router={router} />
    </AppProviders>
  );
}
