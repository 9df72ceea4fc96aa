import { PRINT_MAX_PROTOCOLS, TOAST_MS } from '@portal/shared/limits';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { notify } from '../../../lib/notify';

/**
 * The protocols chosen for printing, kept across pages. Spec 5: at most 50; a 51st check is
 * reverted with the selection-limit message.
 */
export function usePrintSelection() {
  const { t } = useTranslation('results');
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());

  const warnLimit = useCallback(
    () => notify('warning', t('print.limit', { max: PRINT_MAX_PROTOCOLS }), TOAST_MS.long),
    [t],
  );

  const toggle = useCallback(
    (requestId: string, checked: boolean) => {
      setSelected((current) => {
        if (checked && !current.has(requestId) && current.size >= PRINT_MAX_PROTOCOLS) {
          warnLimit();
          return current;
        }
        const next = new Set(current);
        if (checked) next.add(requestId);
        else next.delete(requestId);
        return next;
      });
    },
    [warnLimit],
  );

  const toggleAll = useCallback(
    (requestIds: string[], checked: boolean) => {
      setSelected((current) => {
        const next = new Set(current);
        if (!checked) {
          for (const id of requestIds) next.delete(id);
          return next;
        }
        let refused = false;
        for (const id of requestIds) {
          if (next.has(id)) continue;
          if (next.size >= PRINT_MAX_PROTOCOLS) {
            refused = true;
            break;
          }
          next.add(id);
        }
        if (refused) warnLimit();
        return next;
      });
    },
    [warnLimit],
  );

  const clear = useCallback(() => setSelected(new Set()), []);
  return { selected, toggle, toggleAll, clear };
}
