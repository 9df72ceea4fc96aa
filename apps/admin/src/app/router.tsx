import { createBrowserRouter, Navigate } from 'react-router';
import { AuditPage } from '../pages/audit-page';
import { DashboardPage } from '../pages/dashboard-page';
import { InstitutionEditPage } from '../pages/institution-edit-page';
import { InstitutionListPage } from '../pages/institution-list-page';
import { LoginPage } from '../pages/login-page';
import { NotFoundPage } from '../pages/not-found-page';
import { OutboxPage } from '../pages/outbox-page';
import { PeoplePage } from '../pages/people-page';
import { PhysicianInvitePage } from '../pages/physician-invite-page';
import { ProtocolsPage } from '../pages/protocols-page';
import { TagsPage } from '../pages/tags-page';
import { ConsoleLayout, RequireAdmin } from './layout';

/** Spec 2.2's administration routes, under /admin/ (contract 9). */
export const router = createBrowserRouter(
  [
    { path: '/login', element: <LoginPage /> },
    {
      element: <ConsoleLayout />,
      children: [
        { index: true, element: <Navigate to="/dashboard" replace /> },
        { path: '/dashboard', element: <DashboardPage /> },
        { path: '/institution/list', element: <RequireAdmin element={<InstitutionListPage />} /> },
        { path: '/institution/new', element: <RequireAdmin element={<InstitutionEditPage />} /> },
        { path: '/institution/edit/:id', element: <InstitutionEditPage /> },
        { path: '/tags/list', element: <RequireAdmin element={<TagsPage />} /> },
        { path: '/people', element: <PeoplePage /> },
        { path: '/physician/invite', element: <PhysicianInvitePage /> },
        { path: '/protocol/cancel', element: <ProtocolsPage /> },
        { path: '/reports', element: <AuditPage /> },
        { path: '/outbox', element: <RequireAdmin element={<OutboxPage />} /> },
        { path: '*', element: <NotFoundPage /> },
      ],
    },
  ],
  { basename: '/admin' },
);
