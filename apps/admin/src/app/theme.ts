// Deliberately the patient app's palette and contrast fixes: one portal, two apps that look alike.
import { createTheme, type CSSVariablesResolver, type MantineColorsTuple } from '@mantine/core';

// A calm medical blue. Shade 7 (the filled buttons and links) keeps 7:1 against white.
const medical: MantineColorsTuple = [
  '#e8f1fb',
  '#cfe0f3',
  '#9fc0e6',
  '#6b9ed8',
  '#4281cc',
  '#2a6fc4',
  '#1d62b3',
  '#17549a',
  '#114680',
  '#0a3766',
];

export const theme = createTheme({
  primaryColor: 'medical',
  primaryShade: { light: 7, dark: 4 },
  colors: { medical },
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  headings: { fontWeight: '650' },
  defaultRadius: 'md',
  cursorType: 'pointer',
  focusRing: 'auto',
  // People who ask their system for less motion get modals, menus and toasts without animation.
  respectReducedMotion: true,
  components: {
    Anchor: { defaultProps: { underline: 'always' } },
  },
});

// Text keeps the 7:1 contrast of WCAG's enhanced level (AAA 1.4.6) against its background:
// Mantine's dimmed grey, error red, links and the text of light buttons, badges and alerts are
// darker here than its defaults (which are below 4.5:1 for some).
export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': '#495057',
    '--mantine-color-placeholder': '#6b737c',
    '--mantine-color-error': '#a51d1d',
    '--mantine-color-anchor': '#114680',
    '--mantine-color-medical-light-color': '#114680',
    '--mantine-color-gray-light-color': '#343a40',
    '--mantine-color-blue-9': '#0b4a8b',
    '--mantine-color-red-filled': '#a51d1d',
    '--mantine-color-red-filled-hover': '#8e1b1b',
    // The confirm buttons of unlock (blue), re-enable (green) and end sessions (orange) are filled:
    // white on them keeps 7:1 too.
    '--mantine-color-blue-filled': '#0b4a8b',
    '--mantine-color-blue-filled-hover': '#093c72',
    '--mantine-color-green-filled': '#1b5e20',
    '--mantine-color-green-filled-hover': '#17521c',
    '--mantine-color-orange-filled': '#7a3500',
    '--mantine-color-orange-filled-hover': '#6a2e00',
    '--mantine-color-red-text': '#a51d1d',
    // Titles and icons of light alerts and badges sit on a tinted background: darker text keeps 7:1.
    '--mantine-color-green-light-color': '#17521c',
    '--mantine-color-yellow-light-color': '#6b4500',
    '--mantine-color-red-light-color': '#7f1717',
    '--mantine-color-blue-light-color': '#0b4a8b',
    // The console's "end sessions" buttons are light orange.
    '--mantine-color-orange-light-color': '#703000',
  },
  dark: {},
});
