import { Notifications } from '@mantine/notifications';

export default function ToastHost() {
  // At the bottom: a toast never hides the header's menus nor a screen's title, and on a phone it
  // sits where the thumb is.
  return <Notifications position="bottom-right" limit={4} zIndex={1000} />;
}
