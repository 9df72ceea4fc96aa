import { lazy } from 'react';
import { createBrowserRouter, Navigate, type RouteObject } from 'react-router';
import { AppLayout } from './layout/app-layout';
import { RequireAuth } from './layout/require-auth';
import { LoadingPage } from './pages/loading-page';
import { NotFoundPage } from './pages/not-found-page';
import { PlaceholderPage } from './pages/placeholder-page';

// One chunk per screen, so the first visit to /login downloads only the login.
const LoginPage = lazy(() => import('../features/auth/components/login-page'));
const InstitutionLoginPage = lazy(() => import('../features/auth/components/institution-login-page'));
const LoginCvPage = lazy(() => import('../features/auth/components/login-cv-page'));
const LandingPage = lazy(() => import('../features/auth/components/landing-page'));
const QrCodeLoginPage = lazy(() => import('../features/auth/components/qrcode-login-page'));
const ExternalLoginPage = lazy(() => import('../features/auth/components/external-login-page'));
const ResetPasswordPage = lazy(() => import('../features/password-reset/components/reset-password-page'));
const PatientCreatePage = lazy(() => import('../features/patient-registration/components/patient-create-page'));
const PhysicianInfoPage = lazy(() => import('../features/physician-registration/components/physician-info-page'));
const PhysicianCreatePage = lazy(() => import('../features/physician-registration/components/physician-create-page'));
const CompanyAccessPage = lazy(() => import('../features/company-access/components/company-access-page'));
const PrivacyPolicyPage = lazy(() => import('../features/legal/components/privacy-policy-page'));
const TermsOfUsePage = lazy(() => import('../features/legal/components/terms-of-use-page'));
const AdminMovedPage = lazy(() => import('./pages/admin-moved-page'));

/** Spec 2.2: screens that need a stored user and token. */
export const AUTHENTICATED_PATHS = [
  '/showprotocol',
  '/viewprotocol',
  '/dashboard/physician/exams',
  '/dashboard/physician/showexam',
  '/dashboard/physician/protocols',
  '/dashboard/physician/showprotocol',
  '/dashboard/external/exams',
  '/dashboard/externaluser/showexam',
  '/dashboard/patient/exams',
  '/dashboard/patient/showexam',
  '/dashboard/patient/protocols',
  '/dashboard/patient/showprotocol',
  '/dashboard/protocols/uniquelogin',
  '/patient/edit',
  '/physician/edit',
  '/external-user/edit',
] as const;

const authenticatedRoutes: RouteObject[] = AUTHENTICATED_PATHS.map((path) => ({
  path,
  element: <PlaceholderPage path={path} />,
}));

export const routes: RouteObject[] = [
  {
    element: <AppLayout />,
    children: [
      { index: true, element: <Navigate to="/login" replace /> },
      { path: '/login', element: <LoginPage /> },
      { path: '/login-cv', element: <LoginCvPage /> },
      { path: '/instituicao/:clinic', element: <InstitutionLoginPage /> },
      { path: '/instituicao', element: <NotFoundPage /> },
      { path: '/instituicao/*', element: <NotFoundPage /> },
      { path: '/landing/:accessToken?', element: <LandingPage /> },
      { path: '/login-qrcode', element: <QrCodeLoginPage /> },
      { path: '/login-external', element: <ExternalLoginPage /> },
      { path: '/patient/create', element: <PatientCreatePage /> },
      { path: '/physician-info', element: <PhysicianInfoPage /> },
      { path: '/physician/create', element: <PhysicianCreatePage /> },
      { path: '/password/reset', element: <ResetPasswordPage /> },
      { path: '/company-access/create', element: <CompanyAccessPage /> },
      { path: '/loading', element: <LoadingPage /> },
      { path: '/not-found', element: <NotFoundPage /> },
      { path: '/politica-de-privacidade', element: <PrivacyPolicyPage /> },
      { path: '/termos-de-uso', element: <TermsOfUsePage /> },
      // The administration interface lives elsewhere now (spec 1, 6).
      { path: '/admin/*', element: <AdminMovedPage /> },
      { element: <RequireAuth />, children: authenticatedRoutes },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
];

export const router = createBrowserRouter(routes);
