import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { DEFAULT_LANGUAGE, type Language } from '@portal/shared/limits';
import { normalizeLanguage } from '@portal/shared/formats';
import en from '../locales/en.json';
import es from '../locales/es.json';
import ptBr from '../locales/pt-br.json';

const LANGUAGE_KEY = 'admin.language';

/** The console is small: its three languages ship with it, no loading step before the first screen. */
export const RESOURCES = { 'pt-br': ptBr, es, en } as const;
export const LANGUAGES: Language[] = ['pt-br', 'es', 'en'];
export const HTML_LANG: Record<Language, string> = { 'pt-br': 'pt-BR', es: 'es', en: 'en' };

export function initialLanguage(): Language {
  const fromQuery = normalizeLanguage(new URLSearchParams(window.location.search).get('language'));
  if (fromQuery) {
    localStorage.setItem(LANGUAGE_KEY, fromQuery);
    return fromQuery;
  }
  return normalizeLanguage(localStorage.getItem(LANGUAGE_KEY)) ?? DEFAULT_LANGUAGE;
}

export function currentLanguage(): Language {
  return normalizeLanguage(i18next.language) ?? DEFAULT_LANGUAGE;
}

export async function changeLanguage(language: Language): Promise<void> {
  localStorage.setItem(LANGUAGE_KEY, language);
  await i18next.changeLanguage(language);
}

i18next.on('languageChanged', (language) => {
  document.documentElement.lang = HTML_LANG[normalizeLanguage(language) ?? DEFAULT_LANGUAGE];
});

void i18next.use(initReactI18next).init({
  resources: Object.fromEntries(Object.entries(RESOURCES).map(([lng, bundle]) => [lng, { translation: bundle }])),
  lng: initialLanguage(),
  fallbackLng: false,
  supportedLngs: LANGUAGES,
  lowerCaseLng: true,
  interpolation: { escapeValue: false },
});
document.documentElement.lang = HTML_LANG[currentLanguage()];

export const i18n = i18next;
