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

let drawnFormRead = false;

/**
 * What a person typed into the drawn form before the app took the page over, by field name. Read
 * once per page, as the app's form first renders: the drawn inputs are still those on the page
 * then, whether the app takes them over or replaces them.
 */
export function typedIntoDrawnForm(): Record<string, string> {
  if (drawnFormRead || typeof document === 'undefined') return {};
  drawnFormRead = true;
  const typed: Record<string, string> = {};
  for (const input of document.querySelectorAll<HTMLInputElement>('#root form input[name]')) {
    if (input.value && input.type !== 'radio' && input.type !== 'checkbox') typed[input.name] = input.value;
  }
  return typed;
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
