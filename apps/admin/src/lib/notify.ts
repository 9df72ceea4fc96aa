import { notifications } from '@mantine/notifications';
import { i18n } from './i18n';
import { errorKey } from './errors';

const closeButtonProps = () => ({ 'aria-label': i18n.t('common.close') });

export function notifySuccess(message: string): void {
  notifications.show({ color: 'green', message, autoClose: 4000, closeButtonProps: closeButtonProps() });
}

/** A failed call, in the user's language. */
export function notifyError(error: unknown): void {
  notifications.show({
    color: 'red',
    message: i18n.t(errorKey(error)),
    autoClose: 8000,
    closeButtonProps: closeButtonProps(),
  });
}
