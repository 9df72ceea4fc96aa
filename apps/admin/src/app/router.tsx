import { createBrowserRouter, Navigate } from 'react-router';
import { AdminInvitationPage } from '../pages/admin-invitation-page';
import { AuditPage } from '../pages/audit-page';
import { DashboardPage } from '../pages/dashboard-page';
import { IngestCallsPage } from '../pages/ingest-calls-page';
import { InstitutionEditPage } from '../pages/institution-edit-page';
import { InstitutionListPage } from '../pages/institution-list-page';
import { InvitationsPage } from '../pages/invitations-page';
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
    // The first-password page an admin invitation's mail links to.
    { path: '/invitation', element: <AdminInvitationPage /> },
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
        { path: '/invitations', element: <InvitationsPage /> },
        { path: '/protocol/cancel', element: <ProtocolsPage /> },
        { path: '/reports', element: <AuditPage /> },
        { path: '/ingest-calls', element: <IngestCallsPage /> },
        { path: '/outbox', element: <OutboxPage /> },
        { path: '*', element: <NotFoundPage /> },
      ],
    },
  ],
  { basename: '/admin' },
);
