// The first screens drawn at build time (apps/web/vite.config.ts runs this in Node after the
// browser build), each sent as its own page, so a phone shows it as soon as the page and its
// stylesheet arrive instead of after the whole app:
// - the sign-in screen, drawn as a first visit sees it (Brazilian Portuguese, nobody signed in,
//   nothing remembered on the device), which the app, once loaded, takes over (hydrateRoot in
//   main.tsx) instead of drawing it again;
// - the patient's and the physician's dashboards, drawn as they show while their list loads, for
//   a person signed in: their names and lists are nobody's at build time, so the app replaces the
//   drawing with its own screen once that screen is ready (lib/drawn-screen.ts).
import { type ReactNode, StrictMode } from 'react';
import { prerenderToNodeStream } from 'react-dom/static';
import { createStaticHandler, createStaticRouter, StaticRouter, StaticRouterProvider } from 'react-router';
import { AppProviders } from './app/providers';
import { FIRST_SCREENS, routes } from './app/router';
import { PatientActions, PhysicianNav } from './features/dashboards/components/dashboard-actions';
import { DrawnDashboard } from './features/dashboards/components/drawn-dashboard';
import { ProfilePrompt } from './features/dashboards/components/profile-prompt';
import { i18n, i18nReady } from './lib/i18n';

export interface DrawnScreen {
  /** The markup of #root. */
  markup: string;
  /** The document title the screen sets once running. */
  title: string;
}

/**
 * The screens drawn at build time, each one of the app's first screens (whose texts it shows):
 * `visitor` for nobody signed in (the route itself, taken over by the app), `session` for a
 * person signed in (`DrawnDashboard` under the screen's title, replaced by the app's screen).
 * Each is written to its path plus `.html`; the server sends every page of the build outside
 * assets/ but index.html for its path, so it needs no list of its own.
 */
export const DRAWN_SCREENS: Record<
  string,
  {
    source: string;
    title: () => string;
    kind: 'visitor' | 'session';
    actions?: () => ReactNode;
    notice?: () => ReactNode;
  }
> = {
  '/login': {
    kind: 'visitor',
    source: 'src/features/auth/components/login-page.tsx',
    title: () => i18n.t('auth:login.pageTitle'),
  },
  '/dashboard/patient/protocols': {
    kind: 'session',
    source: 'src/features/dashboards/components/patient-dashboard-page.tsx',
    title: () => i18n.t('results:titles.patient'),
    actions: () => <PatientActions hasHistory={false} />,
    // Shown only where this session last saw the profile incomplete (public/drawn-state.js).
    notice: () => (
      <div className="drawn-profile-prompt">
        <ProfilePrompt />
      </div>
    ),
  },
  '/dashboard/physician/protocols': {
    kind: 'session',
    source: 'src/features/dashboards/components/physician-dashboard-page.tsx',
    title: () => i18n.t('results:titles.physician'),
    actions: () => <PhysicianNav current="protocols" />,
  },
};

async function routeElement(pathname: string): Promise<ReactNode> {
  const handler = createStaticHandler(routes);
  const context = await handler.query(new Request(`http://localhost${pathname}`));
  if (context instanceof Response) throw new Error(`${pathname} answered ${context.status} at build time`);
  const router = createStaticRouter(handler.dataRoutes, context);
  return <StaticRouterProvider router={router} context={context} hydrate={false} />;
}

export async function drawScreen(pathname: string): Promise<DrawnScreen> {
  const screen = DRAWN_SCREENS[pathname];
  if (!screen) throw new Error(`${pathname} is not drawn at build time`);
  await i18nReady;
  await i18n.loadNamespaces(FIRST_SCREENS[pathname]?.texts ?? []);
  const element =
    screen.kind === 'visitor' ? (
      await routeElement(pathname)
    ) : (
      <StaticRouter location={pathname}>
        <DrawnDashboard title={screen.title()} actions={screen.actions?.()} notice={screen.notice?.()} />
      </StaticRouter>
    );
  // prerender (not renderToString) waits for the screen's lazy chunk and its texts. An error
  // would leave part of the screen to the browser: the build fails instead.
  const errors: unknown[] = [];
  const { prelude } = await prerenderToNodeStream(
    <StrictMode>
      <AppProviders>{element}</AppProviders>
    </StrictMode>,
    {
      onError: (error) => void errors.push(error),
      // Every part in place: no part sent later and put in place by an inline script (the
      // portal's content policy runs none, and nothing runs before the app anyway).
      progressiveChunkSize: Number.POSITIVE_INFINITY,
    },
  );
  if (errors.length > 0) throw new Error(`${pathname} could not be drawn at build time`, { cause: errors[0] });
  let markup = '';
  for await (const chunk of prelude) markup += String(chunk);
  if (markup.includes('<script')) throw new Error(`${pathname} was drawn with an inline script`);
  return { markup, title: `${screen.title()} | ${i18n.t('common:app.name')}` };
}
