import { useMediaQuery } from '@mantine/hooks';

/** Below Mantine's `sm` breakpoint, where lists become cards and files take the whole screen. */
export const PHONE_QUERY = '(max-width: 48em)';

/**
 * Whether the screen is a phone's, known at the first render: a list is drawn once, as cards,
 * instead of first as a desktop table that an effect then replaces (on a slow phone that second
 * drawing was one of the dashboard's longest tasks). Not for the screens drawn at build time
 * (prerender.tsx): with no screen to ask there, their first render must not depend on it.
 */
export function usePhone(): boolean {
  return useMediaQuery(PHONE_QUERY, undefined, { getInitialValueInEffect: false });
}
