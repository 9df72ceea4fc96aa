import type { Language } from '@portal/shared/limits';

// Simplified flags: recognisable at 20 px, decorative only (the language name is the label).
function Brazil() {
  return (
    <svg viewBox="0 0 28 20" width="24" height="17" aria-hidden="true" focusable="false">
      <rect width="28" height="20" rx="2" fill="#229e45" />
      <path d="M14 3l10 7-10 7-10-7z" fill="#f8e509" />
      <circle cx="14" cy="10" r="4" fill="#2b49a3" />
      <path d="M10.2 9.2c2.6-.6 5.4-.2 7.6 1.2" stroke="#fff" strokeWidth="0.8" fill="none" />
    </svg>
  );
}

function Spain() {
  return (
    <svg viewBox="0 0 28 20" width="24" height="17" aria-hidden="true" focusable="false">
      <rect width="28" height="20" rx="2" fill="#c60b1e" />
      <rect y="5" width="28" height="10" fill="#ffc400" />
    </svg>
  );
}

function UnitedKingdom() {
  return (
    <svg viewBox="0 0 28 20" width="24" height="17" aria-hidden="true" focusable="false">
      <rect width="28" height="20" rx="2" fill="#012169" />
      <path d="M0 0l28 20M28 0L0 20" stroke="#fff" strokeWidth="4" />
      <path d="M0 0l28 20M28 0L0 20" stroke="#c8102e" strokeWidth="1.5" />
      <path d="M14 0v20M0 10h28" stroke="#fff" strokeWidth="6" />
      <path d="M14 0v20M0 10h28" stroke="#c8102e" strokeWidth="3.5" />
    </svg>
  );
}

export function Flag({ language }: { language: Language }) {
  if (language === 'es') return <Spain />;
  if (language === 'en') return <UnitedKingdom />;
  return <Brazil />;
}
