import { useSyncExternalStore } from 'react';

/**
 * Screens are drawn at build time (prerender.tsx): the sign-in screen as a first visit sees it,
 * the dashboards as a person signed in sees them while the list loads. public/drawn-state.js, run
 * before the page is shown, says on <html data-visit> whether the drawing fits this visit
 * ('first') or not ('other': another language, a link's parameters, a remembered CPF, the scam
 * warning already closed in this visit, and for a dashboard no session).
 */
export function isDrawnForThisVisit(): boolean {
  return document.documentElement.dataset.visit === 'first';
}

/** Whether the drawn screen is one the app replaces (a signed-in person's) rather than takes over. */
export function isDrawnForSession(): boolean {
  return document.documentElement.dataset.drawnFor === 'session';
}

/**
 * Where the app draws over a screen drawn for a session: a container of its own beside the
 * drawing, hidden until the app's screen is ready (neither loader shows: the drawing stays in view
 * meanwhile), then shown as the drawing goes, in one frame. Ready is the first drawing of the app
 * without a loading screen (FullPageLoader's data-loading-screen): the dashboard itself, or
 * wherever the app sends the person instead.
 */
export function containerOverDrawing(drawing: Element): HTMLElement {
  const container = document.createElement('div');
  container.className = 'app-screen';
  container.hidden = true;
  drawing.after(container);
  const watcher = new MutationObserver(() => {
    if (container.childElementCount === 0 || container.querySelector('[data-loading-screen]')) return;
    watcher.disconnect();
    drawing.remove();
    container.hidden = false;
  });
  watcher.observe(container, { childList: true, subtree: true });
  return container;
}

let drawnFormTaken = false;

/**
 * What a person typed into the drawn form before the app took the page over, by field name: read
 * as the app's form first renders, while the drawn inputs are still those on the page, and only
 * until markDrawnFormTaken (the form's first effect). Nothing on any other visit or later form.
 */
export function typedIntoDrawnForm(): Record<string, string> {
  if (drawnFormTaken || typeof document === 'undefined' || !isDrawnForThisVisit()) return {};
  const typed: Record<string, string> = {};
  for (const input of document.querySelectorAll<HTMLInputElement>('#root > .drawn-screen form input[name]')) {
    if (input.value && input.type !== 'radio' && input.type !== 'checkbox') typed[input.name] = input.value;
  }
  return typed;
}

export function markDrawnFormTaken(): void {
  drawnFormTaken = true;
}

const noSubscription = () => () => undefined;

/** False while the page drawn at build time is taken over (and on the server), true after. */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}

const currentYear = () => new Date().getFullYear();

/** The drawn screen's year (data-year, written at build time), or this one's. */
function drawnYear(): number {
  if (typeof document === 'undefined') return currentYear();
  return Number(document.querySelector('#root > .drawn-screen')?.getAttribute('data-year')) || currentYear();
}

/**
 * The current year, which a screen drawn at build time shows as the build's: the app takes the
 * drawing over with the build's year and shows this year the moment after (a portal built in
 * December and opened in January).
 */
export function useYear(): number {
  return useSyncExternalStore(noSubscription, currentYear, drawnYear);
}
