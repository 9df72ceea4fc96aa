import { TOAST_MS } from '@portal/shared/limits';
import { parseBrDate } from '@portal/shared/formats';
import { login } from '../api/auth-api';
import { LinkLogin } from './link-login';

function read(params: URLSearchParams) {
  const protocol = params.get('protocol')?.trim();
  const password = params.get('password');
  if (!protocol || !password) return null;
  const birthdate = params.get('birthdate') ?? '';
  const dateOfBirth = parseBrDate(birthdate) ? birthdate : '';
  return () => login({ userName: protocol, password, dateOfBirth, tokenMFA: '', appKey: 'login' });
}

/** Spec 2.1 /login-qrcode?protocol&password&birthdate: protocol login from a printed QR code. */
export default function QrCodeLoginPage() {
  return <LinkLogin read={read} notFoundKey="linkLogin.reportNotAvailable" notFoundMs={TOAST_MS.protocolValidation} />;
}
