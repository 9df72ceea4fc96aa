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
    // A modal's title bar is drawn in a <header>, which would be a second banner landmark beside the
    // page's own while the modal is open: it is a plain box to assistive technology.
    Modal: { defaultProps: { attributes: { header: { role: 'none' } } } },
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
    // Out-of-range values in tables sit on striped grey rows: 7:1 there too.
    '--mantine-color-red-9': '#8e1b1b',
    '--mantine-color-red-filled': '#a51d1d',
    '--mantine-color-red-filled-hover': '#8e1b1b',
    '--mantine-color-red-text': '#a51d1d',
    // Titles and icons of light alerts and badges sit on a tinted background: darker text keeps 4.5:1.
    '--mantine-color-green-light-color': '#1b5e20',
    '--mantine-color-yellow-light-color': '#6b4500',
    '--mantine-color-red-light-color': '#8e1b1b',
    '--mantine-color-blue-light-color': '#0b4a8b',
  },
  dark: {},
});
