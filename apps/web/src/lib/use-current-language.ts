import type { Language } from '@portal/shared/limits';
import { useTranslation } from 'react-i18next';
import { currentLanguage } from './i18n';

/** The interface language; components using it re-render when it changes. */
export function useCurrentLanguage(): Language {
  useTranslation();
  return currentLanguage();
}
