import { notifications } from '@mantine/notifications';
import { TOAST_MS } from '@portal/shared/limits';
import { i18n } from './i18n';

type Kind = 'success' | 'error' | 'warning' | 'info';

const colors: Record<Kind, string> = { success: 'green', error: 'red', warning: 'yellow', info: 'blue' };

/** Shows a toast for `ms` milliseconds (spec 9); 0 keeps it until the user closes it. */
export function notify(kind: Kind, message: string, ms: number = TOAST_MS.default, title?: string): string {
  return notifications.show({
    color: colors[kind],
    title,
    message,
    autoClose: ms === 0 ? false : ms,
    withBorder: true,
    closeButtonProps: { 'aria-label': i18n.t('common:actions.close') },
  });
}
