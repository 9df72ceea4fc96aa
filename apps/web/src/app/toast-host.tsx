import { Notifications } from '@mantine/notifications';

export default function ToastHost() {
  // Below the header, so a toast never hides the language or account menus.
  return <Notifications position="top-right" limit={4} zIndex={1000} styles={{ root: { marginTop: 52 } }} />;
}
