import { Navigate } from 'react-router';
import type { LoginNoticeState } from './login-panels';

/** Spec 2.1 /login-cv: links of the old version land here; say so and go to the login. */
export default function LoginCvPage() {
  const state: LoginNoticeState = { notice: 'oldVersion' };
  return <Navigate to="/login" replace state={state} />;
}
