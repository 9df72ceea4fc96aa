import { TOAST_MS } from '@portal/shared/limits';
import { externalLogin } from '../api/auth-api';
import { LinkLogin } from './link-login';

function read(params: URLSearchParams) {
  const username = params.get('email')?.trim();
  const password = params.get('password');
  if (!username || !password) return null;
  return () => externalLogin({ username, password });
}

/** Spec 2.1 /login-external?email&password: external login; 404 means the user is not registered (10 s). */
export default function ExternalLoginPage() {
  return <LinkLogin read={read} notFoundKey="linkLogin.userNotRegistered" notFoundMs={TOAST_MS.protocolValidation} />;
}
