import { useNotifications } from '@mantine/notifications';
import { lazy, Suspense, useState } from 'react';

// The toast container (its transitions and close buttons) is only fetched once a first toast is
// queued: most visits to /login never show one. Queued toasts wait in the store meanwhile.
const ToastHost = lazy(() => import('./toast-host'));

export function Toasts() {
  const { notifications, queue } = useNotifications();
  const [needed, setNeeded] = useState(false);
  if (!needed && notifications.length + queue.length > 0) setNeeded(true);
  return needed ? (
    <Suspense fallback={null}>
      <ToastHost />
    </Suspense>
  ) : null;
}
