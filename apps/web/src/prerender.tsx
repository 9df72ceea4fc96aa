// The sign-in screen drawn at build time (apps/web/vite.config.ts runs this in Node after the
// browser build): /login is sent with its form already in the HTML, so a phone shows it as soon
// as the page and its stylesheet arrive, and the app, once loaded, takes the same markup over
// (hydrateRoot in main.tsx) instead of drawing it again. Drawn as a first visit sees it: Brazilian
// Portuguese, nobody signed in, nothing remembered on the device.
import { StrictMode } from 'react';
import { prerenderToNodeStream } from 'react-dom/static';
import { createStaticHandler, createStaticRouter, StaticRouterProvider } from 'react-router';
import { AppProviders } from './app/providers';
import { FIRST_SCREENS, routes } from './app/router';
import { i18n, i18nReady } from './lib/i18n';

export interface DrawnScreen {
  /** The markup of #root. */
  markup: string;
  /** The document title the screen sets once running. */
  title: string;
}

/** The screens drawn at build time (each one of the app's first screens, whose texts it shows). */
export const DRAWN_SCREENS: Record<string, { source: string; title: () => string }> = {
  '/login': {
    source: 'src/features/auth/components/login-page.tsx',
    title: () => `${i18n.t('auth:login.pageTitle')} | ${i18n.t('common:app.name')}`,
  },
};

export async function drawScreen(pathname: string): Promise<DrawnScreen> {
  const screen = DRAWN_SCREENS[pathname];
  if (!screen) throw new Error(`${pathname} is not drawn at build time`);
  await i18nReady;
  await i18n.loadNamespaces(FIRST_SCREENS[pathname]?.texts ?? []);
  const handler = createStaticHandler(routes);
  const context = await handler.query(new Request(`http://localhost${pathname}`));
  if (context instanceof Response) throw new Error(`${pathname} answered ${context.status} at build time`);
  const router = createStaticRouter(handler.dataRoutes, context);
  // prerender (not renderToString) waits for the screen's lazy chunk and its texts. An error
  // would leave part of the screen to the browser: the build fails instead.
  const errors: unknown[] = [];
  const { prelude } = await prerenderToNodeStream(
    <StrictMode>
      <AppProviders>
        <StaticRouterProvider router={router} context={context} hydrate={false} />
      </AppProviders>
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
  return { markup, title: screen.title() };
}
