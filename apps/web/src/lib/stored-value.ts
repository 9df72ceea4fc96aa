import { useCallback, useSyncExternalStore } from 'react';

type Area = 'localStorage' | 'sessionStorage';

const listeners = new Set<() => void>();
/** Values this page stored, kept here too: a browser that refuses to store still sees them. */
const kept = new Map<string, string>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener('storage', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', listener);
  };
}

function read(area: Area, key: string): string | null {
  const own = kept.get(`${area}:${key}`);
  if (own !== undefined) return own;
  try {
    return window[area].getItem(key);
  } catch {
    // Storage refused (a private window's quota, a sandboxed frame): nothing remembered.
    return null;
  }
}

/**
 * A value this browser remembers (the cookie consent, the scam warning seen), as a hook. While the
 * app takes over the sign-in screen drawn at build time, it reads as on a first visit (nothing
 * stored), the state the screen was drawn in; the stored value follows at once.
 */
export function useStoredValue(area: Area, key: string): [string | null, (value: string) => void] {
  const value = useSyncExternalStore(
    subscribe,
    () => read(area, key),
    () => null,
  );
  const store = useCallback(
    (next: string) => {
      kept.set(`${area}:${key}`, next);
      try {
        window[area].setItem(key, next);
      } catch {
        // Kept for this page only: asked again on the next visit.
      }
      for (const listener of listeners) listener();
    },
    [area, key],
  );
  return [value, store];
}
