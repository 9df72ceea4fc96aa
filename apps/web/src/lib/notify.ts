import { notifications } from '@mantine/notifications';
import { TOAST_MS } from '@portal/shared/limits';
import { i18n } from './i18n';

type Kind = 'success' | 'error' | 'warning' | 'info';

const colors: Record<Kind, string> = { success: 'green', error: 'red', warning: 'yellow', info: 'blue' };

// Toasts still on screen, by kind: a success and an error about the same act never stay together.
const shown: Record<Kind, Set<string>> = { success: new Set(), error: new Set(), warning: new Set(), info: new Set() };
const contradicts: Record<Kind, Kind[]> = {
  success: ['error', 'warning'],
  error: ['success'],
  warning: ['success'],
  info: [],
};

/**
 * Shows a toast for `ms` milliseconds (spec 9); 0 keeps it until the user closes it. A success
 * closes the errors and warnings still shown, and an error or warning closes the successes.
 */
export function notify(kind: Kind, message: string, ms: number = TOAST_MS.default, title?: string): string {
  for (const other of contradicts[kind]) {
    for (const id of shown[other]) notifications.hide(id);
    shown[other].clear();
  }
  const id = notifications.show({
    color: colors[kind],
    title,
    message,
    autoClose: ms === 0 ? false : ms,
    withBorder: true,
    closeButtonProps: { 'aria-label': i18n.t('common:actions.close') },
    onClose: () => shown[kind].delete(id),
  });
  shown[kind].add(id);
  return id;
}

/** Closes every toast still shown: for a screen whose own box now says what happened. */
export function closeAllToasts(): void {
  for (const kind of Object.keys(shown) as Kind[]) {
    for (const id of shown[kind]) notifications.hide(id);
    shown[kind].clear();
  }
}
