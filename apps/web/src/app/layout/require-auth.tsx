import { Navigate, Outlet } from 'react-router';
import { loginPath, useCredentials } from '../../lib/session';

/** Spec 4.3 and 6: an authenticated route without a stored user and token forces a logout. */
export function RequireAuth() {
  const credentials = useCredentials();
  if (!credentials?.token || !credentials.user) return <Navigate to={loginPath()} replace />;
  return <Outlet />;
}
