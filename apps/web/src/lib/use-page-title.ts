import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';

/** Every screen names itself in the tab title, so assistive technology announces where the user is. */
export function usePageTitle(title: string | null | undefined): void {
  const { t } = useTranslation();
  const app = t('app.name');
  useEffect(() => {
    document.title = title ? `${title} | ${app}` : app;
  }, [title, app]);
}
