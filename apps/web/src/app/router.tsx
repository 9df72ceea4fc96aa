import { lazy, type ReactNode } from 'react';
import { Navigate, type RouteObject } from 'react-router';
import { i18n, type Namespace } from '../lib/i18n';
import { AppLayout } from './layout/app-layout';
import { RequireAuth } from './layout/require-auth';
import { RequireRole } from './layout/require-role';
import { LoadingPage } from './pages/loading-page';
import { NotFoundPage } from './pages/not-found-page';
import { RouteErrorPage } from './pages/route-error-page';

// One chunk per screen, so the first visit to /login downloads only the login.
const loadLoginPage = () => import('../features/auth/components/login-page');
const LoginPage = lazy(loadLoginPage);
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
const ValidatePage = lazy(() => import('../features/validate/components/validate-page'));
const PatientEditPage = lazy(() => import('../features/account-edit/components/patient-edit-page'));
const PhysicianEditPage = lazy(() => import('../features/account-edit/components/physician-edit-page'));
const ExternalUserEditPage = lazy(() => import('../features/account-edit/components/external-user-edit-page'));
const loadPatientDashboard = () => import('../features/dashboards/components/patient-dashboard-page');
const PatientDashboardPage = lazy(loadPatientDashboard);
const loadPhysicianDashboard = () => import('../features/dashboards/components/physician-dashboard-page');
const PhysicianDashboardPage = lazy(loadPhysicianDashboard);
const PhysicianExamsPage = lazy(() =>
  import('../features/dashboards/components/physician-dashboard-page').then((m) => ({ default: m.PhysicianExamsPage })),
);
const ExternalDashboardPage = lazy(() => import('../features/dashboards/components/external-dashboard-page'));
const UniqueLoginPage = lazy(() => import('../features/dashboards/components/unique-login-page'));
const PatientProtocolPage = lazy(() =>
  import('../features/protocol-detail/components/protocol-detail-page').then((m) => ({
    default: m.PatientProtocolPage,
  })),
);
const PhysicianProtocolPage = lazy(() =>
  import('../features/protocol-detail/components/protocol-detail-page').then((m) => ({
    default: m.PhysicianProtocolPage,
  })),
);
const GuestProtocolPage = lazy(() =>
  import('../features/protocol-detail/components/protocol-detail-page').then((m) => ({ default: m.GuestProtocolPage })),
);
const ExternalExamPage = lazy(() =>
  import('../features/protocol-detail/components/protocol-detail-page').then((m) => ({ default: m.ExternalExamPage })),
);

const AccessLogPage = lazy(() => import('../features/access-log/components/access-log-page'));

// The DICOM viewer and its renderer load only when a study is opened.
const StudyViewerPage = lazy(() => import('../features/dicom-viewer/components/study-viewer-page'));

/**
 * The screens a visit most often opens on: their code and texts are asked for together with the
 * app's own, instead of one after the other (the layout's texts, then the screen, then its texts:
 * two round trips fewer on a slow phone before the first screen is drawn).
 */
export const FIRST_SCREENS: Record<string, { load: () => Promise<unknown>; texts: Namespace[] }> = {
  '/login': { load: loadLoginPage, texts: ['auth'] },
  '/dashboard/patient/protocols': { load: loadPatientDashboard, texts: ['results'] },
  '/dashboard/physician/protocols': { load: loadPhysicianDashboard, texts: ['results'] },
};

export function startFirstScreen(pathname: string): void {
  const screen = FIRST_SCREENS[pathname];
  if (!screen) return;
  // A failed early download is tried again, and reported, by the screen itself when it renders.
  screen.load().catch(() => undefined);
  void i18n.loadNamespaces(screen.texts);
}

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
  '/patient/accesses',
] as const;

/** Spec 6: physician screens need the physician flag. */
const physicianOnly = (screen: ReactNode) => <RequireRole flag="isPhysicianType">{screen}</RequireRole>;

const SCREENS: Record<(typeof AUTHENTICATED_PATHS)[number], ReactNode> = {
  '/patient/edit': <PatientEditPage />,
  '/patient/accesses': (
    <RequireRole flag="isUserType">
      <AccessLogPage />
    </RequireRole>
  ),
  '/physician/edit': physicianOnly(<PhysicianEditPage />),
  '/external-user/edit': <ExternalUserEditPage />,
  '/dashboard/patient/protocols': <PatientDashboardPage />,
  '/dashboard/patient/exams': <PatientDashboardPage />,
  '/dashboard/patient/showprotocol': <PatientProtocolPage />,
  '/dashboard/patient/showexam': <PatientProtocolPage />,
  '/dashboard/physician/protocols': physicianOnly(<PhysicianDashboardPage />),
  '/dashboard/physician/exams': physicianOnly(<PhysicianExamsPage />),
  '/dashboard/physician/showprotocol': physicianOnly(<PhysicianProtocolPage />),
  '/dashboard/physician/showexam': physicianOnly(<PhysicianProtocolPage />),
  '/dashboard/external/exams': <ExternalDashboardPage />,
  '/dashboard/externaluser/showexam': <ExternalExamPage />,
  '/dashboard/protocols/uniquelogin': <UniqueLoginPage />,
  '/viewprotocol': <GuestProtocolPage />,
  '/showprotocol': <GuestProtocolPage />,
};

const authenticatedRoutes: RouteObject[] = AUTHENTICATED_PATHS.map((path) => ({
  path,
  element: SCREENS[path],
}));

export const routes: RouteObject[] = [
  {
    element: <AppLayout />,
    errorElement: <RouteErrorPage />,
    children: [
      {
        // A failing screen is replaced inside the layout, so the header and language menu stay.
        errorElement: <RouteErrorPage />,
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
          // Issue 22.3: anyone checks a delivered report by its code (no sign-in).
          { path: '/validar', element: <ValidatePage /> },
          // The administration interface lives elsewhere now (spec 1, 6).
          { path: '/admin/*', element: <AdminMovedPage /> },
          {
            element: <RequireAuth />,
            children: [...authenticatedRoutes, { path: '/study/:studyUid', element: <StudyViewerPage /> }],
          },
          { path: '*', element: <NotFoundPage /> },
        ],
      },
    ],
  },
];
