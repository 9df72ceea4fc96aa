import { useSyncExternalStore } from 'react';

/**
 * The sign-in screen is drawn at build time into login.html (prerender.tsx) as a first visit sees
 * it; public/drawn-state.js, run before the page is shown, says on <html data-visit> whether this
 * visit is one ('first', cookies accepted earlier or not) or another ('other': another language, a
 * link's parameters, a remembered CPF, a session, the scam warning already closed in this visit).
 */
export function isDrawnForThisVisit(): boolean {
  return document.documentElement.dataset.visit === 'first';
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
