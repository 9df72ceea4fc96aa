import i18next, { type BackendModule } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { DEFAULT_LANGUAGE, type Language } from '@portal/shared/limits';
import { normalizeLanguage } from '@portal/shared/formats';
import { formatCount } from './count-format';

export const NAMESPACES = ['common', 'errors', 'auth', 'account', 'results', 'accesses'] as const;
export type Namespace = (typeof NAMESPACES)[number];

const LANGUAGE_KEY = 'portal.language';

// Each language and namespace is its own chunk: the login downloads only what it shows.
const bundles = import.meta.glob<{ default: Record<string, unknown> }>('../locales/*/*.json');

const lazyBackend: BackendModule = {
  type: 'backend',
  init() {},
  read(language, namespace, callback) {
    const loader = bundles[`../locales/${language}/${namespace}.json`];
    if (!loader) {
      callback(new Error(`missing locale ${language}/${namespace}`), false);
      return;
    }
    loader().then(
      (module) => callback(null, module.default),
      (error: unknown) => callback(error as Error, false),
    );
  },
};

/** The language of this visit: ?language= first, then the session's choice, then pt-br. */
export function initialLanguage(): Language {
  // Drawn at build time (prerender.tsx): a first visit's language.
  if (typeof window === 'undefined') return DEFAULT_LANGUAGE;
  const fromQuery = normalizeLanguage(new URLSearchParams(window.location.search).get('language'));
  if (fromQuery) {
    sessionStorage.setItem(LANGUAGE_KEY, fromQuery);
    return fromQuery;
  }
  return normalizeLanguage(sessionStorage.getItem(LANGUAGE_KEY)) ?? DEFAULT_LANGUAGE;
}

export const HTML_LANG: Record<Language, string> = { 'pt-br': 'pt-BR', es: 'es', en: 'en' };

export function currentLanguage(): Language {
  return normalizeLanguage(i18next.language) ?? DEFAULT_LANGUAGE;
}

/** Switches the interface language and keeps it for the session (spec 1). */
export async function changeLanguage(language: Language): Promise<void> {
  sessionStorage.setItem(LANGUAGE_KEY, language);
  await i18next.changeLanguage(language);
}

i18next.on('languageChanged', (language) => {
  const lang = normalizeLanguage(language) ?? DEFAULT_LANGUAGE;
  if (typeof document === 'undefined') return;
  document.documentElement.lang = HTML_LANG[lang];
});

export const i18nReady = i18next
  .use(lazyBackend)
  .use(initReactI18next)
  .init({
    lng: initialLanguage(),
    fallbackLng: false,
    supportedLngs: ['pt-br', 'es', 'en'],
    lowerCaseLng: true,
    load: 'currentOnly',
    ns: ['common', 'errors'],
    defaultNS: 'common',
    interpolation: { escapeValue: false },
    react: { useSuspense: true },
  });

// `{{count, number}}` ("12 protocolos encontrados") is written without Intl.NumberFormat, whose
// first use would load the language's number data while the first list is drawn (count-format.ts).
i18next.services.formatter?.add('number', (value: unknown, language: string | undefined) =>
  typeof value === 'number' ? formatCount(value, normalizeLanguage(language) ?? DEFAULT_LANGUAGE) : String(value),
);

export const i18n = i18next;
