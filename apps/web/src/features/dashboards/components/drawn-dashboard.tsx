import type { ReactNode } from 'react';
import { AppLayout } from '../../../app/layout/app-layout';
import { DashboardFrame } from './dashboard-frame';

const LOADING = { isPending: true, isFetching: true, isError: false, error: null } as const;

/**
 * A dashboard as drawn at build time for a person signed in (prerender.tsx): the page, the screen's
 * title and buttons and its list loading, the same markup the app draws before the list arrives
 * (the buttons act once the app runs; links work at once). The app, once
 * running, replaces it with its own screen (lib/drawn-screen.ts).
 */
export function DrawnDashboard({ title, actions, notice }: { title: string; actions?: ReactNode; notice?: ReactNode }) {
  return (
    <AppLayout
      drawnScreen={
        <DashboardFrame
          title={title}
          actions={actions}
          notice={notice}
          filters={null}
          query={LOADING}
          page={1}
          setPage={() => undefined}
        >
          {() => null}
        </DashboardFrame>
      }
    />
  );
}
